"""Tools: the agent's hands, and the contract every tool follows.

The model never touches the machine. It writes a `toolCall` block ("read app.py"), the
loop finds the tool with that name, checks the arguments against the tool's JSON Schema,
calls `execute`, and sends the result back as a `toolResult` message. This module holds
what every tool shares:

  * `Tool`: name, description and JSON Schema (all three are sent to the model, which
    learns the tool's contract from them), an optional `prepare_arguments` that repairs
    known model mistakes before validation, the `execute` function, and a `sequential`
    flag for tools that must not run beside others.
  * `ToolContext`: what `execute` gets besides its arguments: the working directory, the
    abort event and an `on_update` callback for live output.
  * `ToolResult`: content blocks for the model plus `details` for front ends.
  * `ToolError`: raise it with a message that tells the model what to do next; the loop
    turns it (or any other exception) into an error result. Tools never print.
  * `validate_arguments`: a small JSON Schema checker with the coercions models need.
  * `create_tools`: the registry that turns `--tools read,bash` into Tool objects.

Validation example (schema: {"path": string (required), "offset": number}):

    {"path": "a", "offset": "5"}  -> {"path": "a", "offset": 5}     (numeric string coerced)
    {}                            -> ToolError: "  - path: missing required property"
    {"path": ["a"]}               -> ToolError: "  - path: must be string" (arrays never coerced)

Left out: the full JSON Schema language ($ref, oneOf, patterns, formats). The tools here
use objects, arrays, scalars and enums only, and so do pi's.
"""

import copy
import json
import math
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional


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

    def spec(self) -> Dict[str, Any]:
        """What the provider sends to the model: name, description and schema."""
        return {"name": self.name, "description": self.description,
                "parameters": self.parameters}


def text_result(text: str, details: Any = None) -> ToolResult:
    """The common case: one text block."""
    return ToolResult(content=[{"type": "text", "text": text}], details=details)


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
        ok, value = _coerce(value, expected)
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


def _coerce(value: Any, expected: str):
    """(ok, value) for a scalar type, with the forgiving coercions models need.

    Models often send numbers as strings ("5") or booleans as strings ("true");
    rejecting those would only cost a turn. Arrays and objects are never coerced.
    """
    is_bool = isinstance(value, bool)
    is_num = isinstance(value, (int, float)) and not is_bool
    if expected == "object":
        return isinstance(value, dict), value
    if expected == "array":
        return isinstance(value, list), value
    if expected == "string":
        if isinstance(value, str):
            return True, value
        if is_bool:
            return True, "true" if value else "false"
        if is_num:
            return True, _number_text(value)
        return (True, "") if value is None else (False, value)
    if expected in ("number", "integer"):
        number = _to_number(value)
        if number is None:
            return False, value
        if expected == "integer":
            return (True, int(number)) if number == int(number) else (False, value)
        return True, number
    if expected == "boolean":
        if is_bool:
            return True, value
        if value in ("true", "false"):
            return True, value == "true"
        if is_num and value in (0, 1):
            return True, bool(value)
        return (True, False) if value is None else (False, value)
    if expected == "null":
        empty = value is None or value == "" or value is False or value == 0
        return (True, None) if empty else (False, value)
    return True, value  # an unknown type keyword is not ours to enforce


def _to_number(value: Any) -> Optional[float]:
    """The number a value stands for, or None: "5" -> 5, "0.5" -> 0.5, True -> 1, None -> 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if value is None:
        return 0
    if isinstance(value, str):
        for parse in (int, float):
            try:
                number = parse(value)
            except ValueError:
                continue
            return number if math.isfinite(number) else None
    return None


def _number_text(number: float) -> str:
    """JSON's spelling of a number: 5 -> "5", 5.0 -> "5", 0.5 -> "0.5"."""
    if isinstance(number, float) and number.is_integer():
        return str(int(number))
    return str(number)


# --- Registry --------------------------------------------------------------------------------

DEFAULT_TOOLS = ["read", "bash", "edit", "write"]
ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def create_tools(names: Optional[List[str]] = None) -> List[Tool]:
    """Build the named tools (default: read, bash, edit, write); unknown names raise ValueError."""
    # Imported here, not at the top: each tool module imports this one.
    from . import bash, edit, find, grep, ls, read, write
    factories = {"read": read.create_tool, "bash": bash.create_tool,
                 "edit": edit.create_tool, "write": write.create_tool,
                 "grep": grep.create_tool, "find": find.create_tool, "ls": ls.create_tool}
    tools = []
    for name in names if names is not None else DEFAULT_TOOLS:
        if name not in factories:
            raise ValueError(f"Unknown tool '{name}'. Available: {', '.join(ALL_TOOLS)}")
        tools.append(factories[name]())
    return tools
