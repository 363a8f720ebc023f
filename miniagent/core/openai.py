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

Tool-call fragments are matched to calls by `index`, then by `id` (docs/decisions.md D1:
servers reuse index 0, repeat or renew ids); reasoning (`reasoning_content`, `reasoning`)
becomes a thinking block signed with its field, which carries it back next turn; a body
that ends before any `finish_reason` and without `[DONE]` was cut off (D5).

Seams (D29), each with a plain default the product replaces: `transport` (plain: `post`),
`request` (the product extends `build_request`), `compat` (flags as data, plain
`STANDARD_COMPAT`), `prepare_history` (plain: the messages as they are), `builder`.

Left out: n > 1 choices, logprobs, `tool_choice`, the Responses API; the product's
hardening (miniagent/providers/openai.py).
"""

import json
import socket
import threading
from typing import Any, Dict, Iterable, Iterator, List, Optional

import requests

from .assembly import MessageBuilder, ProviderError, error_text, max_output_tokens, run
from .messages import clean_text, text_block, text_of, thinking_block, token_count, tool_call_block
from .sse import iter_sse

EARLY_END = "stream ended before the response was complete (no finish_reason)"
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
TIMEOUT = (10, 600)  # seconds to connect, and to wait for each piece (a model may think long)
# What a standard server accepts; the product's compat table (providers/compat.py) adds
# its quirks and overrides these per server.
STANDARD_COMPAT: Dict[str, Any] = {
    # OpenAI renamed max_tokens to max_completion_tokens (and its reasoning models
    # refuse the old name); most compatible servers know only max_tokens.
    "maxTokensField": "max_tokens",
    "supportsUsageInStreaming": True,  # ask for the usage chunk (stream_options.include_usage)
    # Send our own reasoning back in its field (llama.cpp, DeepSeek need it; Groq 400s on it).
    "supportsReasoningReplay": True,
}

# --- The request ---------------------------------------------------------------------------


def build_request(model, context: Dict[str, Any], options, compat: Optional[Dict[str, Any]] = None,
                  prepare_history=None):
    """(url, headers, body) for one streamed call."""
    compat = compat or STANDARD_COMPAT
    messages = context.get("messages", [])
    if prepare_history is not None:
        messages = prepare_history(messages, model)
    body: Dict[str, Any] = {"model": model.id, "stream": True,
                            "messages": convert_messages(model, compat, context.get("systemPrompt"), messages)}
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


def convert_messages(model, compat: Dict[str, Any], system_prompt: Optional[str],
                     messages: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Our messages -> Chat Completions messages."""
    wire: List[Dict[str, Any]] = []
    if system_prompt:
        wire.append({"role": "system", "content": clean_text(system_prompt)})
    sees_images = "image" in model.input
    waiting_images: List[Dict[str, Any]] = []  # images of the tool results just sent
    for message in messages:
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


def images_of(content: Any) -> List[Dict[str, Any]]:
    """The image blocks of a content list (none in a bare string)."""
    if isinstance(content, str):
        return []
    return [block for block in content if block.get("type") == "image"]


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
    # Compact, like JavaScript's JSON.stringify.
    arguments = json.dumps(call["arguments"], ensure_ascii=False, separators=(",", ":"))
    wire = {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": arguments}}
    if "extraContent" in call:
        wire["extra_content"] = call["extraContent"]
    return wire


def _tool_text(message: Dict[str, Any]) -> str:
    text = text_of(message)
    return text if text or not images_of(message["content"]) else "(see attached image)"


def _images_message(images: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": "Attached image(s) from tool result:"}]
            + [_image_part(block) for block in images]}


# finish_reason -> stopReason. Failures end as errors that say what happened (D15). A
# reason in neither table (TGI's "eos_token"...) ends a complete answer: a normal stop.
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
        # Usage: top level, under x_groq (Groq), or in the choice (some proxies).
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
        """Our stop reason for finish_reason: one that means failure raises."""
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


# --- The transport and the entry point ---------------------------------------------------------


def post(url: str, headers: Dict[str, str], body: Dict[str, Any],
         abort: threading.Event) -> Iterator[bytes]:
    """The plain transport: POST once, return the body's chunks as they arrive; no 2xx
    answer raises a ProviderError of one line. An abort takes effect once the status
    line is in (the product's transport also ends the wait for it)."""
    if abort.is_set():
        raise ProviderError("aborted")
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
    """The body's chunks. An abort must end a read blocked on a silent server, which
    closing the response cannot do: a watcher thread shuts the socket down, and the
    blocked read returns at once."""
    finished = threading.Event()
    threading.Thread(target=_shut_down_on_abort, args=(response, abort, finished), daemon=True).start()
    try:
        for chunk in response.iter_content(chunk_size=None):
            if abort.is_set():
                raise ProviderError("aborted")
            yield chunk
    except (OSError, requests.RequestException) as exc:
        raise ProviderError(f"connection lost while streaming ({type(exc).__name__})") from None
    finally:
        finished.set()
        response.close()


def _shut_down_on_abort(response, abort: threading.Event, finished: threading.Event) -> None:
    while not finished.is_set():
        if abort.wait(0.05):  # it looks at `finished` between waits
            sock = getattr(getattr(response.raw, "connection", None), "sock", None)
            if sock is not None and not finished.is_set():
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed by the other side
            return


def stream(model, context: Dict[str, Any], options, *, transport=post, request=build_request,
           builder: Optional[MessageBuilder] = None) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see provider.py for the event protocol). Never raises."""
    def open_body() -> Iterable[bytes]:
        return transport(*request(model, context, options), options.abort)
    return run(builder or MessageBuilder(model), options.abort, open_body, parse_chunks)
