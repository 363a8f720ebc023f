"""How the bytes of a model call travel: one streamed POST that abort can interrupt.

Both real providers send one POST per model call and read the reply as a stream. This
module does the HTTP part for both, in two steps:

    response = post_stream(url, headers, body, abort)   # until a 2xx status line
    for chunk in iter_body(response, abort):            # raw bytes as they arrive
        ...                                              # (the provider decodes SSE)

`post_stream` sends once and never repeats: a failure is raised with its verdict in
its message (classify.py), and the harness decides whether to try the reply again.
Only this module knows one fact that verdict needs: whether this process has reached
the server before. Every origin (scheme, host and port) that has sent back any HTTP
response, an error status included, is recorded in `REACHED`; a refused connection to
an origin never reached is final (a wrong URL, or a server that is not running: named
at once), to one reached before it is transient (a server restarting).

Abort is a `threading.Event` (set by Ctrl-C) and must take effect at once anywhere,
which a plain blocking HTTP client does not give:

- waiting for the status line (a server may think about a long prompt for minutes)
  happens on a helper thread, so the caller can stop waiting immediately;
- a read blocked on a silent server is ended by shutting the socket down from a
  watcher thread (closing the response alone can block as long as the server is
  silent); the reader wakes up with an error and we report `Aborted`.

Two timeouts bound a call: connecting (10 s) and every wait for data (600 s, like the
SDKs, as a reasoning model may think for minutes without sending a byte; the
environment's MINIAGENT_READ_TIMEOUT changes it). One
requests.Session is shared by every call: keep-alive saves a TCP and TLS handshake per
turn. Only the HTTP providers and MCP's HTTP transport (mcp/http.py, which has its own
session) import this module, so a run with the scripted model (and `--version`,
`--help`) never loads requests.

Failures are exceptions: errors.HTTPError before the body starts, StreamError after,
errors.Aborted when abort is set.

Left out: HTTP/2, proxies beyond what requests does by itself, resuming a broken
stream, and non-streaming calls.
"""

import socket
import threading
import urllib.parse
from typing import Iterator, Optional, Set

import requests
import urllib3

from ..files.home import seconds_from_env
from .classify import error_for_status, final_error
from .errors import (RETRYABLE, UNKNOWN_HOST, Aborted, Failure, HTTPError, connection_reason,
                     unreachable)

MAX_ERROR_BODY = 64 * 1024  # bytes of an error body worth reading
READ_TIMEOUT = 600.0  # seconds a stream may stay silent
# A thread that waits for two things (abort, and its request or body being done) can
# block on only one Event; it looks at the other this often, in seconds.
ABORT_POLL = 0.05
# One connection pool for every call (urllib3 checks a pooled connection is still
# alive before reusing it).
SHARED_SESSION = requests.Session()
# The origins ("http://127.0.0.1:8080") that have answered this process at least once.
REACHED: Set[str] = set()


class StreamError(Failure):
    """The connection broke or went silent after the body had started."""


# --- Sending --------------------------------------------------------------------------


def post_stream(url: str, headers: dict, body: dict, abort: threading.Event, *,
                connect_timeout: float = 10, read_timeout: Optional[float] = None,
                session: Optional[requests.Session] = None) -> requests.Response:
    """POST `body` as JSON, once, and return the response as soon as a 2xx status
    arrived (its body not read yet; pass it to `iter_body`). Raises HTTPError for any
    other answer or none (its message says whether trying again could help), Aborted
    when `abort` is set.

    connect_timeout bounds connecting; read_timeout every wait for data (the status
    line, each read of the body)."""
    if abort.is_set():
        raise Aborted()
    session = session or SHARED_SESSION
    timeout = (connect_timeout, read_timeout or default_read_timeout())
    try:
        response = BackgroundRequest(session, "POST", url, headers, body, timeout).result(abort)
    except requests.ConnectTimeout:
        message = unreachable(url, f"no answer within {timeout[0]:g} s")
        raise HTTPError(message, verdict=RETRYABLE) from None
    except requests.Timeout:
        message = f"Request timed out: {url} sent no response within {timeout[1]:g} s"
        raise HTTPError(message, verdict=RETRYABLE) from None
    except requests.ConnectionError as exc:
        raise connection_failure(url, connection_reason(exc)) from None
    except (requests.RequestException, ValueError) as exc:
        # A malformed URL, a header value HTTP cannot carry (a key with a stray "\r"
        # or a curly quote): nothing was sent, and sending again cannot help.
        raise final_error(f"Request failed: {exc}", "the request could not be sent") from None
    REACHED.add(origin(url))
    if 200 <= response.status_code < 300:
        return response
    text = _read_error_body(response, abort)
    raise error_for_status(response.status_code, response.headers, text, response.url)


