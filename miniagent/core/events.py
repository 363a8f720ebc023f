"""The event bus: how the agent tells the outside world what it is doing.

The loop never prints: all it does is announced as an event, a plain dict with a
`type`, to whoever subscribes. The print mode waits for the last assistant message, the
JSON mode writes every event as a line, the harness saves every finished message: a
front end is nothing but a different subscriber.

A text-only run emits, in order:

    agent_start              turn_start
    message_start(user)      message_end(user)
    message_start(assistant) message_update* message_end(assistant)
    turn_end
    agent_end                (willRetry: does the harness go on from here?)
    agent_settled            (from the harness: nothing more happens for this prompt)

The harness adds its own (retries, compaction), the Agent `queue_update`; the names
and fields are pi 1.6's (docs/frontends.md lists them all). Subscribers are called in
order, on the emitting thread, one event at a time (a lock: parallel tools emit from
their own threads). One that raises is reported on stderr once, then ignored: a broken
progress display must not lose the user's work. Left out: filtering by type,
priorities, async delivery.
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
        """Add a subscriber; returns a function that removes it again:

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
                    if id(subscriber) not in self._reported:
                        self._reported.add(id(subscriber))
                        name = getattr(subscriber, "__qualname__", repr(subscriber))
                        print(f"miniagent: event subscriber {name} failed on "
                              f"'{event.get('type')}' (further errors from it are not "
                              f"shown):\n{traceback.format_exc().rstrip()}", file=sys.stderr)
