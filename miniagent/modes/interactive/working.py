"""The working line: the status line's last word, so a run is never without one.

The run view (view.py) shows what runs ("running $ pytest -q · 3s") and what is
waited for ("waiting for the model · 2s"). Between those, while the answer streams or
the harness waits to try a failed reply again, a screen with no status line looks
like one that hangs. This part of the view says what is left:

    ⠹ working · 12s                 from the run's start to its footer
    ⠼ retrying in 3s (2 of 3)       a retry's wait, counted down to the request

and it says nothing at all while a question waits for the user (a --confirm, an
extension's): nothing runs until they answer, so the screen stands still.

The view holds one WorkingLine and asks it last (`status`); it is not thread-safe on
its own: the view's lock guards it, as it guards the rest of the view's state.
"""

import math
from typing import Any, Dict, Optional, Tuple

Status = Tuple[str, Optional[float]]  # what the line says, and since when (None: no clock)


class WorkingLine:
    def __init__(self) -> None:
        self.since: Optional[float] = None  # the run's start, until its footer
        self.retry_at: Optional[float] = None  # when a waiting retry is sent
        self.retry_count = ""  # "2 of 3"
        self.held = False  # a question waits for the user: nothing runs

    def start(self, now: float) -> None:
        """A run (or a retry's request) starts: the clock starts at the first one."""
        self.retry_at = None
        if self.since is None:
            self.since = now

    def retry(self, event: Dict[str, Any], now: float) -> None:
        """auto_retry_start: count down its delayMs."""
        self.retry_at = now + event["delayMs"] / 1000
        self.retry_count = f"{event['attempt']} of {event['maxAttempts']}"

    def end(self) -> None:
        """The run's footer: nothing works any more."""
        self.since = self.retry_at = None

    def status(self, now: float) -> Optional[Status]:
        """The countdown of a waiting retry, else "working" with the run's clock.

        Example: after retry({"delayMs": 2500, "attempt": 2, "maxAttempts": 3}, 10.0),
                 status(10.2) -> ("retrying in 3s (2 of 3)", None)
        """
        if self.retry_at is not None:
            left = max(0, math.ceil(self.retry_at - now))
            return f"retrying in {left}s ({self.retry_count})", None
        if self.since is not None:
            return "working", self.since
        return None