def connection_failure(url: str, reason: str) -> HTTPError:
    """The failure of a connection that failed, final where waiting cannot help.

    Examples: "connection refused", never reached -> "Connection error: could not reach
                  URL (connection refused; is the server running?) (not retried: no
                  server has answered at this address yet)"
              "connection refused", reached before -> the same without the marker,
                  retryable
              "unknown host name" -> "... (not retried: the name does not resolve)"
    """
    message = unreachable(url, reason)
    if reason == UNKNOWN_HOST:  # a typo in the host name will not fix itself
        return final_error(message, "the name does not resolve")
    if reason == "connection refused" and origin(url) not in REACHED:
        return final_error(message, "no server has answered at this address yet")
    return HTTPError(message, verdict=RETRYABLE)


def origin(url: str) -> str:
    """Example: "HTTP://Host:8080/v1/chat" -> "http://host:8080"."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def default_read_timeout() -> float:
    """MINIAGENT_READ_TIMEOUT seconds (a slow server's knob, and the tests'), else 600."""
    return seconds_from_env("MINIAGENT_READ_TIMEOUT", READ_TIMEOUT)


class BackgroundRequest:
    """One request (a POST here; MCP's HTTP transport also GETs and DELETEs) running on
    a helper thread until its status line arrives, so that the caller can stop waiting
    for it the moment abort is set. A response that arrives after the caller gave up is
    closed by whichever side comes second. `body` is sent as JSON unless it is None."""

    def __init__(self, session, method, url, headers, body, timeout):
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._response: Optional[requests.Response] = None
        self._error: Optional[BaseException] = None
        self._abandoned = False
        request = (session, method, url, headers, body, timeout)
        threading.Thread(target=self._run, args=request, daemon=True).start()

    def _run(self, session, method, url, headers, body, timeout) -> None:
        try:
            response = session.request(method, url, headers=headers, json=body, stream=True,
                                       timeout=timeout)
            with self._lock:
                self._response = response
                if self._abandoned:
                    response.close()
        except Exception as exc:  # handed to the caller, whatever it is
            self._error = exc
        finally:
            self._done.set()

    def result(self, abort: threading.Event) -> requests.Response:
        while not self._done.wait(ABORT_POLL):
            if abort.is_set():
                with self._lock:
                    self._abandoned = True
                    if self._response is not None:
                        self._response.close()
                raise Aborted()
        if self._error is not None:
            raise self._error
        return self._response


# --- Reading the body ------------------------------------------------------------------


def iter_body(response: requests.Response, abort: threading.Event,
              chunk_size: int = 8192) -> Iterator[bytes]:
    """Yield the raw body in chunks as they arrive, and close the response at the end.

    Raises Aborted as soon as `abort` is set, StreamError if the connection breaks or
    goes silent for longer than the read timeout.
    """
    finished = threading.Event()
    watch = (response, abort, finished)
    threading.Thread(target=_shut_down_on_abort, args=watch, daemon=True).start()
    try:
        for chunk in _arrivals(response, chunk_size):
            if abort.is_set():
                raise Aborted()
            yield chunk
    except (OSError, urllib3.exceptions.HTTPError) as exc:
        if abort.is_set():  # the watcher shut the socket down under us
            raise Aborted() from None
        raise StreamError(f"connection lost while streaming: {connection_reason(exc)}",
                          RETRYABLE) from None
    finally:
        finished.set()
        response.close()


def _arrivals(response: requests.Response, chunk_size: int) -> Iterator[bytes]:
    """The body as it arrives. A plain read(8192) would wait for 8192 bytes, holding
    back a 20-byte SSE event; urllib3 2's `read1` returns whatever has arrived. urllib3
    1.26 (which requests still allows) has no read1; its `stream` hands on each HTTP
    chunk as it arrives, which is how servers send SSE (chunked transfer encoding)."""
    raw = response.raw
    if not hasattr(raw, "read1"):
        yield from raw.stream(chunk_size, decode_content=True)
        return
    while True:
        chunk = raw.read1(chunk_size, decode_content=True)
        if not chunk:
            return
        yield chunk


def _shut_down_on_abort(response, abort: threading.Event, finished: threading.Event) -> None:
    """Watcher thread: when abort is set while the body is being read, shut the socket
    down; a read blocked in recv() then returns at once."""
    while not finished.is_set():
        if abort.wait(ABORT_POLL):
            if not finished.is_set():
                _shut_down_socket(response)
            return


def _shut_down_socket(response: requests.Response) -> None:
    # urllib3 2.x keeps the connection on the raw response until it is released
    # back to the pool (then it is None): nothing left to interrupt.
    connection = getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by the other side


def _read_error_body(response: requests.Response, abort: threading.Event) -> str:
    """The start of an error body (the server may be slow or stop halfway: keep what came)."""
    body = bytearray()
    chunks = iter_body(response, abort)
    try:
        for chunk in chunks:
            body += chunk
            if len(body) >= MAX_ERROR_BODY:
                break
    except StreamError:
        pass
    finally:
        chunks.close()
    return body[:MAX_ERROR_BODY].decode("utf-8", errors="replace")
