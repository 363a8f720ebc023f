"""OpenAI Chat Completions for real servers: the core's protocol with the product's pieces.

The protocol itself, the request, the chunks, tool-call fragments matched by index and
id, is the core's (core/openai.py). Dozens of servers speak it, each a little
differently; this module calls the core through its seams with the hardened pieces:

  * `convert` (`convert_message` below): the core's text-only conversion, plus images
    for a model that sees them (a user's as image parts; a tool result's, which a `tool`
    message cannot carry, moved into one user message after the run of results, the
    result saying "(see attached image)"), our own reasoning sent back in the field it
    came in (llama.cpp and DeepSeek want it; Groq answers 400, so compat can say no),
    and Gemini's `extra_content` sent back with its call;
  * `parse` (`parse_chunks` below): the core's, with the finish reasons that mean a
    failure (a content filter, a refusal, an upstream error: D15) or are old names
    ("end", "function_call"), in-band errors worded in one line (builder.error_text),
    and odd chunks rewritten into the standard shape first:
    usage under `x_groq` (Groq) or in the choice (some proxies), DeepSeek's cache hits,
    a non-streamed reply's `message` where a chunk has its `delta`, and tool-call
    arguments sent as an object instead of a JSON string;

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

import json
import threading
from functools import partial
from typing import Any, Dict, Iterable, Iterator, List, Optional

from ..core import openai as protocol
from ..core.assembly import ProviderError
from ..core.messages import text_block
from ..core.assembly import token_count
from .builder import MessageBuilder, error_text, max_output_tokens
from .compat import compat_for
from .guard import open_stream, stream_from_bytes
from .history import images_of, prepare_history

# Finish reasons beyond the core's: old names, and the ones that mean failure (D15).
FINISH_REASONS = {"end": "stop", "function_call": "toolUse"}
FINISH_ERRORS = {
    "content_filter": "The provider's content filter withheld the response (finish_reason: content_filter)",
    "refusal": "The model declined to answer (finish_reason: refusal)",
    "error": "A server error interrupted the response (finish_reason: error)",
    "insufficient_system_resource": "The server is overloaded (finish_reason: insufficient_system_resource)",
}


def build_request(model, context: Dict[str, Any], options):
    """(url, headers, body) for one streamed call: the core's, with this server's quirks."""
    compat = compat_for(model)
    hygiene = partial(_prepare_history, id_format=compat["toolCallIdFormat"])
    convert = partial(convert_message, sees_images="image" in model.input,
                      send_reasoning=compat["supportsReasoningReplay"])
    url, headers, body = protocol.build_request(model, context, options, compat, hygiene, convert)
    body[compat["maxTokensField"]] = max_output_tokens(model, options, context)
    system = body["messages"][0] if body["messages"] else {}
    if system.get("role") == "system" and model.reasoning and compat["supportsDeveloperRole"]:
        system["role"] = "developer"
    if compat["supportsPromptCacheKey"] and options.session_id:
        body["prompt_cache_key"] = options.session_id
    body.update(_thinking_fields(model, compat, options.thinking))
    return url, headers, body


def _prepare_history(messages: List[Dict[str, Any]], model, id_format: Optional[str]):
    """history.prepare_history, then a tool result's images moved where this API takes them."""
    cleaned = prepare_history(messages, model, id_format=id_format)
    return attach_tool_images(cleaned) if "image" in model.input else cleaned


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


# --- The request: images, reasoning sent back, Gemini's signature -----------------------------


def convert_message(message: Dict[str, Any], sees_images: bool = False,
                    send_reasoning: bool = True) -> Optional[Dict[str, Any]]:
    """The core's convert_message, with what it leaves out (see the module docstring)."""
    content = message["content"]
    if message["role"] == "user" and sees_images and images_of(content):
        parts = [_image_part(b) if b["type"] == "image" else {"type": "text", "text": b["text"]}
                 for b in content if b.get("type") in ("text", "image")]
        return {"role": "user", "content": parts}
    wire = protocol.convert_message(message)
    if message["role"] == "toolResult" and not wire["content"] and images_of(content):
        wire["content"] = "(see attached image)"
    if message["role"] == "assistant" and wire is not None:
        _add_replay(wire, content, send_reasoning)
    return wire


