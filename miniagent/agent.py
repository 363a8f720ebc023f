"""The product's Agent: the core's Agent, streaming through every provider miniagent has.

core/agent.py is the whole idea (state, queues, abort, the loop in the caller's thread);
its default `stream_fn` knows the core's two protocols, plain. Here the default becomes
providers.stream: Anthropic too, and each protocol hardened for real servers (the
guard, compat quirks, history hygiene). Kept as a class so that `from miniagent import
Agent` and isinstance checks keep working, it also adds what the product's front ends
and harness need of a running agent beyond the idea:

  * `pending_count`: how many queued messages wait (the rpc mode's get_state);
  * `take_queues()` / `clear_queues()`: take the queued messages back out (the rpc
    mode's clear, and the terminal, which puts them back in the input line after an
    abort instead of sending them);
  * `emit(event)`: publish an event of the harness's own (retries, compaction) on the
    agent's bus, so subscribers see one stream.

Left out: everything else; read core/agent.py.
"""

from typing import Any, Dict, List, Tuple

from . import providers
from .core.agent import Agent as CoreAgent
from .core.messages import Message


class Agent(CoreAgent):
    def __init__(self, *args, stream_fn=providers.stream, **kwargs):
        super().__init__(*args, stream_fn=stream_fn, **kwargs)

    def emit(self, event: Dict[str, Any]) -> None:
        """Publish an event on the agent's bus (the harness announces retries this way)."""
        self._bus.emit(event)

    @property
    def pending_count(self) -> int:
        """How many steering and follow-up messages wait to be sent."""
        with self._lock:
            return len(self._steering) + len(self._follow_ups)

    def clear_queues(self) -> List[Message]:
        """Take every queued steering and follow-up message out, in that order (after an
        abort the terminal puts them back in the input line instead of sending them)."""
        steering, follow_ups = self.take_queues()
        return steering + follow_ups

    def take_queues(self) -> Tuple[List[Message], List[Message]]:
        """Take both queues out: (steering, follow-ups)."""
        with self._lock:
            taken = self._steering, self._follow_ups
            self._steering, self._follow_ups = [], []
        if taken[0] or taken[1]:
            self._announce_queues()
        return taken
