"""OpenAI Chat Completions for real servers: the core's protocol with the product's pieces.

The protocol itself, the request, the chunks, tool-call fragments matched by index and
id, is the core's (core/openai.py). Dozens of servers speak it, each a little
differently; this module calls the core through its seams with the hardened pieces:

  * `transport`: guard.open_stream (http/transport.py: an abort ends even the wait for
    the status line; a failure judged once, its verdict kept; HTML pages refused);
  * `builder`: builder.MessageBuilder (live partial arguments, verdicts, the API key
    redacted from every errorMessage);
  * `request`: `build_request` below, which is the core's with the server's quirks
    (compat.py, a table of flags) and history hygiene (history.py), plus what only some
    servers take: the system prompt as role "developer" (OpenAI's reasoning models), a
    reasoning effort in the server's format, a prompt-cache key, and an output cap that
    leaves room for the input in the window (builder.max_output_tokens).

Left out: the protocol (core/openai.py) and Anthropic's (anthropic.py).
"""

import threading
from functools import partial
from typing import Any, Dict, Iterable, Iterator, Optional

from ..core import openai as protocol
from .builder import MessageBuilder, max_output_tokens
from .compat import compat_for
from .guard import open_stream, stream_from_bytes
from .history import prepare_history


def build_request(model, context: Dict[str, Any], options):
    """(url, headers, body) for one streamed call: the core's, with this server's quirks."""
    compat = compat_for(model)
    hygiene = partial(prepare_history, id_format=compat["toolCallIdFormat"])
    url, headers, body = protocol.build_request(model, context, options, compat, hygiene)
    body[compat["maxTokensField"]] = max_output_tokens(model, options, context)
    system = body["messages"][0] if body["messages"] else {}
    if system.get("role") == "system" and model.reasoning and compat["supportsDeveloperRole"]:
        system["role"] = "developer"
    if compat["supportsPromptCacheKey"] and options.session_id:
        body["prompt_cache_key"] = options.session_id
    body.update(_thinking_fields(model, compat, options.thinking))
    return url, headers, body


def _thinking_fields(model, compat: Dict[str, Any], level: str) -> Dict[str, Any]:
    """Example: gpt-5 at "minimal" -> {"reasoning_effort": "minimal"}; via Ollama,
    where "minimal" is unknown, -> {"reasoning_effort": "low"}."""
    if not model.reasoning:
        return {}
    if compat["thinkingFormat"] == "chat-template":
        return {"chat_template_kwargs": {"enable_thinking": level != "off"}}
    if level == "off" or not compat["supportsReasoningEffort"]:
        return {}  # the model's own default
    effort = compat["reasoningEffortMap"].get(level, level)
    if compat["thinkingFormat"] == "openrouter":
        return {"reasoning": {"effort": effort}}
    return {"reasoning_effort": effort}


def stream(model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see core/provider.py for the event protocol). Never raises."""
    return protocol.stream(model, context, options, transport=open_stream, request=build_request,
                           builder=MessageBuilder(model, options.api_key))


def stream_bytes(model, chunks: Iterable[bytes], abort: Optional[threading.Event] = None):
    """The same events for a body already in memory (captures, tests, the benchmark)."""
    return stream_from_bytes(model, chunks, protocol.parse_chunks, abort)
