"""Run limits: a brake for a user who pays per token.

A model that calls a tool on every turn never stops by itself: tried with such a model,
an agent without limits sent 746 requests in 15 seconds. pi has no limit; miniagent has
two, counted per process (per prompt in the terminal):

    --max-turns N     model requests of the conversation (retries of a failed reply and
                      summarization calls do not count)
    --max-cost USD    what the replies cost so far, checked after each reply

The turn that reaches a limit still runs its tools (their results are worth keeping);
then the loop asks `should_stop()` before the next model call and the run ends there,
with one line saying which limit and what was spent:

    limits = RunLimits(max_turns=2)
    limits.count(reply_1)   # an assistant message that called tools
    limits.should_stop()    # -> False: one request so far
    limits.count(reply_2)
    limits.should_stop()    # -> True
    limits.reason           # -> "stopped at --max-turns 2: 2 model requests, $0.0042 spent"

The same counts make the line that ends a run in the default text mode (`summary_line`).

Left out: limits on time or tokens (Ctrl-C is the brake for those).
"""

from typing import Any, Dict, Optional

from ..models.usage import clean_usage


class RunLimits:
    """Counts the replies of one prompt and says when a limit is reached."""

    def __init__(self, max_turns: Optional[int] = None, max_cost: Optional[float] = None):
        self.max_turns = max_turns
        self.max_cost = max_cost
        self.reset()

    def reset(self) -> None:
        """A new prompt starts counting from zero."""
        self.turns, self.cost, self.reason = 0, 0.0, None
        self.input_tokens = self.output_tokens = 0  # for the end-of-run line
        self.reported = False  # did any reply say its tokens? (zeros may mean it never did)

    def count(self, message: Dict[str, Any]) -> None:
        """Count one finished assistant message (called on every message_end)."""
        if message.get("role") != "assistant":
            return
        # Every reply costs what its usage says, failed or not; only replies that
        # the harness will not retry count as turns, so a retried 529 costs no turn.
        usage = clean_usage(message.get("usage"))
        self.cost += usage["cost"]["total"]
        self.input_tokens += usage.get("input", 0) + usage.get("cacheRead", 0)
        self.output_tokens += usage.get("output", 0)
        self.reported = self.reported or usage["totalTokens"] > 0
        if message.get("stopReason") != "error":
            self.turns += 1

    def should_stop(self) -> bool:
        """Asked by the loop before each model call: has a limit been reached?"""
        if self.reason is None:
            self.reason = self._reached()
        return self.reason is not None

    def _reached(self) -> Optional[str]:
        spent = f"{self.turns} model request{'s' if self.turns != 1 else ''}, " \
                f"${self.cost:.4f} spent"
        if self.max_turns is not None and self.turns >= self.max_turns:
            return f"stopped at --max-turns {self.max_turns}: {spent}"
        if self.max_cost is not None and self.cost >= self.max_cost:
            return f"stopped at --max-cost {self.max_cost:g}: {spent}"
        return None


def summary_line(limits: RunLimits, cost: str) -> str:
    """The line print-less text mode ends with: "3 turns · 12,040 in · 310 out · $0.0123";
    "1 turn · usage unknown · cost unknown" when no reply reported its tokens (a server
    that sends them only in its last chunk, stopped before it; the scripted model)."""
    turns = f"{limits.turns} turn{'s' if limits.turns != 1 else ''}"
    counts = f"{limits.input_tokens:,} in · {limits.output_tokens:,} out" if limits.reported \
        else "usage unknown"
    return f"{turns} · {counts} · {cost}"


def cost_is_known(model: Any) -> bool:
    """A model with all prices at zero may be free (a local model) or simply unknown to
    the registry; either way --max-cost has nothing to count."""
    return any(value for value in (getattr(model, "cost", None) or {}).values())
