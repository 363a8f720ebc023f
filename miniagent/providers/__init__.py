"""The product's providers: every API miniagent speaks, each hardened for real servers.

The contract (`stream(model, context, options)`, the events, "a stream never raises")
and the two plain protocols (the scripted model, OpenAI Chat Completions) are the
core's: miniagent/core/provider.py. This package adds what real servers need around
them: Anthropic's Messages API (anthropic.py), the hardened HTTP call and its error
guard (guard.py), compat quirks as data (compat.py), history hygiene (history.py),
partial-JSON repair (jsonpartial.py), and the verdict kept beside a failed reply
(verdict.py). `stream()` here dispatches on `model.api` to the product's modules.

The scripted model's files are checked here too (`parse_script`, `load_script`: the
names `from miniagent import ...` gives). The core replays a script it trusts; a user's
file (`--script FILE`, a recorded session edited by hand) is hostile input, so before
the core's parse_script every turn is checked and the first problem is named with its
turn: a block of an unknown type, a toolCall without a "name" string or with
"arguments" that are not an object, a stopReason, delayMs or usage of the wrong kind,
"prompts" that are not a list of strings. Lone surrogates (a "\\ud83d" escape without
its partner) are removed first, since they could not be printed later.

Left out: other APIs (OpenAI's Responses API, Gemini's own, Bedrock, Vertex). Every
server here speaks one of the two protocols, and most speak Chat Completions.
"""

import json
from typing import Any, Dict, Iterator, Optional

from ..core.messages import STOP_REASONS, clean_value
from ..core.provider import Model, StreamEvent, StreamOptions, unknown_api

BLOCK_TYPES = ("text", "thinking", "toolCall")


def stream(model: Model, context: Dict[str, Any],
           options: StreamOptions) -> Iterator[StreamEvent]:
    """Dispatch to the module that speaks `model.api`; imported lazily so that the
    scripted demo runs without loading the HTTP providers."""
    if model.api == "scripted":
        from ..core import scripted
        return scripted.stream(model, context, options)
    if model.api == "openai-completions":
        from . import openai
        return openai.stream(model, context, options)
    if model.api == "anthropic-messages":
        from . import anthropic
        return anthropic.stream(model, context, options)
    return unknown_api(model)


# --- The scripted model's files ---------------------------------------------------------


def parse_script(data: Any, source: str = "script"):
    """The core's parse_script after checking the decoded script; a bad shape raises
    ValueError naming the turn.

    Example:
        >>> parse_script([{"content": [{"type": "toolCall", "arguments": {}}]}], "s.json")
        Traceback (most recent call last):
        ValueError: s.json: turn 1: a toolCall block needs a "name" string
    """
    from ..core import scripted
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
