"""Tools: the agent's hands, and the contract every tool follows.

The model never touches the machine. It writes a `toolCall` block ("read app.py"), the
loop finds the tool with that name, checks the arguments against the tool's JSON Schema,
calls `execute`, and sends the result back as a `toolResult` message. This module holds
what every tool shares:

  * `Tool`: name, description and JSON Schema (all three are sent to the model, which
    learns the tool's contract from them), an optional `prepare_arguments` that repairs
    known model mistakes before validation, the `execute` function, a `sequential`
    flag for tools that must not run beside others, and an optional `paths`
    declaration: which files a call reads and which it writes.
  * `ToolContext`: what `execute` gets besides its arguments: the working directory, the
    abort event and an `on_update` callback for live output.
  * `check_not_aborted`: the guard every tool runs first (and long loops repeat every
    `ABORT_CHECK_LINES` lines), so an aborted run starts no new work. It is here, beside
    the abort event it reads, because it is part of what every tool promises.
  * `ToolResult`: content blocks for the model plus `details` for front ends.
  * `ToolError`: raise it with a message that tells the model what to do next; the loop
    turns it (or any other exception) into an error result. Tools never print.
  * `validate_arguments`: a small JSON Schema checker; the coercions models need
    ("5" accepted as 5) are in coerce.py.

Validation example, with a schema like read's ({"path": string (required), "offset":
number}):

    >>> schema = {"type": "object", "required": ["path"], "properties": {
    ...     "path": {"type": "string"}, "offset": {"type": "number"}}}
    >>> read = Tool("read", "Read a file", schema, execute=None)
    >>> validate_arguments(read, {"path": "a", "offset": "5"})  # numeric string coerced
    {'path': 'a', 'offset': 5}
    >>> validate_arguments(read, {})
    Traceback (most recent call last):
    miniagent.core.tools.ToolError: Invalid arguments for tool "read":
      - path: missing required property
    ...
    >>> validate_arguments(read, {"path": ["a"]})  # arrays are never coerced
    Traceback (most recent call last):
    miniagent.core.tools.ToolError: Invalid arguments for tool "read":
      - path: must be string
    ...

What `paths` is for: the calls of one reply run at once, so two calls on one file would
race (`[write a.py, edit a.py]`: the edit could find no file yet). toolcalls.py reads the
declarations and makes calls that share a file, one of them writing it, run in the order
of the calls. read, write and edit declare their file. bash declares nothing (its command
may touch any file: it is not queued, as in pi), and neither do grep, find and ls: they
read directories, and a listing made beside a write may show the file or not.

Left out: the full JSON Schema language ($ref, oneOf, patterns, formats). The tools here
use objects, arrays, scalars and enums only, and so do pi's.
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
    content: List[Dict[str, Any]]
    """Blocks sent to the model: {"type": "text", ...} and {"type": "image", ...}."""
    details: Any = None
    """Extra data for front ends and the session file (a diff, truncation facts); not sent."""
    is_error: bool = False
    terminate: bool = False
    """A vote to end the run after this batch; it ends only if every result votes so."""


@dataclass
class ToolContext:
    cwd: str
    abort: threading.Event = field(default_factory=threading.Event)
    on_update: Callable[[ToolResult], None] = lambda partial: None
    """Live partial results (bash output while it runs); may be called from any thread."""


@dataclass
class Tool:
    name: str
    description: str
    parameters: Dict[str, Any]
    execute: Callable[[str, Dict[str, Any], ToolContext], ToolResult]
    prepare_arguments: Optional[Callable[[Any], Any]] = None
    sequential: bool = False
    paths: Optional[Callable[[Dict[str, Any], str], Tuple[List[str], List[str]]]] = None
    """paths(args, cwd) -> (files read, files written), as absolute paths, for a call's
    validated arguments; None: the tool declares no file (see "What `paths` is for")."""

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


ABORT_CHECK_LINES = 4096
"""How often a line-by-line loop (edit's normalising) looks at the abort
event: `number % ABORT_CHECK_LINES == 0` costs next to nothing per line, and 4096 lines
take milliseconds, so even a 1 GB file stops promptly when the user aborts."""


# --- Argument validation -----------------------------------------------------------------

def validate_arguments(tool: Tool, arguments: Any) -> Dict[str, Any]:
    """Return a coerced copy of `arguments`, or raise ToolError listing every problem.

    The raw arguments are never modified: events and the session keep what the model
    actually sent, and the tool gets the repaired copy.
    """
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
