"""OpenAI Chat Completions: the protocol of OpenAI and of nearly every other server.

Ollama, llama.cpp, vLLM, LM Studio, OpenRouter, DeepSeek, Groq, Mistral all speak it.
One call is one POST to `{base_url}/chat/completions` with `stream: true`; the
reply is Server-Sent Events (sse.py), one JSON chunk per event, ending with `data: [DONE]`:

    data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me"}}]}
    data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",
           "type":"function","function":{"name":"read","arguments":"{\\"pa"}}]}}]}
    data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,
           "function":{"arguments":"th\\":\\"a\\"}"}}]}}]}
    data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}
    data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,...}}
    data: [DONE]

becomes [text "Let me", toolCall c1 read {"path": "a"}], stopReason "toolUse".

Tool-call fragments are matched to calls by `index`, then by `id` (docs/decisions.md D1);
a body that ends before any `finish_reason` and without `[DONE]` was cut off (D5). Seams
(D29), each with a plain default: `transport`, `request` (with `compat`, `prepare_history`
and `convert`), `builder`, `parse` (with `finish` and `adapt`).

Left out: images, reasoning sent back, failing finish reasons, server quirks, an abort
during a silent wait (miniagent/providers/openai.py); n > 1 choices, `tool_choice`.
"""

import json
import threading
from typing import Any, Dict, Iterable, Iterator, Optional

import requests

from .assembly import MessageBuilder, ProviderError, max_output_tokens, run
from .assembly import clean_text, token_count
from .messages import text_block, text_of, thinking_block, tool_call_block
from .sse import iter_sse

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
TIMEOUT = (10, 600)  # seconds to connect, and to wait for each piece (a model may think long)
# What a standard server accepts; the product's compat table (providers/compat.py) adds more.
STANDARD_COMPAT: Dict[str, Any] = {
    "maxTokensField": "max_tokens",  # OpenAI's reasoning models want max_completion_tokens
    "supportsUsageInStreaming": True,  # ask for the usage chunk (stream_options.include_usage)
}

# --- The request ---------------------------------------------------------------------------


def build_request(model, context: Dict[str, Any], options, compat: Optional[Dict[str, Any]] = None,
                  prepare_history=None, convert=None):
    """(url, headers, body) for one streamed call. Seams: `prepare_history(messages, model)`
    cleans the history first; `convert(message)` replaces convert_message."""
    compat = compat or STANDARD_COMPAT
    messages = context.get("messages", [])
    if prepare_history is not None:
        messages = prepare_history(messages, model)
    system = context.get("systemPrompt")
    wire = [{"role": "system", "content": clean_text(system)}] if system else []
    wire += [converted for converted in map(convert or convert_message, messages) if converted]
    body: Dict[str, Any] = {"model": model.id, "stream": True, "messages": wire}
    if compat["supportsUsageInStreaming"]:
        body["stream_options"] = {"include_usage": True}
    body[compat["maxTokensField"]] = max_output_tokens(model, options)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    tools = context.get("tools") or []
    if tools:  # some servers reject an empty list, so none means no field at all
        body["tools"] = [{"type": "function", "function": {
            "name": t["name"], "description": t["description"], "parameters": t["parameters"]}}
            for t in tools]
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if options.api_key:  # local servers need none; never send "Bearer None"
        headers["Authorization"] = f"Bearer {options.api_key}"
    headers.update(model.headers or {})
    return f"{model.base_url.rstrip('/')}/chat/completions", headers, body


