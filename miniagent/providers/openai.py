"""OpenAI Chat Completions: the protocol of OpenAI and of nearly every other server.

Ollama, llama.cpp, vLLM, LM Studio, OpenRouter, DeepSeek, Groq and Mistral all speak
it, each a little differently. One call is one POST to `{base_url}/chat/completions`
with `stream: true`; the reply is Server-Sent Events, one JSON chunk per event, ending
with `data: [DONE]`:

    data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me"}}]}
    data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",
           "type":"function","function":{"name":"read","arguments":"{\\"pa"}}]}}]}
    data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,
           "function":{"arguments":"th\\":\\"a\\"}"}}]}}]}
    data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
    data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,...}}
    data: [DONE]

becomes [text "Let me", toolCall c1 read {"path": "a"}], stopReason "toolUse".

Going out (`build_request`): the history is cleaned (history.py), the system prompt
becomes the first message, tool results become `tool` messages (their images a
follow-up user message, since a `tool` message carries text only), and the server's
quirks decide a few field names (the compat table in compat.py).

Coming back (`parse_chunks`), what servers do that a naive client gets wrong:

  * tool-call fragments are matched to calls by `index`, then by `id` (docs/decisions.md D1):
    some servers reuse index 0 for every call, repeat id and name on every fragment,
    send a fresh id on every fragment (LM Studio), omit the index or the id, or send
    the arguments as an object instead of a JSON string;
  * reasoning arrives as `reasoning_content` (DeepSeek, llama.cpp, vLLM) or `reasoning`
    (OpenRouter, Ollama); it becomes a thinking block whose signature names the field,
    so the same field carries it back next turn;
  * usage comes on a chunk with `choices: []` (or on the finish chunk); `prompt_tokens`
    includes cache hits and `completion_tokens` includes reasoning (D14);
  * a 200 stream may carry `{"error": ...}` mid-way; a body that ends before any
    `finish_reason` (and without `[DONE]`) was cut off (D5), while one that
    ends after a finish_reason without `[DONE]` is complete (servers omit it);
  * `finish_reason: "stop"` may come with tool calls (Gemini): the calls decide "toolUse";
    Gemini also tags a call with `extra_content` that must come back with it;
  * a server that ignores `stream: true` sends one `chat.completion`: its `message` is
    read as one big delta (its tool calls carry no index, so each starts a call).

Left out: n > 1 choices, logprobs, `tool_choice`, legacy `function_call`, the Responses API.
"""

import json
import threading
from typing import Any, Dict, Iterable, Iterator, List, Optional

from ..core.messages import (clean_text, text_block, text_of, thinking_block, token_count,
                             tool_call_block)
from ..core.sse import iter_sse
from .builder import MessageBuilder, ProviderError, error_text, max_output_tokens
from .compat import compat_for
from .guard import stream_from_bytes, stream_http
from .history import images_of, prepare_history

EARLY_END = "stream ended before the response was complete (no finish_reason)"
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")

# --- The request ---------------------------------------------------------------------------


def build_request(model, context: Dict[str, Any], options):
    """(url, headers, body) for one streamed call."""
    compat = compat_for(model)
    body: Dict[str, Any] = {"model": model.id, "messages": convert_messages(model, compat, context),
                            "stream": True}
    if compat["supportsUsageInStreaming"]:
        body["stream_options"] = {"include_usage": True}
    body[compat["maxTokensField"]] = max_output_tokens(model, options, context)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools") or []
    if tools:  # some servers reject an empty list, so none means no field at all
        body["tools"] = [{"type": "function", "function": {
            "name": t["name"], "description": t["description"], "parameters": t["parameters"]}}
            for t in tools]
    if compat["supportsPromptCacheKey"] and options.session_id:
        body["prompt_cache_key"] = options.session_id
    body.update(_thinking_fields(model, compat, options.thinking))
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if options.api_key:  # local servers need none; never send "Bearer None"
        headers["Authorization"] = f"Bearer {options.api_key}"
    headers.update(model.headers or {})
    return f"{model.base_url.rstrip('/')}/chat/completions", headers, body


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


