"""Assembling a streamed reply: what both real providers share on the way back.

A server streams a reply as many small pieces: a few characters of text, a fragment of
a tool call's JSON arguments, a usage count. `MessageBuilder` collects them into one
assistant message and announces each step in pi's event protocol
(providers/__init__.py):

    builder.start()                       -> start
    i, e = builder.open("text")           -> text_start      (e is the event)
    builder.append(i, "Hel")              -> text_delta "Hel"
    builder.append(i, "lo")               -> text_delta "lo"
    builder.close(i)                      -> text_end        (content "Hello")
    builder.done("stop")                  -> done

`run()` wraps one whole call (send the request, read the body, assemble) so that the
stream **never raises**: any exception becomes the final `error` event, with stopReason
"aborted" when the abort event is set and "error" otherwise, and whatever arrived
before the failure kept in the message. The API key never appears in an errorMessage
(a 401 body may quote it back): `redact` replaces it.

What comes from the server is cleaned where it enters: a lone UTF-16 surrogate (a
JSON "\\ud83d" escape without its partner) is removed from every delta, from the
final arguments and from the errorMessage, since it cannot be printed or saved
(messages.clean_text). A server that ignores `stream: true` and answers with one JSON
document gets it handed to the parser as the one SSE event it would have been; one
that answers with an HTML page (a web UI, a captive portal) fails at once, marked as
not to be retried.

Linear time (spec decision 2). A block's text is kept as a list of pieces and joined
once, when the block closes: appending to a string stored in a dict copies the whole
string every time, which turns a 1 MB tool call sent in 4-byte pieces into ~125 GB of
copying. So during streaming the deltas are the live view; the partial message's text
is complete at each `*_end` (and when a stream fails). Tool-call arguments are JSON
fragments that mean nothing on their own, so for live display they are parsed into the
partial message now and then: each time their length has doubled, which costs at most
twice the final size in total, the same trick a growing Python list uses. The final
arguments are parsed once, strictly, when the block closes. Text that is not a valid
JSON object then (cut off, garbled) gives no arguments at all, `{}`, rather than the
repaired guess shown while streaming: a cut-off `rm -rf /tmp/x` must not run. The text
is kept in the call's `invalidArguments`, and the loop answers the call with an error
that quotes it, so the model learns what went wrong and sends the call again.

Left out: the wire formats (openai.py, anthropic.py read the bytes and call this).
"""

import json
import threading
import uuid
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from ..jsonpartial import parse_arguments, parse_partial
from ..messages import (INVALID_ARGUMENTS, assistant_message, clean_text, clean_value,
                        compute_cost, set_counts)
from ..retry import Aborted, Failure, iter_body, not_retried, post_stream

Event = Dict[str, Any]
DEFAULT_MAX_TOKENS = 32_000  # output cap when the caller names none (and the model allows more)
# Block type -> the prefix of its events (text_start, thinking_delta, toolcall_end...).
EVENT_PREFIX = {"text": "text", "thinking": "thinking", "toolCall": "toolcall"}
REDACTED = "[redacted]"
MAX_INVALID_KEPT = 2000  # characters of invalid tool-call arguments kept to quote back
# A "key" this short is a placeholder (local servers take any), not a secret; replacing
# it everywhere would garble the message instead.
MIN_SECRET = 4
# A 200 with a web page: the base URL leads to a web UI, a router's login or a captive
# portal. Read as a stream it would "end early" and be retried for nothing: it is final.
HTML_PAGE = ("the server answered with an HTML page, not an event stream "
             "(check the base URL: {url})")


class ProviderError(Exception):
    """The server's reply itself says the call failed (an in-band error, a refusal, a
    stream cut short). Its text becomes the message's errorMessage."""


class _OpenBlock:
    """Bookkeeping for a block still streaming: its pieces and, for a tool call, when
    the partial arguments were last parsed."""

    def __init__(self) -> None:
        self.pieces: List[str] = []
        self.length = 0
        self.parsed_at = 0


