"""How the bytes of a model call travel: one streamed POST that abort can interrupt.

Both real providers send one POST per model call and read the reply as a stream. This
module does the HTTP part for both, in two steps:

    response = post_stream(url, headers, body, abort)   # until a 2xx status line
    for chunk in iter_body(response, abort):            # raw bytes as they arrive
        ...                                              # (the provider decodes SSE)

`post_stream` repeats a failed attempt as retry.py decides (its `with_retries` and
`error_for_status`); this module only sends, reads and reports what happened.

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
turn. Only the HTTP providers import this module, so a run with the scripted model (and
`--version`, `--help`) never loads requests.

Failures are exceptions: retry.HTTPError before the body starts, StreamError after,
retry.Aborted when abort is set.

Left out: HTTP/2, proxies beyond what requests does by itself, resuming a broken
stream, and non-streaming calls.
"""

import socket
import threading
from typing import Callable, Iterator, Optional

import requests
import urllib3

from ..files.home import seconds_from_env
from .errors import UNKNOWN_HOST, connection_reason, unreachable
from .retry import Aborted, Failure, HTTPError, error_for_status, not_retried, with_retries

MAX_ERROR_BODY = 64 * 1024  # bytes of an error body worth reading
READ_TIMEOUT = 600.0  # seconds a stream may stay silent
# A thread that waits for two things (abort, and its request or body being done) can
# block on only one Event; it looks at the other this often, in seconds.
ABORT_POLL = 0.05
# One connection pool for every call (urllib3 checks a pooled connection is still
# alive before reusing it).
SHARED_SESSION = requests.Session()


class StreamError(Failure):
    """The connection broke or went silent after the body had started."""


# --- Sending --------------------------------------------------------------------------


def post_stream(url: str, headers: dict, body: dict, abort: threading.Event, *,
                max_retries: int = 2, connect_timeout: float = 10,
                read_timeout: Optional[float] = None,
                session: Optional[requests.Session] = None, base_delay: float = 0.5,
                on_wait: Callable[..., None] = lambda error, delay, attempt, attempts: None,
                ) -> requests.Response:
    """POST `body` as JSON and return the response as soon as a 2xx status arrived
    (its body not read yet; pass it to `iter_body`). Raises HTTPError when the server
    refuses for good or the retries are used up, Aborted when `abort` is set.

    connect_timeout bounds connecting; read_timeout every wait for data (the status
    line, each read of the body). `base_delay` scales the backoff (for tests);
    `on_wait(error, seconds, attempt, attempts)` is told before each wait
    (retry.with_retries)."""
    session = session or SHARED_SESSION
    timeout = (connect_timeout, read_timeout or default_read_timeout())
    return with_retries(lambda: _send_once(session, url, headers, body, abort, timeout), abort,
                        max_retries=max_retries, base_delay=base_delay, on_wait=on_wait)


def default_read_timeout() -> float:
    """MINIAGENT_READ_TIMEOUT seconds (a slow server's knob, and the tests'), else 600."""
    return seconds_from_env("MINIAGENT_READ_TIMEOUT", READ_TIMEOUT)


def _send_once(session, url, headers, body, abort, timeout) -> requests.Response:
    """One attempt: a 2xx response, or an HTTPError saying whether to try again."""
    if abort.is_set():
        raise Aborted()
    try:
        response = _BackgroundPost(session, url, headers, body, timeout).result(abort)
    except requests.ConnectTimeout:
        message = unreachable(url, f"no answer within {timeout[0]:g} s")
        raise HTTPError(message, retryable=True) from None
    except requests.Timeout:
        message = f"Request timed out: {url} sent no response within {timeout[1]:g} s"
        raise HTTPError(message, retryable=True) from None
    except requests.ConnectionError as exc:
        reason = connection_reason(exc)
        message = unreachable(url, reason)
        if reason == UNKNOWN_HOST:  # a typo in the host name: final here and for the harness
            raise HTTPError(not_retried(message, "the name does not resolve")) from None
        raise HTTPError(message, retryable=True) from None
    except (requests.RequestException, ValueError) as exc:
        # A malformed URL, a header value HTTP cannot carry (a key with a stray "\r"
        # or a curly quote): nothing was sent, and sending again cannot help.
        message = not_retried(f"Request failed: {exc}", "the request could not be sent")
        raise HTTPError(message) from None
    if 200 <= response.status_code < 300:
        return response
    text = _read_error_body(response, abort)
    raise error_for_status(response.status_code, response.headers, text, response.url)


class _BackgroundPost:
    """One POST running on a helper thread until its status line arrives, so that the
    caller can stop waiting for it the moment abort is set. A response that arrives
    after the caller gave up is closed by whichever side comes second."""

    def __init__(self, session, url, headers, body, timeout):
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._response: Optional[requests.Response] = None
        self._error: Optional[BaseException] = None
        self._abandoned = False
        request = (session, url, headers, body, timeout)
        threading.Thread(target=self._run, args=request, daemon=True).start()

    def _run(self, session, url, headers, body, timeout) -> None:
        try:
            response = session.post(url, headers=headers, json=body, stream=True, timeout=timeout)
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
        raise StreamError(f"connection lost while streaming: {connection_reason(exc)}") from None
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
