"""The event bus: how the agent tells the outside world what it is doing.

The loop never prints. Everything it does is announced as an event, a plain dict with a
`type`, and whoever cares subscribes: the print mode waits for the last assistant
message, the JSON mode writes every event as a line, and the harness appends every
finished message to the session file. A front end is nothing but a
different subscriber.

A text-only run emits, in order:

    agent_start
    turn_start
    message_start(user)      message_end(user)
    message_start(assistant) message_update* message_end(assistant)
    turn_end
    agent_end                (willRetry: does the harness go on from here?)
    agent_settled            (from the harness: nothing more happens for this prompt)

Around the runs, the harness adds its own: `auto_retry_start` / `auto_retry_end` (a
failed reply tried again from scratch, announced before the wait), `compaction_start` /
`compaction_end`, `thinking_level_changed`; the Agent adds `queue_update` when a
steering or follow-up queue changes. The names and fields are pi 1.6's (docs/frontends.md
lists them all).

Two rules make the bus safe to use from several threads (parallel tools emit
`tool_execution_update` from their own threads):

  * emission is serialised by a lock, so a subscriber never sees two events at once;
  * a subscriber that raises is reported on stderr once and then ignored; it never
    stops the agent. A broken progress display must not lose the user's work.

Left out: filtering by type, priorities, async delivery. Subscribers are called
synchronously, in subscription order, on the emitting thread; they should be quick.
"""

import sys
import threading
import traceback
from typing import Any, Callable, Dict, List

Event = Dict[str, Any]
Subscriber = Callable[[Event], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: List[Subscriber] = []
        self._reported: set = set()  # ids of subscribers whose failure was already reported
        self._lock = threading.RLock()  # re-entrant: a subscriber may emit or unsubscribe

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns a function that removes it again.

        Example:
            >>> bus = EventBus()
            >>> unsubscribe = bus.subscribe(lambda e: print(e["type"]))
            >>> bus.emit({"type": "agent_start"})
            agent_start
            >>> unsubscribe()
            >>> bus.emit({"type": "agent_end"})  # no one hears it any more
        """
        with self._lock:
            self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            with self._lock:
                if subscriber in self._subscribers:
                    self._subscribers.remove(subscriber)

        return unsubscribe

    def emit(self, event: Event) -> None:
        """Deliver one event to every subscriber, shielding the caller from their errors."""
        with self._lock:
            for subscriber in list(self._subscribers):
                try:
                    subscriber(event)
                except Exception:  # noqa: BLE001 - any subscriber bug is contained here
                    self._report_once(subscriber, event)

    def _report_once(self, subscriber: Subscriber, event: Event) -> None:
        if id(subscriber) in self._reported:
            return
        self._reported.add(id(subscriber))
        name = getattr(subscriber, "__qualname__", repr(subscriber))
        print(f"miniagent: event subscriber {name} failed on '{event.get('type')}' "
              f"(further errors from it are not shown):\n{traceback.format_exc().rstrip()}",
              file=sys.stderr)