def _add_replay(wire: Dict[str, Any], content: List[Dict[str, Any]], send_reasoning: bool) -> None:
    """Thinking back into the field it came from (its signature), where the server takes
    it; each call's extra_content (Gemini's thought signature) back as it came."""
    thinking = [b for b in content if b["type"] == "thinking" and b.get("thinking")]
    field = thinking[0].get("thinkingSignature") if thinking else None
    if send_reasoning and field in protocol.REASONING_FIELDS:
        wire[field] = "\n".join(b["thinking"] for b in thinking)
    calls = [b for b in content if b["type"] == "toolCall"]
    for call, wire_call in zip(calls, wire.get("tool_calls", [])):
        if "extraContent" in call:
            wire_call["extra_content"] = call["extraContent"]


def attach_tool_images(messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """A `tool` message carries text only: the images of a run of tool results follow it
    in one user message. Example: [result(image), result(text), user] ->
    [result(image), result(text), user("Attached image(s)...", image), user]."""
    moved: List[Dict[str, Any]] = []
    waiting: List[Dict[str, Any]] = []  # images of the tool results just passed
    for message in messages:
        if message["role"] != "toolResult" and waiting:
            moved.append(_images_message(waiting))
            waiting = []
        moved.append(message)
        if message["role"] == "toolResult":
            waiting.extend(images_of(message["content"]))
    if waiting:
        moved.append(_images_message(waiting))
    return moved


def _images_message(images: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"role": "user", "content": [text_block("Attached image(s) from tool result:"), *images],
            "timestamp": 0}


def _image_part(block: Dict[str, Any]) -> Dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block['mimeType']};base64,{block['data']}"}}


# --- The reply: finish reasons and odd chunks -----------------------------------------------


def stop_reason(finish_reason: Optional[str]) -> str:
    """The core's mapping, after the failures and the old names."""
    if finish_reason in FINISH_ERRORS:
        raise ProviderError(FINISH_ERRORS[finish_reason])
    return FINISH_REASONS.get(finish_reason) or protocol.stop_reason(finish_reason)


def standard_chunk(chunk: Any) -> Any:
    """A chunk rewritten into the shape the core reads (see the module docstring).

    Example: {"choices": [], "x_groq": {"usage": {...}}} -> {"choices": [], "usage": {...}, ...}
    """
    if not isinstance(chunk, dict):
        return chunk
    if chunk.get("error"):  # an in-band error after a 200 status, in one line
        raise ProviderError(error_text(chunk["error"]))
    choices = chunk.get("choices") or []
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage") or choice.get("usage")
    if isinstance(usage, dict):
        chunk["usage"] = _standard_usage(usage)
    if "delta" not in choice and isinstance(choice.get("message"), dict):
        choice["delta"] = choice["message"]  # a reply that was not streamed
    for fragment in (choice.get("delta") or {}).get("tool_calls") or []:
        function = fragment.get("function") if isinstance(fragment, dict) else None
        if isinstance(function, dict) and isinstance(function.get("arguments"), (dict, list)):
            function["arguments"] = json.dumps(function["arguments"])  # the object itself
    return chunk


def _standard_usage(usage: Dict[str, Any]) -> Dict[str, Any]:
    """DeepSeek counts its cache hits as prompt_cache_hit_tokens, not as cached_tokens."""
    details = usage.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    if token_count(details.get("cached_tokens")) or "prompt_cache_hit_tokens" not in usage:
        return usage
    return {**usage, "prompt_tokens_details": {**details, "cached_tokens": usage["prompt_cache_hit_tokens"]}}


parse_chunks = partial(protocol.parse_chunks, finish=stop_reason, adapt=standard_chunk)


def stream(model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see core/provider.py for the event protocol). Never raises."""
    return protocol.stream(model, context, options, transport=open_stream, request=build_request,
                           builder=MessageBuilder(model, options.api_key), parse=parse_chunks)


def stream_bytes(model, chunks: Iterable[bytes], abort: Optional[threading.Event] = None):
    """The same events for a body already in memory (captures, tests, the benchmark)."""
    return stream_from_bytes(model, chunks, parse_chunks, abort)
