"""The verdict beside a failed reply: decided once, read as data, never parsed back.

A failed model call ends as an assistant message (stopReason "error") whose
errorMessage is one line for people and for the session file. What comes next, a
retry, a wait, a compaction, is decided where the failure is first seen: the HTTP layer
(http/classify.py) from the status, the headers and the server's words; the guard
(guard.py) from the exception it caught. That decision, a `Verdict`, is kept here,
beside the message and not inside it, so the session file, the events and rpc carry
exactly what they carried before:

    builder.fail("503 Busy", verdict=Verdict(retryable=True))   # guard.py, once
    verdict_of(message)           # reply_retry.py, compaction/estimate.py: the data

The table is keyed by the message object itself (its id, with the message kept alive
beside it so the id cannot be handed to another object while the entry exists), and it
keeps only the newest entries: the harness asks about a reply right after its run.

A message the table does not know came without a verdict: read back from a session file,
written by the scripted model, built by a test, or made by the Agent for an exception.
Its verdict is judged from its words by classify.judge, the one place that reads error
text.

Left out: sharing verdicts across processes (a resumed session is judged again).
"""

import threading
from collections import OrderedDict
from typing import Optional, Tuple

from ..http.classify import judge
from ..http.errors import Verdict
from ..core.messages import Message

KEPT = 64  # verdicts remembered; older ones are judged again from their words if asked

_verdicts: "OrderedDict[int, Tuple[Message, Verdict]]" = OrderedDict()
_lock = threading.Lock()  # a compaction's call may fail on another thread than a run's


def record(message: Message, verdict: Optional[Verdict]) -> None:
    """Keep `verdict` beside `message` (None: judge its words now, as they arrived)."""
    verdict = verdict or judge(message.get("errorMessage") or "")
    with _lock:
        _verdicts[id(message)] = (message, verdict)
        while len(_verdicts) > KEPT:
            _verdicts.popitem(last=False)  # the oldest first


def verdict_of(message: Message) -> Verdict:
    """The verdict of a failed message: the one recorded with it, else its words judged.

    Examples: a 429 with retry-after: 2, as the provider returned it -> Verdict(True, 2.0)
              {"stopReason": "error", "errorMessage": "529 Overloaded"} from a file
                  -> Verdict(retryable=True)
    """
    with _lock:
        kept = _verdicts.get(id(message))
    if kept is not None:
        return kept[1]
    return judge(message.get("errorMessage") or "")