class MessageBuilder:
    """Builds one assistant message from stream pieces and returns pi's events."""

    def __init__(self, model) -> None:
        self.model = model
        self.message = assistant_message(model.api, model.provider, model.id)
        self._open: Dict[int, _OpenBlock] = {}  # content index -> a block still streaming

    def start(self) -> Event:
        return {"type": "start", "partial": self.message}

    def open(self, kind: str, **fields: Any) -> Tuple[int, Event]:
        """Add a block ("text", "thinking" or "toolCall" with id and name) and return its
        content index with the *_start event."""
        block: Dict[str, Any] = {"type": kind}
        if kind == "toolCall":
            block.update(id=fields.pop("id", ""), name=fields.pop("name", ""), arguments={})
        else:
            block[kind] = ""
        block.update(fields)
        self.message["content"].append(block)
        index = len(self.message["content"]) - 1
        self._open[index] = _OpenBlock()
        return index, self._event("start", index)

    def is_open(self, index: int) -> bool:
        return index in self._open

    def append(self, index: int, delta: str) -> Event:
        """Add streamed text (or a JSON fragment of a tool call's arguments)."""
        delta = clean_text(delta)
        state = self._open[index]
        state.pieces.append(delta)
        state.length += len(delta)
        block = self.message["content"][index]
        if block["type"] == "toolCall" and state.length >= 2 * state.parsed_at:
            self._show_partial_arguments(block, state)
        return {**self._event("delta", index), "delta": delta}

    def _show_partial_arguments(self, block: Dict[str, Any], state: _OpenBlock) -> None:
        joined = "".join(state.pieces)
        state.pieces, state.parsed_at = [joined], max(state.length, 1)
        shown = parse_partial(joined)
        if isinstance(shown, dict):
            block["arguments"] = clean_value(shown)

    def close(self, index: int) -> Event:
        """Finish a block: join its pieces (parse a tool call's arguments) -> *_end."""
        self._materialize(index)
        block = self.message["content"][index]
        if block["type"] == "toolCall":
            return {**self._event("end", index), "toolCall": block}
        return {**self._event("end", index), "content": block[block["type"]]}

    def close_all(self) -> List[Event]:
        return [self.close(index) for index in sorted(self._open)]

    def _materialize(self, index: int) -> None:
        state = self._open.pop(index)
        block = self.message["content"][index]
        joined = "".join(state.pieces)
        if block["type"] == "toolCall":
            arguments = parse_arguments(joined)
            # Invalid JSON (None) is never guessed at (module docstring); a model may
            # also send a list or a bare value, and a tool takes an object. The text is
            # kept so the loop can tell the model what was wrong with it.
            block["arguments"] = clean_value(arguments) if isinstance(arguments, dict) else {}
            if not isinstance(arguments, dict):
                block[INVALID_ARGUMENTS] = clean_text(joined[:MAX_INVALID_KEPT])
            block["name"] = clean_text(block["name"])
            # Some servers send "" or no id at all (Gemini, local servers).
            block["id"] = clean_text(block["id"]) or f"call_{uuid.uuid4().hex[:24]}"
        else:
            block[block["type"]] += joined

    def set_usage(self, **counts: Optional[int]) -> None:
        """Overwrite the usage counts that are given and not None; recompute the total
        and the cost. Example: set_usage(input=10, cacheRead=5) keeps output as it was."""
        compute_cost(set_counts(self.message["usage"], counts), self.model.cost)

    def done(self, stop_reason: str) -> Event:
        self.message["stopReason"] = stop_reason
        return {"type": "done", "reason": stop_reason, "message": self.message}

    def fail(self, error_message: str, aborted: bool) -> Event:
        """The final event of a failed call; blocks still open keep what they got."""
        for index in list(self._open):
            self._materialize(index)
        reason = "aborted" if aborted else "error"
        self.message["stopReason"] = reason
        self.message["errorMessage"] = "Request was aborted" if aborted else clean_text(error_message)
        return {"type": "error", "reason": reason, "error": self.message}

    def _event(self, phase: str, index: int) -> Event:
        prefix = EVENT_PREFIX[self.message["content"][index]["type"]]
        return {"type": f"{prefix}_{phase}", "contentIndex": index, "partial": self.message}


# A parser reads the body's chunks, yields events, and returns the stop reason.
Parser = Callable[[Iterable[bytes], MessageBuilder], Iterator[Event]]


