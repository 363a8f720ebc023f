"""Questions over the protocol: --confirm's, and the extensions' ctx.ui, to the program.

In the terminal, `--confirm` asks on the keyboard (modes/confirm.py). In rpc mode the
program driving us answers instead, with pi 1.6's extension UI records
(docs/rpc-extension-ui.md: a "confirm" dialog):

    < {"type": "extension_ui_request", "id": "confirm-1", "method": "confirm",
       "title": "Allow bash?", "message": "bash wants to run:\n  rm -rf build",
       "toolName": "bash", "toolCallId": "call_1", "args": {"command": "rm -rf build"}}
    > {"type": "extension_ui_response", "id": "confirm-1", "confirmed": false}

`toolName`, `toolCallId` (it matches the call's tool_execution_start) and `args` (as
the model sent them) are ours, beside pi's fields, for a program that shows the call
itself. Only `"confirmed": true` runs the call; `"cancelled": true` is a no. An abort
refuses the pending question; at the end of stdin every question, pending or later, is
refused (a closed pipe must never mean yes).

The records of miniagent 0.x, `confirm_response {id, confirmed}` on stdin, are still
read as an answer, for one release (docs/frontends.md).

Extensions' ctx.ui (project/extension_context.py) goes the same way, as `RpcUI`:
confirm and select wait for an answer ({"confirmed"} / {"value"}, or {"cancelled"});
notify, set_status and set_widget are one-way records (pi's notify, setStatus and
setWidget, with pi's field names).

Left out: pi's input and editor dialogs, and a question's timeout.
"""

import threading
from itertools import count
from typing import Any, Callable, Dict, Optional, Sequence

from ..output import say

ANSWERS = ("extension_ui_response", "confirm_response")  # the second: the old name


class Confirmations:
    """Questions to the program, each waiting for its answer (see the module docstring)."""

    def __init__(self, out: Callable[[Dict[str, Any]], None]):
        self.out = out
        self._pending: Dict[str, Dict[str, Any]] = {}  # id -> {"answered": Event, "yes"}
        self._numbers = count(1)
        self._closed = False
        self._call: Dict[str, Any] = {}  # the tool_execution_start of the call asked about
        # Re-entrant: a stop signal's handler refuses the pending questions too, and may
        # interrupt the main thread while it holds this lock for an abort.
        self._lock = threading.RLock()

    def note_call(self, event: Dict[str, Any]) -> None:
        """Remember the last call announced: the loop announces each call
        (tool_execution_start) just before its before-hooks run, so that is the call
        the gate asks about."""
        if event["type"] == "tool_execution_start":
            self._call = event

    def ask(self, question: str) -> str:
        """The gate's ask function: "y" when the program confirmed the call, else "n".
        The question's last line is the terminal's "[y]es, [n]o" prompt: left out."""
        call = self._call
        answer = self.request({"method": "confirm", "title": f"Allow {call['toolName']}?",
                               "message": question.rsplit("\n", 1)[0],
                               "toolName": call["toolName"], "toolCallId": call["toolCallId"],
                               "args": call["args"]}, "confirm")
        return "y" if is_yes(answer) else "n"

    def request(self, fields: Dict[str, Any], prefix: str) -> Dict[str, Any]:
        """Send an extension_ui_request and wait for its answer; {} when refused."""
        with self._lock:
            if self._closed:
                return {}
            question_id = f"{prefix}-{next(self._numbers)}"
            waiting = self._pending[question_id] = {"answered": threading.Event(),
                                                    "answer": {}}
        self.out({"type": "extension_ui_request", "id": question_id, **fields})
        waiting["answered"].wait()
        return waiting["answer"]

    def deliver(self, answer: Dict[str, Any]) -> None:
        """An answer: wake the call waiting for it (one for no question pending, say a
        late answer after an abort, is reported on stderr and dropped)."""
        with self._lock:
            question = self._pending.pop(str(answer.get("id")), None)
        if question is None:
            say(f"miniagent: warning: a {answer['type']} for {answer.get('id')!r}, which is "
                f"not a pending question, was ignored")
            return
        question["answer"] = answer
        question["answered"].set()

    def refuse_pending(self) -> None:
        with self._lock:
            questions, self._pending = list(self._pending.values()), {}
        for question in questions:
            question["answered"].set()  # the answer stays {}: a no

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.refuse_pending()


def is_yes(answer: Dict[str, Any]) -> bool:
    """Only "confirmed": true is a yes; "cancelled", or no answer, is a no."""
    return answer.get("confirmed") is True and answer.get("cancelled") is not True


class RpcUI:
    """ctx.ui over the protocol (see the module docstring)."""
    has_ui = True

    def __init__(self, confirmations: Confirmations):
        self.confirmations = confirmations
        self._numbers = count(1)

    def _tell(self, fields: Dict[str, Any]) -> None:
        self.confirmations.out({"type": "extension_ui_request",
                                "id": f"ui-{next(self._numbers)}", **fields})

    def notify(self, text: str, level: str = "info") -> None:
        self._tell({"method": "notify", "message": str(text), "notifyType": level})

    def set_status(self, key: str, text: Optional[str]) -> None:
        self._tell({"method": "setStatus", "statusKey": key, "statusText": text})

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        self._tell({"method": "setWidget", "widgetKey": key,
                    "widgetLines": None if lines is None else [str(line) for line in lines]})

    def confirm(self, title: str, message: str) -> bool:
        return is_yes(self.confirmations.request(
            {"method": "confirm", "title": title, "message": message}, "confirm"))

    def select(self, title: str, options: Sequence[str]) -> Optional[str]:
        answer = self.confirmations.request(
            {"method": "select", "title": title, "options": list(options)}, "select")
        value = answer.get("value")
        return value if value in options and not answer.get("cancelled") else None