def convert_message(message: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """One of our messages -> one Chat Completions message, text only (None: nothing to send)."""
    if message["role"] == "assistant":
        return _assistant_message(message)
    if message["role"] == "toolResult":
        return {"role": "tool", "tool_call_id": message["toolCallId"], "content": text_of(message)}
    if isinstance(message["content"], str):
        return {"role": "user", "content": message["content"]}
    parts = [{"type": "text", "text": b["text"]} for b in message["content"] if b.get("type") == "text"]
    return {"role": "user", "content": parts} if parts else None


def _assistant_message(message: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """Text blocks joined into one string; tool calls with their arguments as a JSON
    string, compact like JavaScript's JSON.stringify. Thinking is not sent back."""
    texts = [b["text"] for b in message["content"] if b["type"] == "text" and b["text"].strip()]
    calls = [b for b in message["content"] if b["type"] == "toolCall"]
    if not texts and not calls:
        return None
    wire: Dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    if calls:
        wire["tool_calls"] = [{"id": call["id"], "type": "function", "function": {
            "name": call["name"],
            "arguments": json.dumps(call["arguments"], ensure_ascii=False, separators=(",", ":"))}}
            for call in calls]
    return wire


# --- The reply -------------------------------------------------------------------------------

# finish_reason -> stopReason; one not listed (TGI's "eos_token"...) ends a complete answer.
FINISH_REASONS = {"stop": "stop", "length": "length", "tool_calls": "toolUse"}


def stop_reason(finish_reason: Optional[str]) -> str:
    """Our stop reason for a finish_reason (None when the body ended without one)."""
    return FINISH_REASONS.get(finish_reason or "stop", "stop")


def parse_chunks(chunks: Iterable[bytes], builder: MessageBuilder, finish=stop_reason,
                 adapt=None) -> Iterator[Dict[str, Any]]:
    """Decode a Chat Completions body (raw byte chunks) into stream events; returns
    finish(finish_reason), the stop reason. Seams: `finish`, and `adapt(chunk)`, which
    may rewrite a server's odd chunk into the standard shape first (plain: none)."""
    reader = _ChunkReader(builder)
    complete = False
    for event in iter_sse(chunks):
        data = event.data.strip()
        if complete or not data:
            # After [DONE] the rest is read (keeping the connection alive) but ignored;
            # empty data is a keep-alive.
            continue
        if data.startswith("[DONE]"):
            complete = True
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ProviderError(f"the server sent a malformed chunk: {data[:200]}") from None
        yield from reader.apply(adapt(chunk) if adapt else chunk)
    if reader.finish_reason is None and not complete:
        raise ProviderError("stream ended before the response was complete (no finish_reason)")
    return finish(reader.finish_reason)


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
        if chunk.get("error"):  # an in-band error after a 200 status, as the server wrote it
            raise ProviderError(json.dumps(chunk["error"]))
        self.builder.set_response_id(chunk.get("id"))
        choices = chunk.get("choices") or []  # [] or null on the usage chunk
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        if isinstance(chunk.get("usage"), dict):
            self._record_usage(chunk["usage"])
        delta = choice.get("delta") or {}
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
        cached = token_count(details.get("cached_tokens"))
        written = token_count(details.get("cache_write_tokens"))
        prompt = token_count(usage.get("prompt_tokens"))
        self.builder.set_usage(input=max(prompt - cached - written, 0),
                               output=token_count(usage.get("completion_tokens")),
                               cacheRead=cached, cacheWrite=written)


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


# --- The transport and the entry point ---------------------------------------------------------


def post(url: str, headers: Dict[str, str], body: Dict[str, Any],
         abort: threading.Event) -> Iterator[bytes]:
    """The plain transport: POST once, return the body's chunks; no 2xx answer raises a
    ProviderError of one line."""
    try:
        response = requests.post(url, headers=headers, json=body, stream=True, timeout=TIMEOUT)
    except requests.RequestException as exc:
        raise ProviderError(f"Connection error: could not reach {url} ({type(exc).__name__})") from None
    if not 200 <= response.status_code < 300:
        text = " ".join(response.raw.read(2000, decode_content=True).decode("utf-8", "replace").split())
        response.close()
        raise ProviderError(f"{response.status_code} {text or response.reason}")
    return read_body(response, abort)


def read_body(response, abort: threading.Event) -> Iterator[bytes]:
    """The body's chunks as they arrive. An abort takes effect at the next chunk (the
    product's transport also ends a read blocked on a silent server: http/transport.py)."""
    try:
        for chunk in response.iter_content(chunk_size=None):
            if abort.is_set():
                raise ProviderError("aborted")
            yield chunk
    except (OSError, requests.RequestException) as exc:
        raise ProviderError(f"connection lost while streaming ({type(exc).__name__})") from None
    finally:
        response.close()


def stream(model, context: Dict[str, Any], options, *, transport=post, request=build_request,
           builder: Optional[MessageBuilder] = None, parse=parse_chunks) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see provider.py for the event protocol). Never raises."""
    def open_body() -> Iterable[bytes]:
        return transport(*request(model, context, options), options.abort)
    return run(builder or MessageBuilder(model), options.abort, open_body, parse)
