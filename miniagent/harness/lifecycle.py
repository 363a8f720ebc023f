"""When is a run over? agent_end's `willRetry`, and `agent_settled`.

The Agent's run ends with `agent_end`, but the harness may not be done: a failed reply
is retried, an overflow is compacted and the turn continued, each a new Agent run with
its own agent_start ... agent_end. A program driving us (rpc, JSON mode) needs to know
which agent_end is the last, so two facts go on the wire, as in pi 1.6:

    agent_end      {"messages", "willRetry"}   true: the harness goes on from here
    agent_settled  {"aborted"}                 nothing more will happen for this prompt

    agent_start ... agent_end {willRetry: true}       a 503
    auto_retry_start {attempt: 1, delayMs: 2000}
    agent_start ... agent_end {willRetry: false}      the answer
    agent_settled {aborted: false}

`willRetry` is a forecast made when agent_end is emitted, from what the harness does
next (reply_retry.py's decision, the retries left, one overflow recovery per prompt);
`agent_settled` is the fact, sent after everything. The retry loop itself stays in
harness.py: this file only watches its events (auto_retry_start counts the retries,
compaction_start "overflow" the recovery) and so knows whether one is waiting, which
rpc's abort_retry needs.

Left out: settling after work that is not a prompt (/compact, `!cmd`): they send no
agent_end, so nobody waits for their agent_settled.
"""

from typing import TYPE_CHECKING, Any, Dict

from ..compaction.estimate import is_context_overflow
from ..core.messages import Message
from .reply_retry import is_retryable

if TYPE_CHECKING:
    from .harness import Harness


class Lifecycle:
    """Watches one Harness's runs: answers agent_end's willRetry, sends agent_settled.
    The harness builds its Agent with `will_retry` as a callback and subscribes `track`."""

    def __init__(self, harness: "Harness"):
        self.harness = harness
        self.retries_made = 0  # this prompt's, from auto_retry_start
        self.overflow_tried = False  # this prompt compacted after an overflow already
        self.retry_waiting = False  # between auto_retry_start and the retry's agent_start

    def begin(self) -> None:
        """A new prompt: nothing retried yet."""
        self.retries_made, self.overflow_tried, self.retry_waiting = 0, False, False

    def track(self, event: Dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "auto_retry_start":
            self.retries_made, self.retry_waiting = event["attempt"], True
        elif kind in ("agent_start", "auto_retry_end"):
            self.retry_waiting = False
        elif kind == "compaction_start" and event.get("reason") == "overflow":
            self.overflow_tried = True

    def will_retry(self, last: Message) -> bool:
        """Will the harness go on after a run that ended with `last`?"""
        harness = self.harness
        if harness.worker.abort_event.is_set() or last.get("stopReason") == "aborted":
            return False
        if is_retryable(last):
            return self.retries_made < harness.max_retries
        return is_context_overflow(last) and not self.overflow_tried

    def settle(self) -> None:
        """The prompt's work is over: say so, and whether an abort ended it."""
        messages = self.harness.agent.messages
        aborted = self.harness.worker.abort_event.is_set() or bool(
            messages and messages[-1].get("stopReason") == "aborted")
        self.retry_waiting = False
        self.harness.agent.emit({"type": "agent_settled", "aborted": aborted})