def convert_messages(model, compat: Dict[str, Any], context: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Our messages -> Chat Completions messages (after history hygiene)."""
    wire: List[Dict[str, Any]] = []
    if context.get("systemPrompt"):
        role = "developer" if model.reasoning and compat["supportsDeveloperRole"] else "system"
        wire.append({"role": role, "content": clean_text(context["systemPrompt"])})
    sees_images = "image" in model.input
    waiting_images: List[Dict[str, Any]] = []  # images of the tool results just sent
    for message in prepare_history(context.get("messages", []), model, compat["toolCallIdFormat"]):
        role = message["role"]
        if role != "toolResult" and waiting_images:
            wire.append(_images_message(waiting_images))
            waiting_images = []
        if role == "user":
            converted = _user_message(message["content"], sees_images)
        elif role == "assistant":
            converted = _assistant_message(message, compat["supportsReasoningReplay"])
        else:
            converted = {"role": "tool", "tool_call_id": message["toolCallId"],
                         "content": _tool_text(message)}
            if sees_images:
                waiting_images.extend(images_of(message["content"]))
        if converted is not None:
            wire.append(converted)
    if waiting_images:
        wire.append(_images_message(waiting_images))
    return wire


def _image_part(block: Dict[str, Any]) -> Dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block['mimeType']};base64,{block['data']}"}}


def _user_message(content: Any, sees_images: bool) -> Optional[Dict[str, Any]]:
    if isinstance(content, str):
        return {"role": "user", "content": content}
    parts = []
    for block in content:
        if block.get("type") == "text":
            parts.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image" and sees_images:
            parts.append(_image_part(block))
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(message: Dict[str, Any], send_reasoning: bool) -> Optional[Dict[str, Any]]:
    """Text blocks joined into one string; thinking back into the field it came from
    (its signature) where the server takes it, so llama.cpp and DeepSeek see their own
    reasoning; tool calls with their arguments as a JSON string."""
    texts = [b["text"] for b in message["content"] if b["type"] == "text" and b["text"].strip()]
    calls = [b for b in message["content"] if b["type"] == "toolCall"]
    thinking = [b for b in message["content"] if b["type"] == "thinking" and b.get("thinking")]
    if not texts and not calls:
        return None
    wire: Dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    field = thinking[0].get("thinkingSignature") if thinking else None
    if send_reasoning and field in REASONING_FIELDS:
        wire[field] = "\n".join(b["thinking"] for b in thinking)
    if calls:
        wire["tool_calls"] = [_wire_call(call) for call in calls]
    return wire


def _wire_call(call: Dict[str, Any]) -> Dict[str, Any]:
    """A toolCall block as Chat Completions writes it: arguments as a JSON string, and
    extra_content (Gemini's thought signature) sent back as it came."""
    wire = {"id": call["id"], "type": "function",
            "function": {"name": call["name"], "arguments": _compact_json(call["arguments"])}}
    if "extraContent" in call:
        wire["extra_content"] = call["extraContent"]
    return wire


def _compact_json(value: Any) -> str:
    """Arguments go back as a JSON string, compact like JavaScript's JSON.stringify."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _tool_text(message: Dict[str, Any]) -> str:
    text = text_of(message)
    return text if text or not images_of(message["content"]) else "(see attached image)"


def _images_message(images: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": "Attached image(s) from tool result:"}]
            + [_image_part(block) for block in images]}


# --- The reply -------------------------------------------------------------------------------

# finish_reason -> stopReason. Failures end as errors that say what happened (D15);
# the transient ones (OpenRouter's, DeepSeek's) use the words the retry layer looks for.
# A reason in neither table (TGI's "eos_token", "eos"; whatever a server invents next) ends
# a complete answer: it is a normal stop ("toolUse" with tool calls), not a lost reply.
FINISH_REASONS = {"stop": "stop", "end": "stop", "length": "length",
                  "tool_calls": "toolUse", "function_call": "toolUse"}
FINISH_ERRORS = {
    "content_filter": "The provider's content filter withheld the response (finish_reason: content_filter)",
    "refusal": "The model declined to answer (finish_reason: refusal)",
    "error": "A server error interrupted the response (finish_reason: error)",
    "insufficient_system_resource": "The server is overloaded (finish_reason: insufficient_system_resource)",
}


def parse_chunks(chunks: Iterable[bytes], builder: MessageBuilder) -> Iterator[Dict[str, Any]]:
    """Decode a Chat Completions body (raw byte chunks) into stream events; returns the
    stop reason. Usable on bytes from memory (tests, the benchmark) as on a socket."""
    reader = _ChunkReader(builder)
    complete = False
    for event in iter_sse(chunks):
        data = event.data.strip()
        if complete or not data:
            # After [DONE] the rest is read but ignored: a body read to its end keeps
            # the connection alive for the next call. Empty data: a gateway keep-alive.
            continue
        if data.startswith("[DONE]"):
            complete = True
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ProviderError(f"the server sent a malformed chunk: {data[:200]}") from None
        yield from reader.apply(chunk)
    if reader.finish_reason is None and not complete:
        raise ProviderError(EARLY_END)
    return reader.stop_reason()


class _ChunkReader:
    """Applies one decoded chunk after another to the message being built."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.calls = _ToolCalls(builder)
        self.current: Optional[int] = None  # the open text or thinking block
        self.finish_reason: Optional[str] = None

    def apply(self, chunk: Any) -> Iterator[Dict[str, Any]]:
        if not isinstance(chunk, dict):
            return
        if chunk.get("error"):  # an in-band error after a 200 status
            raise ProviderError(error_text(chunk["error"]))
        self.builder.set_response_id(chunk.get("id"))
        choices = chunk.get("choices") or []  # [] or null on the usage chunk
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        # Usage: top level (standard), under x_groq (Groq), or in the choice (some
        # proxies); keep the last one seen, never overwrite it with a missing one.
        usage = chunk.get("usage") or (chunk.get("x_groq") or {}).get("usage") or choice.get("usage")
        if isinstance(usage, dict):
            self._record_usage(usage)
        # A reply that was not streamed has a message where a chunk has its delta.
        delta = choice.get("delta", choice.get("message")) or {}
        # Reasoning before text (a vLLM delta may hold both); one field only (OpenRouter mirrors them).
        field = next((f for f in REASONING_FIELDS if isinstance(delta.get(f), str) and delta[f]), None)
        if field:
            yield from self._stream_text("thinking", delta[field], field)
        if isinstance(delta.get("content"), str) and delta["content"]:
            yield from self._stream_text("text", delta["content"])
        for fragment in delta.get("tool_calls") or []:
            yield from self._end_text()
            yield from self.calls.feed(fragment)
        if choice.get("finish_reason"):
            self.finish_reason = choice["finish_reason"]

    def _stream_text(self, kind: str, delta: str, signature: Optional[str] = None):
        if self.current is not None and self.builder.message["content"][self.current]["type"] != kind:
            yield from self._end_text()
        if self.current is None:
            block = thinking_block("", signature) if kind == "thinking" else text_block("")
            self.current, event = self.builder.open(block)
            yield event
        yield self.builder.append(self.current, delta)

    def _end_text(self):
        if self.current is not None:
            yield self.builder.close(self.current)
            self.current = None

    def _record_usage(self, usage: Dict[str, Any]) -> None:
        """Decision 14. Example: prompt 100 (40 cached), completion 20 ->
        input 60, cacheRead 40, output 20, total 120."""
        details = usage.get("prompt_tokens_details")
        details = details if isinstance(details, dict) else {}
        cached = token_count(details.get("cached_tokens")) or \
            token_count(usage.get("prompt_cache_hit_tokens"))  # DeepSeek
        written = token_count(details.get("cache_write_tokens"))
        prompt = token_count(usage.get("prompt_tokens"))
        self.builder.set_usage(input=max(prompt - cached - written, 0),
                               output=token_count(usage.get("completion_tokens")),
                               cacheRead=cached, cacheWrite=written)

    def stop_reason(self) -> str:
        """Our stop reason for finish_reason: one that means failure raises; an unknown
        one is a stop. (A stop with tool calls becomes "toolUse" in builder.done, as
        Gemini says "stop" after calls.)"""
        reason = self.finish_reason or "stop"
        if reason in FINISH_ERRORS:
            raise ProviderError(FINISH_ERRORS[reason])
        return FINISH_REASONS.get(reason, "stop")


class _ToolCalls:
    """Decision 1: which call does a tool-call fragment belong to?

    Example (a server that reuses index 0 and repeats names, one fragment per line):
        {index 0, id "a", name "read", arguments '{"path":'}    -> new call a
        {index 0, arguments '"x"}'}                              -> continues a
        {index 0, id "b", name "ls", arguments "{}"}             -> new call b (other id)
        {index 0, id "z", arguments ""}                          -> continues b (no name)
    """

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.by_index: Dict[Any, int] = {}  # wire index -> content index of its latest call
        self.by_id: Dict[str, int] = {}
        self.last: Optional[int] = None

    def feed(self, fragment: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
        index = fragment.get("index")
        function = fragment.get("function") or {}
        call_id, name = fragment.get("id") or "", function.get("name") or ""
        slot = self._route(index, call_id, name)
        if slot is None:
            slot, event = self.builder.open(tool_call_block(call_id, name, {}))
            yield event
        block = self.builder.message["content"][slot]
        block["id"] = block["id"] or call_id  # id and name are set once, never concatenated
        block["name"] = block["name"] or name
        if index is not None:
            self.by_index[index] = slot
        if call_id:
            self.by_id.setdefault(call_id, slot)
        self.last = slot
        extra = fragment.get("extra_content")
        if isinstance(extra, dict) and extra:  # Gemini 3 wants its signature back
            block["extraContent"] = extra
        arguments = function.get("arguments")
        if isinstance(arguments, (dict, list)):  # some servers send the object itself
            arguments = json.dumps(arguments)
        yield self.builder.append(slot, arguments if isinstance(arguments, str) else "")

    def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
        """The content index of the call this fragment continues, or None for a new call."""
        slot = self.by_index.get(index) if index is not None else None
        if slot is None and call_id:
            slot = self.by_id.get(call_id)
        if slot is None and not name:
            slot = self.last  # a fragment without a name never starts a call
        if slot is not None and name and call_id:
            known_id = self.builder.message["content"][slot]["id"]
            if known_id and known_id != call_id:
                return None  # a named fragment with another id: the server reused the index
        return slot


# --- The entry point ---------------------------------------------------------------------------


def stream(model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see providers/__init__.py for the event protocol). Never raises."""
    return stream_http(model, context, options, build_request, parse_chunks)


def stream_bytes(model, chunks: Iterable[bytes], abort: Optional[threading.Event] = None):
    """The same events for a body already in memory (captures, tests, the benchmark)."""
    return stream_from_bytes(model, chunks, parse_chunks, abort)
