"""The scripted model: an offline LLM that replays a script, for demos and tests.

A real provider turns server bytes into stream events; this one turns a JSON script
into the *same* events, so the loop, the tools and the front ends run exactly as they
would against a real model, with no network and no key. Each call replays one turn:

    [{"content": [{"type": "text", "text": "Let me look."},
                  {"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]},
     {"content": [{"type": "text", "text": "There are two files."}]}]

A turn may add "stopReason" (with_tool_use's rule applies), "errorMessage" (the turn
fails), "usage" and "delayMs" (a pause before each delta, cut short by an abort). Text
arrives word by word, tool arguments in small JSON fragments, as from a server. A script
may also be {"turns": [...], "prompt"?, "prompts"?, "afterwards"?} (the demo's prompt, a
recorded session's prompts, the answer once the turns are used up). Left out: checking
a user's file (providers/__init__.py does); branching on what the model is sent; images.
"""

import json
import re
import threading
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Dict, Iterator, List, Optional

from .messages import ABORTED_TEXT, assistant_message, text_block, tool_call_block
from .assembly import set_counts
from .provider import Model, with_tool_use

API = "scripted"
FRAGMENT = 16  # characters of tool-call JSON per delta


@dataclass(eq=False)  # one script is one replay: equal only to itself
class Script:
    """The turns of a script and how many have been served (shared across calls)."""
    turns: List[Dict[str, Any]]
    source: str = "script"
    prompt: Optional[str] = None
    prompts: List[str] = field(default_factory=list)
    afterwards: Optional[str] = None
    served: int = 0
    lock: Any = field(default_factory=threading.Lock, repr=False)

    def next_turn(self) -> Optional[Dict[str, Any]]:
        with self.lock:
            if self.served >= len(self.turns):  # used up: the answer afterwards, if any
                return {"content": [text_block(self.afterwards)]} if self.afterwards else None
            self.served += 1
            return self.turns[self.served - 1]


def parse_script(data: Any, source: str = "script") -> Script:
    """Wrap a decoded script, trusted as it is (our demo, our tests). For example:
        >>> parse_script({"turns": [{"content": []}], "prompts": ["Fix it"]}).prompts
        ['Fix it']
    """
    if isinstance(data, list):
        data = {"turns": data}
    return Script(data["turns"], source, data.get("prompt"), data.get("prompts", []),
                  data.get("afterwards"))


def demo_script() -> Script:
    """The built-in demo's script, shipped inside the package."""
    text = resources.files("miniagent.core").joinpath("demo/script.json").read_text("utf-8")
    return parse_script(json.loads(text), "the built-in demo script")


def scripted_model(script: Script, model_id: str = "scripted") -> Model:
    return Model(id=model_id, provider="scripted", api=API, name="Scripted model", script=script)


def stream(model: Model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Replay the next turn as stream events (the provider contract: never raises)."""
    partial = assistant_message(API, model.provider, model.id)
    yield {"type": "start", "partial": partial}
    script: Script = model.script
    turn = script.next_turn()
    if turn is None:
        yield _fail(partial, "error", f"The scripted model has no turns left: all {len(script.turns)} "
                    f"turns of {script.source} were used. Add turns to the script, or ask for less.")
        return
    delay = turn.get("delayMs", 0) / 1000
    for block in turn.get("content", []):
        for event in _stream_block(block, partial, script.served):
            # A wait on the abort event: Ctrl-C stops a slow reply at once, as a server's.
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


def _stream_block(block: Dict, partial: Dict, turn_number: int) -> Iterator[Dict[str, Any]]:
    """The start / delta* / end events of one block, mutating `partial` as they go."""
    index, kind = len(partial["content"]), block["type"]
    if kind == "toolCall":
        current = tool_call_block(block.get("id") or f"call_{turn_number}_{index}", block["name"], {})
        partial["content"].append(current)
        yield {"type": "toolcall_start", "contentIndex": index, "partial": partial}
        raw = json.dumps(block.get("arguments", {}), ensure_ascii=False)
        for start in range(0, len(raw), FRAGMENT):
            yield {"type": "toolcall_delta", "contentIndex": index,
                   "delta": raw[start:start + FRAGMENT], "partial": partial}
        current["arguments"] = json.loads(raw)
        yield {"type": "toolcall_end", "contentIndex": index, "toolCall": current, "partial": partial}
        return
    current = {"type": kind, kind: ""}  # text and thinking keep their words under their type
    partial["content"].append(current)
    yield {"type": f"{kind}_start", "contentIndex": index, "partial": partial}
    for word in re.findall(r"\s*\S+|\s+", block.get(kind, "")):
        current[kind] += word
        yield {"type": f"{kind}_delta", "contentIndex": index, "delta": word, "partial": partial}
    yield {"type": f"{kind}_end", "contentIndex": index, "content": current[kind], "partial": partial}


def _fail(partial: Dict[str, Any], reason: str, text: str) -> Dict[str, Any]:
    partial["stopReason"], partial["errorMessage"] = reason, text
    return {"type": "error", "reason": reason, "error": partial}
