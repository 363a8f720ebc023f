"""An answer that arrives as an event stream: read as it comes, resumed when it is cut.

When a streamable HTTP server answers a POST with `text/event-stream` (see http.py),
each Server-Sent Event carries one JSON-RPC message: progress, a request of the
server's own, and at last the answer to our request. Such a stream can be cut before
the answer: a proxy drops an idle connection, or the server ends the stream on
purpose and expects us to come back. MCP's rule for coming back is SSE's own: every
event may carry an `id`, and a GET with `Last-Event-ID: <the last id we got>` asks the
server to replay what followed. A server that wants resumption sends a "priming"
event first, an id with empty data, so there is an id before the first message:

    id: 7            <- priming: nothing to deliver, but now we can resume from 7
    retry: 500       <- "wait 500 ms before you come back" (we wait at most 2 s)
    data:

    id: 8
    data: {"jsonrpc": "2.0", "method": "notifications/progress", ...}
                     <- cut here: GET with Last-Event-ID: 8, and read on from there

A ResponseStream follows one such answer on a thread of its own: it hands on each
message, resumes a stream that ended unanswered (3 attempts), and when it cannot (no
id, the server refuses, the attempts run out) it delivers an error answer in place of
the missing one, so whoever waits for the request stops waiting at once instead of at
its timeout.

Everything the server sends is bounded: an event (or a JSON body) over 16 MB is
TooLarge, and text that is not a JSON-RPC message is a ValueError with an excerpt.
"""

import json
import threading
from typing import Callable, Iterator, List, Optional

import requests

from ..http.errors import Aborted
from ..core.sse import SSEDecoder, SSEEvent
from ..http.transport import StreamError, iter_body

MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # one JSON body or one SSE event
RESUME_ATTEMPTS = 3
MAX_RETRY_DELAY = 2.0  # seconds: a server's `retry:` field is honoured up to this
STREAM_ENDED = "the server's stream ended before it answered"


class TooLarge(Exception):
    """A body or an event passed MAX_MESSAGE_BYTES."""


class ResponseStream:
    """The event stream answering one POST, followed until it has answered.

    deliver(message) hands a message on; resume(last_id, stop) opens the stream again
    after that event id (a response, or None when the server refuses); fail(reason)
    breaks the whole transport (an event over 16 MB).
    """

    def __init__(self, request_id, deliver: Callable[[dict], None],
                 resume: Callable[[str, threading.Event], Optional[requests.Response]],
                 fail: Callable[[str], None]):
        self.request_id = request_id  # None when the POST was not a request
        self.stop = threading.Event()  # set by close(), or when we cancel the request
        self._deliver, self._resume, self._fail = deliver, resume, fail
        self._last_id = ""  # the last event id: where a resumed stream starts
        self._retry_ms: Optional[int] = None  # the server's reconnection delay
        self._done = False  # the answer (or an error in its place) was delivered

    def follow(self, response: Optional[requests.Response]) -> None:
        """Thread: read the stream; resume it while it ends unanswered; if the answer
        never comes, deliver an error answer in its place."""
        for attempt in range(RESUME_ATTEMPTS + 1):
            if response is not None:
                self._read(response)
            if self._done or self.stop.is_set() or self.request_id is None:
                return
            if not self._last_id or attempt == RESUME_ATTEMPTS:
                break
            self.stop.wait(min((self._retry_ms or 0) / 1000, MAX_RETRY_DELAY))
            response = self._resume(self._last_id, self.stop)
        if not self.stop.is_set():
            self._answer_with_error(STREAM_ENDED)

    def _read(self, response: requests.Response) -> None:
        """Deliver one response's events until it ends, breaks, or has answered."""
        events = read_events(response, self.stop, MAX_MESSAGE_BYTES)
        try:
            for event in events:
                self._last_id = event.id or self._last_id
                self._retry_ms = event.retry if event.retry is not None else self._retry_ms
                if event.event != "message" or not event.data.strip():
                    continue  # a priming event: only its id matters
                for message in parse_messages(event.data):
                    self._deliver(message)
                    self._done = self._done or is_answer(message, self.request_id)
                if self._done:
                    return  # the server should end the stream now; no need to wait
        except (StreamError, Aborted):
            pass  # cut (or stopped): follow() decides what next
        except ValueError as exc:  # malformed JSON: one clear error, and no more of it
            self._answer_with_error(str(exc))
        except TooLarge:
            self._fail(f"the server sent an SSE event over {MAX_MESSAGE_BYTES >> 20} MB")
        finally:
            events.close()

    def _answer_with_error(self, text: str) -> None:
        self._done = True
        if self.request_id is not None:
            error = {"code": -32000, "message": text}
            self._deliver({"jsonrpc": "2.0", "id": self.request_id, "error": error})


def read_events(response: requests.Response, stop: threading.Event,
                limit: int) -> Iterator[SSEEvent]:
    """A response's SSE events as they arrive (http/sse.py decodes them); TooLarge when
    an event grows past `limit` bytes; a read cut short by `stop` raises Aborted."""
    chunks = iter_body(response, stop)
    decoder = SSEDecoder()
    pending = 0  # bytes fed since the last event: the event still being assembled
    try:
        for chunk in chunks:
            events = decoder.feed(chunk)
            pending = 0 if events else pending + len(chunk)
            if pending > limit:
                raise TooLarge()
            yield from events
    finally:
        chunks.close()


def parse_messages(text) -> List[dict]:
    """One JSON-RPC message or a batch (a list) of them; ValueError with an excerpt.

    Examples: '{"id": 1, "result": {}}' -> [{"id": 1, "result": {}}]
              '[{"method": "a"}, {"method": "b"}]' -> both
              '<html>' or '42' -> ValueError("the server sent malformed JSON: <html>")
    """
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    messages = data if isinstance(data, list) else [data]
    if not messages or not all(isinstance(message, dict) for message in messages):
        if isinstance(text, bytes):
            text = text[:400].decode("utf-8", errors="replace")
        raise ValueError(f"the server sent malformed JSON: {excerpt(text)}")
    return messages


def is_answer(message: dict, request_id) -> bool:
    """Is this the response to our request `request_id` (a result or an error)?"""
    has_outcome = "result" in message or "error" in message
    return has_outcome and "method" not in message and message.get("id") == request_id


def excerpt(text: str, limit: int = 200) -> str:
    """The start of a text, on one line."""
    return " ".join(text[: limit * 2].split())[:limit]
