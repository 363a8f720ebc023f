"""Anthropic Messages: Claude's own protocol.

One call is one POST to `{base_url}/v1/messages` (the base URL has no version path,
D16 in docs/decisions.md) with headers `x-api-key` and `anthropic-version`. The reply is
Server-Sent Events with a name per event, and the content arrives as numbered blocks
that are explicitly opened and closed:

    event: message_start        {"message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 5}}}
    event: content_block_start  {"index": 0, "content_block": {"type": "text", "text": ""}}
    event: content_block_delta  {"index": 0, "delta": {"type": "text_delta", "text": "Hi"}}
    event: content_block_stop   {"index": 0}
    event: content_block_start  {"index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "bash"}}
    event: content_block_delta  {"index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\\"command\\":"}}
    event: content_block_delta  {"index": 1, "delta": {"type": "input_json_delta", "partial_json": "\\"ls\\"}"}}
    event: content_block_stop   {"index": 1}
    event: message_delta        {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}}
    event: message_stop

becomes [text "Hi", toolCall toolu_1 bash {"command": "ls"}], stopReason "toolUse",
usage input 10, cacheRead 5, output 7, total 22.

Going out (`build_request`), what differs from Chat Completions:

  * the system prompt is a top-level list of blocks, not a message;
  * tool results are blocks of a *user* message, all results of one turn in one message;
  * thinking goes back with its signature, exactly as it came (the API checks it);
    thinking without a signature (an aborted stream) goes back as plain text;
  * prompt caching is explicit: `cache_control` marks the ends of the stable prefix,
    the system prompt, the last tool and the last user block (D17), so the next
    call reads all of that from the cache at a tenth of the price;
  * thinking has a token budget per level (THINKING_BUDGETS), which counts toward
    `max_tokens`, so `max_tokens` grows by the budget.

Coming back (`parse_events`): `signature_delta` replaces the signature; message_delta's
usage counts are cumulative and overwrite (only those present); `ping` and event types
we do not know are ignored, as Anthropic's versioning policy asks; `event: error` ends
the call as an error; a body that ends before a stop_reason was cut off (D5).
A server (a proxy) that ignores `stream: true` answers with the whole message as one
JSON document; guard.py hands it over as one event, and its content blocks are
played as if they had streamed, each opened with its whole content and closed.

Left out: OAuth tokens, beta features (interleaved thinking, 1h cache TTL), adaptive
thinking, server tools (web search) and citations.
"""

import json
import threading
from typing import Any, Dict, Iterable, Iterator, List, Optional

from ..core.assembly import clean_text
from ..core.messages import text_block, text_of, thinking_block, tool_call_block
from ..core.sse import iter_sse
from ..core.assembly import MessageBuilder, ProviderError
from .builder import error_text, max_output_tokens
from .guard import stream_from_bytes, stream_http
from .history import images_of, prepare_history

DEFAULT_VERSION = "2023-06-01"  # the long-standing value; override with compat.anthropicVersion
CACHE = {"type": "ephemeral"}
EARLY_END = "stream ended before the response was complete (no stop_reason)"
# Thinking tokens per level; they count toward max_tokens.
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384,
                    "xhigh": 32768, "max": 65536}
MIN_THINKING_BUDGET = 1024  # the API refuses less
MIN_ANSWER = 1024  # tokens kept for the answer after thinking

# stop_reason -> stopReason. pause_turn (a long server-tool turn paused) ends our turn;
# a refusal and an overflow end as errors that say so (D15). A reason in neither
# table (a proxy's "eos", one added after this was written) ends a complete answer: a
# normal stop, or "toolUse" when the reply holds tool calls.
STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop",
                "max_tokens": "length", "tool_use": "toolUse"}
STOP_ERRORS = {
    "refusal": "The model declined to answer (stop_reason: refusal)",
    "model_context_window_exceeded":
        "The conversation no longer fits the model's context window "
        "(stop_reason: model_context_window_exceeded)",
}


# --- The request ---------------------------------------------------------------------------


def build_request(model, context: Dict[str, Any], options):
    """(url, headers, body) for one streamed call."""
    max_tokens = max_output_tokens(model, options, context)
    body: Dict[str, Any] = {"model": model.id, "messages": convert_messages(model, context),
                            "stream": True}
    if context.get("systemPrompt"):
        body["system"] = [{"type": "text", "text": clean_text(context["systemPrompt"]),
                           "cache_control": CACHE}]
    tools = context.get("tools") or []
    if tools:
        body["tools"] = [{"name": t["name"], "description": t["description"],
                          "input_schema": t["parameters"]} for t in tools]
        body["tools"][-1]["cache_control"] = CACHE
    budget, max_tokens = _thinking(model, options.thinking, max_tokens)
    if budget:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif options.temperature is not None:  # the API refuses a temperature while thinking
        body["temperature"] = options.temperature
    body["max_tokens"] = max_tokens
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
               "anthropic-version": (model.compat or {}).get("anthropicVersion", DEFAULT_VERSION)}
    if options.api_key:
        headers["x-api-key"] = options.api_key
    headers.update(model.headers or {})
    return f"{model.base_url.rstrip('/')}/v1/messages", headers, body


