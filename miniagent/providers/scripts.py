"""A script file, checked before the core's scripted model replays it.

The core replays a script it trusts (core/scripted.py). A user's file (`--script FILE`,
a recorded session turned into a script and edited by hand) is hostile input, so every
turn is checked first and the first problem is named with its turn: a block of an
unknown type, a toolCall without a "name" string or with "arguments" that are not an
object, a stopReason, delayMs or usage of the wrong kind, "prompts" that are not a list
of strings. Lone surrogates (a "\\ud83d" escape without its partner) are removed first,
since they could not be printed later. `parse_script` and `load_script` here are the
names `from miniagent import ...` gives.

Left out: checking what a tool call's arguments mean (the tools check them when called).
"""

import json
from typing import Any, Optional

from ..core import scripted
from ..core.messages import STOP_REASONS
from ..core.assembly import clean_value

BLOCK_TYPES = ("text", "thinking", "toolCall")


def parse_script(data: Any, source: str = "script"):
    """The core's parse_script after checking the decoded script; a bad shape raises
    ValueError naming the turn.

    Example:
        >>> parse_script([{"content": [{"type": "toolCall", "arguments": {}}]}], "s.json")
        Traceback (most recent call last):
        ValueError: s.json: turn 1: a toolCall block needs a "name" string
    """
    data = clean_value(data)  # a lone "\ud83d" escape could not be printed later
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list):
        raise ValueError(f"{source}: a script is a list of turns or {{\"turns\": [...]}}")
    for number, turn in enumerate(turns, start=1):
        problem = _turn_problem(turn)
        if problem:
            raise ValueError(f"{source}: turn {number}: {problem}")
    prompts = data.get("prompts", []) if isinstance(data, dict) else []
    if not isinstance(prompts, list) or not all(isinstance(item, str) for item in prompts):
        raise ValueError(f'{source}: "prompts" must be a list of strings')
    afterwards = data.get("afterwards") if isinstance(data, dict) else None
    if afterwards is not None and not isinstance(afterwards, str):
        raise ValueError(f'{source}: "afterwards" must be a string')
    return scripted.parse_script(data, source)


def _turn_problem(turn: Any) -> Optional[str]:
    """What is wrong with one turn, or None."""
    if not isinstance(turn, dict) or not isinstance(turn.get("content", []), list):
        return 'must be an object with a "content" list'
    for block in turn.get("content", []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in BLOCK_TYPES:
            return f"a block is not one of {', '.join(BLOCK_TYPES)}: {json.dumps(block)[:80]}"
        if kind == "toolCall" and not isinstance(block.get("name"), str):
            return 'a toolCall block needs a "name" string'
        if kind == "toolCall" and not isinstance(block.get("arguments", {}), dict):
            return 'a toolCall block\'s "arguments" must be an object'
        if kind != "toolCall" and not isinstance(block.get(kind, ""), str):
            return f'a {kind} block needs a "{kind}" string'
    if turn.get("stopReason") not in (None, *STOP_REASONS):
        return f"stopReason must be one of {', '.join(STOP_REASONS)}"
    if not _is_number(turn.get("delayMs", 0)):
        return "delayMs must be a number of milliseconds"
    usage = turn.get("usage", {})
    if not isinstance(usage, dict) or not all(_is_number(v) for v in usage.values()):
        return "usage must be an object of token counts"
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def load_script(path: str):
    """Read and check a script file; a missing file or bad JSON raises ValueError with
    the reason."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise ValueError(f"Cannot read script {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"Script {path} is not valid JSON: {exc}") from None
    return parse_script(data, path)
