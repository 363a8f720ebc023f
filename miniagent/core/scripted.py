"""The scripted model: an offline LLM that replays a script, for demos and tests.

A real provider turns server bytes into stream events. This one turns a JSON script
into the *same* stream events, so everything above the provider layer (the loop, the
tools, the front ends) runs exactly as it would against a real model, with no network
and no key. The demo (`miniagent --demo`) and most tests use it.

A script is a list of turns, or {"turns": [...], "prompt"?: "...", "prompts"?: [...]}
(the optional prompt is the built-in demo's; prompts, a list of strings, are the user
prompts of a recorded session, which `miniagent script` writes so that a run without a
prompt plays them all in order); each model call consumes one turn:

    [
      {"content": [{"type": "text", "text": "Let me look."},
                   {"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]},
      {"content": [{"type": "text", "text": "There are two files."}]}
    ]

A turn is {"content": [BLOCK, ...], "stopReason"?, "errorMessage"?, "usage"?,
"delayMs"?}. BLOCKs are message blocks (text, thinking, toolCall; a toolCall may omit
its id). stopReason defaults to "stop", and a stop with tool calls is "toolUse" (the
rule every provider shares: providers.with_tool_use); an errorMessage makes the turn
end as an error; delayMs is the pause before each streamed delta (a pause that abort
interrupts). Text arrives word by word and tool
arguments in small JSON fragments, the way a real server sends them.

Running out of turns is an error message that says so.

Left out: the script ignores what the model is sent (it is a recording, not a
simulation), and turns cannot branch on tool results; images are not replayed.
"""

import json
import re
import threading
from importlib import resources
from typing import Any, Dict, Iterator, List, Optional

from .messages import (ABORTED_TEXT, STOP_REASONS, assistant_message, clean_value, set_counts,
                       tool_call_block)
from .provider import Model, with_tool_use

API = "scripted"
BLOCK_TYPES = ("text", "thinking", "toolCall")
FRAGMENT = 16  # characters of tool-call JSON per delta


class Script:
    """The turns of a script and how many have been served (shared across calls)."""

    def __init__(self, turns: List[Dict[str, Any]], source: str = "script",
                 prompt: Optional[str] = None, prompts: Optional[List[str]] = None,
                 afterwards: Optional[str] = None):
        self.turns = turns
        self.source = source
        self.prompt = prompt  # the demo's own prompt; other scripts get theirs from the user
        self.prompts = list(prompts or [])  # a recorded session's prompts, played in order
        self.afterwards = afterwards  # the answer to every prompt once the turns are used
        self.served = 0
        self._lock = threading.Lock()

    def next_turn(self) -> Optional[Dict[str, Any]]:
        with self._lock:
            if self.served >= len(self.turns):
                return {"content": [{"type": "text", "text": self.afterwards}]} \
                    if self.afterwards else None
            self.served += 1
            return self.turns[self.served - 1]


def parse_script(data: Any, source: str = "script") -> Script:
    """Check a decoded script and wrap it; a bad shape raises ValueError naming the turn.

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
        problem = _check_turn(turn)
        if problem:
            raise ValueError(f"{source}: turn {number}: {problem}")
    prompt = data.get("prompt") if isinstance(data, dict) else None
    prompts = data.get("prompts", []) if isinstance(data, dict) else []
    if not isinstance(prompts, list) or not all(isinstance(item, str) for item in prompts):
        raise ValueError(f'{source}: "prompts" must be a list of strings')
    afterwards = data.get("afterwards") if isinstance(data, dict) else None
    if afterwards is not None and not isinstance(afterwards, str):
        raise ValueError(f'{source}: "afterwards" must be a string')
    return Script(turns, source, prompt, prompts, afterwards)


def _check_turn(turn: Any) -> Optional[str]:
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


def load_script(path: str) -> Script:
    """Read a script file; a missing file or bad JSON raises ValueError with the reason."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise ValueError(f"Cannot read script {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"Script {path} is not valid JSON: {exc}") from None
    return parse_script(data, path)


def demo_script() -> Script:
    """The built-in demo's script, shipped inside the package."""
    text = resources.files("miniagent.core").joinpath("demo/script.json").read_text("utf-8")
    return parse_script(json.loads(text), "the built-in demo script")


def scripted_model(script: Script, model_id: str = "scripted") -> Model:
    return Model(id=model_id, provider="scripted", api=API, name="Scripted model",
                 script=script)


# --- Streaming ------------------------------------------------------------------------------

def stream(model: Model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Replay the next turn as stream events (the provider contract: never raises)."""
    partial = assistant_message(API, model.provider, model.id)
    yield {"type": "start", "partial": partial}
    script: Script = model.script
    turn = script.next_turn()
    if turn is None:
        yield _fail(partial, "error", f"The scripted model has no turns left: all "
                    f"{len(script.turns)} turns of {script.source} were used. Add turns to "
                    f"the script, or ask for less.")
        return
    delay = turn.get("delayMs", 0) / 1000
    for block in turn.get("content", []):
        for event in _stream_block(block, partial, script.served):
            # The pause before each delta is a wait on the abort event: Ctrl-C during a
            # slow scripted reply stops it at once, as it would stop a real server.
            aborted = options.abort.wait(delay) if delay else options.abort.is_set()
            if aborted:
                yield _fail(partial, "aborted", ABORTED_TEXT)
                return
            yield event
    set_counts(partial["usage"], turn.get("usage", {}))
    if turn.get("errorMessage"):
        yield _fail(partial, "error", turn["errorMessage"])
        return
    partial["stopReason"] = with_tool_use(turn.get("stopReason") or "stop", partial["content"])
    yield {"type": "done", "reason": partial["stopReason"], "message": partial}


def _stream_block(block: Dict[str, Any], partial: Dict[str, Any],
                  turn_number: int) -> Iterator[Dict[str, Any]]:
    """The start / delta* / end events of one block, mutating `partial` as they go."""
    index = len(partial["content"])
    kind = block["type"]
    if kind == "toolCall":
        call_id = block.get("id") or f"call_{turn_number}_{index}"
        current = tool_call_block(call_id, block["name"], {})
        partial["content"].append(current)
        yield {"type": "toolcall_start", "contentIndex": index, "partial": partial}
        raw = json.dumps(block.get("arguments", {}), ensure_ascii=False)
        for start in range(0, len(raw), FRAGMENT):
            yield {"type": "toolcall_delta", "contentIndex": index,
                   "delta": raw[start:start + FRAGMENT], "partial": partial}
        current["arguments"] = json.loads(raw)
        yield {"type": "toolcall_end", "contentIndex": index, "toolCall": current,
               "partial": partial}
        return
    # text and thinking blocks keep their words under a key named like the type
    current = {"type": kind, kind: ""}
    partial["content"].append(current)
    yield {"type": f"{kind}_start", "contentIndex": index, "partial": partial}
    for word in re.findall(r"\s*\S+|\s+", block.get(kind, "")):
        current[kind] += word
        yield {"type": f"{kind}_delta", "contentIndex": index, "delta": word,
               "partial": partial}
    yield {"type": f"{kind}_end", "contentIndex": index, "content": current[kind],
           "partial": partial}


def _fail(partial: Dict[str, Any], reason: str, text: str) -> Dict[str, Any]:
    partial["stopReason"] = reason
    partial["errorMessage"] = text
    return {"type": "error", "reason": reason, "error": partial}
