"""--confirm over the protocol: the question before a risky call goes to the program.

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

Left out: the other dialogs (select, input, editor) and the fire-and-forget methods:
no extension of ours asks through them.
"""

import threading
from itertools import count
from typing import Any, Callable, Dict

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
        with self._lock:
            if self._closed:
                return "n"
            question_id = f"confirm-{next(self._numbers)}"
            waiting = self._pending[question_id] = {"answered": threading.Event(), "yes": False}
        call = self._call
        self.out({"type": "extension_ui_request", "id": question_id, "method": "confirm",
                  "title": f"Allow {call['toolName']}?", "message": question.rsplit("\n", 1)[0],
                  "toolName": call["toolName"], "toolCallId": call["toolCallId"],
                  "args": call["args"]})
        waiting["answered"].wait()
        return "y" if waiting["yes"] else "n"

    def deliver(self, answer: Dict[str, Any]) -> None:
        """An answer: wake the call waiting for it (one for no question pending, say a
        late answer after an abort, is reported on stderr and dropped)."""
        with self._lock:
            question = self._pending.pop(str(answer.get("id")), None)
        if question is None:
            say(f"miniagent: warning: a {answer['type']} for {answer.get('id')!r}, which is "
                f"not a pending question, was ignored")
            return
        question["yes"] = answer.get("confirmed") is True and answer.get("cancelled") is not True
        question["answered"].set()

    def refuse_pending(self) -> None:
        with self._lock:
            questions, self._pending = list(self._pending.values()), {}
        for question in questions:
            question["answered"].set()  # "yes" stays False

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.refuse_pending()
