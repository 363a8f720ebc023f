"""The hardened call: the core's never-raise run() with the product's pieces.

The provider contract (core/provider.py) promises that a stream never raises, and the
core keeps it (core/assembly.py `run`): any exception becomes the final `error` event,
with stopReason "aborted" when the abort event is set and "error" otherwise, and
whatever arrived before the failure kept in the message. This module calls that run
with the product's builder (builder.py: partial-JSON repair, the verdict a Failure
carries kept beside the message, the API key redacted) and the product's transport,
`open_stream`, which both real protocols use:

    run(model, abort, open_body, parse)
        open_body() raises HTTPError("429 Rate limit reached")  -> error (no start event)
        parse() raises ProviderError("stream ended before ...") -> start, deltas..., error
        abort set while reading                                 -> start, ..., error
                                                                   (stopReason "aborted")

The transport sends once through http/transport.py (an abort ends even the wait for the
status line; every failure is judged by http/classify.py) and checks that what came
back can be read as a stream at all:

  * an HTML page with status 200 (the base URL leads to a web UI, a router's login, a
    captive portal) fails at once, marked as not to be retried: read as a stream it
    would "end early" and be retried for nothing;
  * a JSON document (a server that ignored `stream: true`, or one that answered a 200
    with {"error": ...}) is handed to the parser as the one SSE event it would have
    been.

Left out: the bytes on the wire (transport.py), whether to try again (classify.py), and the
wire formats (core/openai.py, anthropic.py).
"""

import json
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, Optional

from ..core import assembly
from ..core.assembly import Event, Parser
from ..http.classify import final_error
from ..http.transport import iter_body, post_stream
from .builder import MessageBuilder

HTML_PAGE = ("the server answered with an HTML page, not an event stream "
             "(check the base URL: {url})")


def run(model, abort: threading.Event, open_body: Callable[[], Iterable[bytes]],
        parse: Parser, secret: Optional[str] = None) -> Iterator[Event]:
    """The core's run() with the product's builder; `secret` (the API key) is redacted
    from the errorMessage."""
    return assembly.run(MessageBuilder(model, secret), abort, open_body, parse)


def open_stream(url: str, headers: Dict[str, str], body: Dict[str, Any],
                abort: threading.Event) -> Iterable[bytes]:
    """The hardened transport: POST once, check the reply is a stream, return its chunks."""
    response = post_stream(url, headers, body, abort)
    if _media_type(response) == "text/html":
        response.close()
        why = "the same URL will answer with the same page"
        raise final_error(HTML_PAGE.format(url=url), why)
    chunks = iter_body(response, abort)
    return _as_one_event(chunks) if _is_json(response) else chunks


def stream_http(model, context: Dict[str, Any], options, build_request, parse: Parser) -> Iterator[Event]:
    """One streamed call over HTTP: build_request(model, context, options) gives
    (url, headers, body); the reply's body goes through parse. Never raises."""
    def open_body() -> Iterable[bytes]:
        return open_stream(*build_request(model, context, options), options.abort)
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
