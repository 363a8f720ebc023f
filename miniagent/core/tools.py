"""Tools: the agent's hands, and the contract every tool follows.

The model never touches the machine: it writes a `toolCall` block ("read app.py"), and
the loop finds that tool, checks the arguments against its JSON Schema, runs `execute`
and returns the `ToolResult` as a `toolResult` message. A tool raises `ToolError` with
what to do next, calls `check_not_aborted` first and never prints. `paths` declares the
files a call reads and writes, so toolcalls.py runs the calls of one reply that share a
file, one of them writing it, in order (bash, grep, find and ls declare none).

`validate_arguments`, with a schema like read's ("5" taken as 5 is coerce.py's work):

    >>> schema = {"type": "object", "required": ["path"], "properties": {
    ...     "path": {"type": "string"}, "offset": {"type": "number"}}}
    >>> read = Tool("read", "Read a file", schema, execute=None)
    >>> validate_arguments(read, {"path": "a", "offset": "5"})  # numeric string coerced
    {'path': 'a', 'offset': 5}
    >>> validate_arguments(read, {"offset": [5]})  # every problem; arrays are never coerced
    Traceback (most recent call last):
    miniagent.core.tools.ToolError: Invalid arguments for tool "read":
      - path: missing required property
      - offset: must be number
    ...

Left out: the full JSON Schema language ($ref, oneOf, patterns, formats); pi's tools need none.
"""

import copy
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from .coerce import coerce


class ToolError(Exception):
    """A failure the model should read: the message says what went wrong and what to do."""


@dataclass
class ToolResult:
    content: List[Dict[str, Any]]  # sent to the model: text and image blocks
    details: Any = None  # for front ends and the session file (a diff...); not sent
    is_error: bool = False
    terminate: bool = False  # a vote to end the run after this batch; all must vote so


@dataclass
class ToolContext:
    cwd: str
    abort: threading.Event = field(default_factory=threading.Event)
    on_update: Callable[[ToolResult], None] = lambda partial: None  # from any thread


@dataclass
class Tool:
    name: str
    description: str
    parameters: Dict[str, Any]
    execute: Callable[[str, Dict[str, Any], ToolContext], ToolResult]
    prepare_arguments: Optional[Callable[[Any], Any]] = None  # repairs, before validation
    sequential: bool = False  # True: never run beside other calls
    # paths(validated args, cwd) -> (absolute paths read, written); None: declares none
    paths: Optional[Callable[[Dict[str, Any], str], Tuple[List[str], List[str]]]] = None

    def spec(self) -> Dict[str, Any]:
        """What the provider sends to the model: name, description and schema."""
        return {"name": self.name, "description": self.description,
                "parameters": self.parameters}


def text_result(text: str, details: Any = None) -> ToolResult:
    """The common case: one text block."""
    return ToolResult(content=[{"type": "text", "text": text}], details=details)


def check_not_aborted(abort: threading.Event) -> None:
    """Raise when the run was aborted before (or while) the tool started."""
    if abort.is_set():
        raise ToolError("Operation aborted")


def validate_arguments(tool: Tool, arguments: Any) -> Dict[str, Any]:
    """A coerced copy of `arguments` (kept as sent), or ToolError listing every problem."""
    args = copy.deepcopy(arguments)
    if tool.prepare_arguments is not None:
        args = tool.prepare_arguments(args)
    problems: List[str] = []
    args = _check(args, tool.parameters, "", problems)
    if problems:
        listing = "\n".join(f"  - {p}" for p in problems)
        received = json.dumps(arguments, indent=2, ensure_ascii=False)
        raise ToolError(f'Invalid arguments for tool "{tool.name}":\n{listing}\n\n'
                        f"Arguments received:\n{received}")
    return args


def _check(value: Any, schema: Dict[str, Any], path: str, problems: List[str]) -> Any:
    """Check one value against one schema node; returns the (possibly coerced) value."""
    where = path or "root"
    expected = schema.get("type")
    if expected is not None:
        ok, value = coerce(value, expected)
        if not ok:
            problems.append(f"{where}: must be {expected}")
            return value
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(v) for v in schema["enum"])
        problems.append(f"{where}: must be one of {allowed}")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                problems.append(f"{_join(path, name)}: missing required property")
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                value[name] = _check(value[name], sub, _join(path, name), problems)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            value[i] = _check(item, schema["items"], _join(path, str(i)), problems)
    return value


def _join(path: str, key: str) -> str:
    return f"{path}/{key}" if path else key
