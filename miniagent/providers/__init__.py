"""The product's providers: every API miniagent speaks, each hardened for real servers.

The contract (`stream(model, context, options)`, the events, "a stream never raises")
and the two plain protocols (the scripted model, OpenAI Chat Completions) are the
core's: miniagent/core/provider.py. This package adds what real servers need around
them: Anthropic's Messages API (anthropic.py), the hardened HTTP call and its error
guard (guard.py), compat quirks as data (compat.py), history hygiene (history.py),
partial-JSON repair (jsonpartial.py), and the verdict kept beside a failed reply
(verdict.py). `stream()` here dispatches on `model.api` to the product's modules.

A script file for the scripted model is checked before the core replays it
(scripts.py).

Left out: other APIs (OpenAI's Responses API, Gemini's own, Bedrock, Vertex). Every
server here speaks one of the two protocols, and most speak Chat Completions.
"""

from typing import Any, Dict, Iterator

from ..core.provider import Model, StreamEvent, StreamOptions, unknown_api


def stream(model: Model, context: Dict[str, Any],
           options: StreamOptions) -> Iterator[StreamEvent]:
    """Dispatch to the module that speaks `model.api`; imported lazily so that the
    scripted demo runs without loading the HTTP providers."""
    if model.api == "scripted":
        from ..core import scripted
        return scripted.stream(model, context, options)
    if model.api == "openai-completions":
        from . import openai
        return openai.stream(model, context, options)
    if model.api == "anthropic-messages":
        from . import anthropic
        return anthropic.stream(model, context, options)
    return unknown_api(model)
