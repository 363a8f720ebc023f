"""One model call that never raises: the guard around sending and assembling.

The provider contract (providers/__init__.py) promises that a stream never raises.
This module keeps that promise for both real protocols. `run()` wraps one whole call,
sending the request, reading the body, assembling it (builder.py), and catches
everything: any exception becomes the final `error` event, with stopReason "aborted"
when the abort event is set and "error" otherwise, and whatever arrived before the
failure kept in the message. The verdict a Failure carries (http/classify.py decided it)
goes beside the message (verdict.py); any other exception is judged from its words.

    run(model, abort, open_body, parse)
        open_body() raises HTTPError("429 Rate limit reached")  -> error (no start event)
        parse() raises ProviderError("stream ended before ...") -> start, deltas..., error
        abort set while reading                                 -> start, ..., error
                                                                   (stopReason "aborted")

Before the body is handed to a parser, `stream_http` checks that what came back can be
read as a stream at all:

  * an HTML page with status 200 (the base URL leads to a web UI, a router's login, a
    captive portal) fails at once, marked as not to be retried: read as a stream it
    would "end early" and be retried for nothing;
  * a JSON document (a server that ignored `stream: true`, or one that answered a 200
    with {"error": ...}) is handed to the parser as the one SSE event it would have
    been.

The API key never appears in an errorMessage (a 401 body may quote it back, whole,
percent-encoded or in part): `redact` (files/redaction.py) replaces it.

Left out: the bytes on the wire (transport.py), whether to try again (classify.py), and the
wire formats (openai.py, anthropic.py).
"""

import json
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, Optional

from ..files.redaction import redact
from ..http.classify import final_error
from ..http.errors import Aborted, Failure
from ..http.transport import iter_body, post_stream
from .builder import Event, MessageBuilder, Parser, ProviderError

HTML_PAGE = ("the server answered with an HTML page, not an event stream "
             "(check the base URL: {url})")


def run(model, abort: threading.Event, open_body: Callable[[], Iterable[bytes]],
        parse: Parser, secret: Optional[str] = None) -> Iterator[Event]:
    """One model call that never raises. open_body() sends the request and returns the
    body's chunks (it raises errors.HTTPError or Aborted when there is no 2xx reply);
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
        verdict = exc.verdict if isinstance(exc, Failure) else None  # decided where raised
        yield builder.fail(redact(describe(exc), secret), abort.is_set(), verdict)
    finally:
        close = getattr(chunks, "close", None)  # a generator over the response: release it
        if close is not None:
            close()


def describe(exc: Exception) -> str:
    """One line for errorMessage. Our own errors are written for the reader already; an
    unexpected one (a bug, a shape no server should send) names its type."""
    if isinstance(exc, (ProviderError, Failure)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def stream_http(model, context: Dict[str, Any], options, build_request, parse: Parser) -> Iterator[Event]:
    """One streamed call over HTTP: build_request(model, context, options) gives
    (url, headers, body); the reply's body goes through parse. Never raises."""
    def open_body() -> Iterable[bytes]:
        url, headers, body = build_request(model, context, options)
        response = post_stream(url, headers, body, options.abort)
        if _media_type(response) == "text/html":
            response.close()
            why = "the same URL will answer with the same page"
            raise final_error(HTML_PAGE.format(url=url), why)
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