def stream_http(model, context: Dict[str, Any], options, build_request, parse: Parser) -> Iterator[Event]:
    """One streamed call over HTTP: build_request(model, context, options) gives
    (url, headers, body); the reply's body goes through parse. Never raises."""
    def open_body() -> Iterable[bytes]:
        url, headers, body = build_request(model, context, options)
        response = post_stream(url, headers, body, options.abort, on_wait=lambda error, delay:
                               options.on_http_retry(redact(error.message, options.api_key), delay))
        if _media_type(response) == "text/html":
            response.close()
            why = "the same URL will answer with the same page"
            raise Failure(not_retried(HTML_PAGE.format(url=url), why))
        chunks = iter_body(response, options.abort)
        return _as_one_event(chunks) if _is_json(response) else chunks
    return run(model, options.abort, open_body, parse, secret=options.api_key)


def _media_type(response) -> str:
    """The content type without its parameters: "text/HTML; charset=utf-8" -> "text/html"."""
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def _is_json(response) -> bool:
    """Example: "application/json; charset=utf-8" -> True; "text/event-stream" -> False"""
    media = _media_type(response)
    return media == "application/json" or media.endswith("+json")


def _as_one_event(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A whole JSON body (from a server that ignored `stream: true`, or one that
    answered a 200 with {"error": ...}) as the one SSE event the parsers read:
    `data: <the JSON on one line>`."""
    body = b"".join(chunks)
    try:
        document = json.loads(body)
    except ValueError:  # not JSON after all (an event stream mislabelled): as it came
        yield body
        return
    yield b"data: " + json.dumps(document).encode("ascii") + b"\n\n"


def stream_from_bytes(model, chunks: Iterable[bytes], parse: Parser,
                      abort: Optional[threading.Event] = None) -> Iterator[Event]:
    """The same events for a body already in memory (captures, tests, the benchmark)."""
    return run(model, abort or threading.Event(), lambda: chunks, parse)


def run(model, abort: threading.Event, open_body: Callable[[], Iterable[bytes]],
        parse: Parser, secret: Optional[str] = None) -> Iterator[Event]:
    """One model call that never raises. open_body() sends the request and returns the
    body's chunks (it raises retry.HTTPError or Aborted when there is no 2xx reply);
    parse() turns them into events. `start` is sent only once the server accepted the
    request, so an HTTP error is a lone `error` event. `secret` (the API key) is
    redacted from the errorMessage."""
    builder = MessageBuilder(model)
    chunks = None
    try:
        chunks = open_body()
        yield builder.start()
        stop_reason = yield from parse(chunks, builder)
        if abort.is_set():
            raise Aborted()
        yield from builder.close_all()
        yield builder.done(stop_reason)
    except Exception as exc:  # the never-raise contract: every failure is data
        yield builder.fail(redact(describe(exc), secret), abort.is_set())
    finally:
        close = getattr(chunks, "close", None)  # a generator over the response: release it
        if close is not None:
            close()


def max_output_tokens(model, options) -> int:
    """The caller's cap, else the model's limit up to DEFAULT_MAX_TOKENS."""
    return options.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS)


def error_text(error: Any) -> str:
    """An error object sent inside a stream, as one line. Both APIs use the same shape.

    Examples: {"type": "overloaded_error", "message": "Overloaded"} -> "Overloaded (overloaded_error)"
              "plain text" -> "plain text"
    """
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error))
        kind = error.get("type") or error.get("code")
        return f"{message} ({kind})" if kind and str(kind) not in message else message
    return str(error)


def describe(exc: Exception) -> str:
    """One line for errorMessage. Our own errors are written for the reader already; an
    unexpected one (a bug, a shape no server should send) names its type."""
    if isinstance(exc, (ProviderError, Failure)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def redact(text: str, secret: Optional[str]) -> str:
    """The text with the secret replaced by [redacted], in each form an error may quote
    it: as sent; stripped (a server strips a stray space before echoing the key); and
    escaped, as repr() or JSON write it (requests' invalid-header error quotes the
    header's repr, so a key ending in "\\r" appears with a backslash and an "r").

    Example: redact("401 Incorrect API key: sk-abc123", "sk-abc123")
             -> "401 Incorrect API key: [redacted]"
    """
    forms = {secret, secret.strip(), repr(secret)[1:-1], json.dumps(secret)[1:-1]} if secret else set()
    for form in sorted(forms, key=len, reverse=True):  # an escaped form holds the plain one
        if len(form) >= MIN_SECRET:
            text = text.replace(form, REDACTED)
    return text