def _thinking(model, level: str, max_tokens: int):
    """(thinking budget, max_tokens) for a level; budget 0 means no thinking. Thinking
    counts toward max_tokens, so max_tokens grows by the budget (up to the model's
    limit), and at least MIN_ANSWER tokens stay for the answer.

    Examples: high, max_tokens 32000, model limit 64000 -> (16384, 48384)
              high, max_tokens 8192, model limit 8192   -> (7168, 8192)
    """
    if not model.reasoning or level not in THINKING_BUDGETS:
        return 0, max_tokens
    total = min(max_tokens + THINKING_BUDGETS[level], model.max_tokens)
    budget = min(THINKING_BUDGETS[level], total - MIN_ANSWER)
    return (budget, total) if budget >= MIN_THINKING_BUDGET else (0, max_tokens)


def convert_messages(model, context: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Our messages -> Messages API turns (after history hygiene), cache mark included."""
    sees_images = "image" in model.input
    wire: List[Dict[str, Any]] = []
    merging = False  # the last turn in `wire` holds tool results: add the next one to it
    for message in prepare_history(context.get("messages", []), model, "anthropic"):
        role = message["role"]
        if role == "toolResult":
            if merging:
                wire[-1]["content"].append(_tool_result_block(message))
            else:
                wire.append({"role": "user", "content": [_tool_result_block(message)]})
                merging = True
            continue
        merging = False
        blocks = (_user_blocks(message["content"], sees_images) if role == "user"
                  else _assistant_blocks(message["content"]))
        if blocks:
            wire.append({"role": role, "content": blocks})
    _mark_last_user_block(wire)
    return wire


def _user_blocks(content: Any, sees_images: bool) -> List[Dict[str, Any]]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    blocks = []
    for block in content:
        if block.get("type") == "text" and block["text"].strip():
            blocks.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image" and sees_images:
            blocks.append(_image_block(block))
    return blocks


def _assistant_blocks(content: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    blocks = []
    for block in content:
        kind = block["type"]
        if kind == "text" and block["text"].strip():
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and block.get("redacted"):
            blocks.append({"type": "redacted_thinking", "data": block.get("thinkingSignature", "")})
        elif kind == "thinking" and block["thinking"].strip():
            if block.get("thinkingSignature"):
                blocks.append({"type": "thinking", "thinking": block["thinking"],
                               "signature": block["thinkingSignature"]})
            else:  # unsigned (the stream broke before the signature): plain text
                blocks.append({"type": "text", "text": block["thinking"]})
        elif kind == "toolCall":
            blocks.append({"type": "tool_use", "id": block["id"], "name": block["name"],
                           "input": block.get("arguments") or {}})
    return blocks


def _tool_result_block(message: Dict[str, Any]) -> Dict[str, Any]:
    """Text only -> a string; with images -> text and image blocks."""
    text, images = text_of(message), images_of(message["content"])
    if images:
        content: Any = [{"type": "text", "text": text or "(see attached image)"}]
        content += [_image_block(image) for image in images]
    else:
        content = text
    return {"type": "tool_result", "tool_use_id": message["toolCallId"], "content": content,
            "is_error": bool(message.get("isError"))}


def _image_block(block: Dict[str, Any]) -> Dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block["mimeType"],
                                        "data": block["data"]}}


def _mark_last_user_block(wire: List[Dict[str, Any]]) -> None:
    """cache_control on the last block of the last user message: everything up to
    there is the prefix the next call will share."""
    for turn in reversed(wire):
        if turn["role"] == "user":
            turn["content"][-1] = {**turn["content"][-1], "cache_control": CACHE}
            return


# --- The reply -------------------------------------------------------------------------------


def parse_events(chunks: Iterable[bytes], builder: MessageBuilder) -> Iterator[Dict[str, Any]]:
    """Decode a Messages body (raw byte chunks) into stream events; returns the stop reason."""
    reader = _EventReader(builder)
    for event in iter_sse(chunks):
        if reader.finished or not event.data.strip():
            # After message_stop the rest is read but ignored: a body read to its end
            # lets the connection be kept alive for the next call.
            continue
        try:
            data = json.loads(event.data)
        except ValueError:
            raise ProviderError(f"the server sent a malformed event: {event.data[:200]}") from None
        if not isinstance(data, dict):
            continue
        # The JSON's type equals the event name; keying on it also works through
        # proxies that drop the `event:` lines.
        yield from reader.apply(data.get("type") or event.event, data)
    if reader.stop_reason is None:
        raise ProviderError(EARLY_END)
    if reader.stop_reason in STOP_ERRORS:
        raise ProviderError(STOP_ERRORS[reader.stop_reason])
    # An unknown reason is a stop; builder.done makes a stop with tool calls "toolUse".
    return STOP_REASONS.get(reader.stop_reason, "stop")


class _EventReader:
    """Applies one event after another to the message being built."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.blocks: Dict[int, int] = {}  # Anthropic's block index -> our content index
        self.stop_reason: Optional[str] = None
        self.finished = False

    def apply(self, kind: str, data: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
        if kind == "message_start":
            self._record_usage((data.get("message") or {}).get("usage") or {})
            self.builder.set_response_id((data.get("message") or {}).get("id"))
        elif kind == "content_block_start":
            yield from self._start_block(data.get("index"), data.get("content_block") or {})
        elif kind == "content_block_delta":
            event = self._apply_delta(self.blocks.get(data.get("index")), data.get("delta") or {})
            if event is not None:
                yield event
        elif kind == "content_block_stop":
            index = self.blocks.pop(data.get("index"), None)
            if index is not None:
                yield self.builder.close(index)
        elif kind == "message_delta":
            self.stop_reason = (data.get("delta") or {}).get("stop_reason") or self.stop_reason
            self._record_usage(data.get("usage") or {})
        elif kind == "message_stop":
            self.finished = True
        elif kind == "error":
            raise ProviderError(error_text(data.get("error") or data))
        elif data.get("type") == "message":  # the whole reply at once: not streamed
            yield from self._whole_message(data)
        # ping and event types added after this was written: nothing to do

    def _whole_message(self, message: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
        """A reply that came in one piece, as the events its stream would have had.
        Recognised by the JSON's type, not by `kind`: SSE names every event without an
        `event:` line "message"."""
        self._record_usage(message.get("usage") or {})
        for index, block in enumerate(message.get("content") or []):
            yield from self._start_block(index, block)
            if index in self.blocks:
                yield self.builder.close(self.blocks.pop(index))
        self.stop_reason = message.get("stop_reason")
        self.finished = True

    def _start_block(self, index: Any, block: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
        kind = block.get("type")
        if kind == "text":
            position, event = self.builder.open(text_block(""))
        elif kind == "thinking":
            position, event = self.builder.open(thinking_block("", block.get("signature") or ""))
        elif kind == "redacted_thinking":  # complete in its start event: no deltas follow
            position, event = self.builder.open(thinking_block(
                "[Reasoning redacted]", block.get("data", ""), redacted=True))
        elif kind == "tool_use":
            position, event = self.builder.open(tool_call_block(block.get("id", ""),
                                                                block.get("name", ""), {}))
        else:
            return  # server tools, citations and future kinds are not ours to keep
        self.blocks[index] = position
        yield event
        initial = block.get("text") or block.get("thinking") or block.get("input")
        if initial:  # normally empty; some proxies send a whole block at once
            yield self.builder.append(position, initial if isinstance(initial, str) else json.dumps(initial))

    def _apply_delta(self, position: Optional[int], delta: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if position is None or not self.builder.is_open(position):
            return None  # a delta for a block we do not keep
        kind = delta.get("type")
        if kind == "signature_delta":  # replaces: the signature is one opaque value
            self.builder.message["content"][position]["thinkingSignature"] = delta.get("signature", "")
            return None
        field = {"text_delta": "text", "thinking_delta": "thinking",
                 "input_json_delta": "partial_json"}.get(kind)
        if field is None:
            return None  # citations_delta and future delta kinds
        return self.builder.append(position, delta.get(field) or "")

    def _record_usage(self, usage: Dict[str, Any]) -> None:
        """Counts are cumulative: a field present overwrites, a missing or null one
        keeps what message_start said (set_counts makes an odd number 0)."""
        if not isinstance(usage, dict):
            return
        self.builder.set_usage(input=usage.get("input_tokens"), output=usage.get("output_tokens"),
                               cacheRead=usage.get("cache_read_input_tokens"),
                               cacheWrite=usage.get("cache_creation_input_tokens"))


# --- The entry point ---------------------------------------------------------------------------


def stream(model, context: Dict[str, Any], options) -> Iterator[Dict[str, Any]]:
    """Stream one reply (see providers/__init__.py for the event protocol). Never raises."""
    return stream_http(model, context, options, build_request, parse_events)


def stream_bytes(model, chunks: Iterable[bytes],
                 abort: Optional[threading.Event] = None) -> Iterator[Dict[str, Any]]:
    """The same events for a body already in memory (captures, tests, the benchmark)."""
    return stream_from_bytes(model, chunks, parse_events, abort)
