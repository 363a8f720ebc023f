"""The product's Agent: the core's Agent, streaming through every provider miniagent has.

core/agent.py is the whole idea (state, queues, abort, the loop in the caller's thread);
its default `stream_fn` knows the core's two protocols, plain. Here the default becomes
providers.stream: Anthropic too, and each protocol hardened for real servers (the
guard, compat quirks, history hygiene). Nothing else changes, so this is the one line
of difference, kept as a class so that `from miniagent import Agent` and isinstance
checks keep working.

Left out: everything else; read core/agent.py.
"""

from . import providers
from .core.agent import Agent as CoreAgent


class Agent(CoreAgent):
    def __init__(self, *args, stream_fn=providers.stream, **kwargs):
        super().__init__(*args, stream_fn=stream_fn, **kwargs)
