"""How we talk HTTP to a model server, and when we try again.

Both providers send one POST per model call and read the reply as a stream. This
module does the HTTP part for both, in two steps:

    response = post_stream(url, headers, body, abort)   # until a 2xx status line
    for chunk in iter_body(response, abort):            # raw bytes as they arrive
        ...                                              # (the provider decodes SSE)

`post_stream` retries, because model servers fail often and briefly: they are
overloaded (529, 503), rate-limited (429), or the network hiccups. A worked example
with the default two retries:

    attempt 1  ->  503                    wait backoff_delay(0): 0.375..0.5 s
    attempt 2  ->  429, retry-after: 3    wait 3 s, as the server asked
    attempt 3  ->  200                    return the response, body not read yet

The rules (spec decision 3, matching the official SDKs where sensible):

- Retried: 408, 409, 429 and every 5xx, plus connection errors and timeouts.
  Everything else (400, 401, 403, 404, 413, 422, ...) is a mistake that repeating
  will not fix, and so is a request that cannot even be sent (a malformed URL) or
  a host name that does not resolve (a typo will not fix itself in a few seconds).
- The server's `x-should-retry: true|false` header overrides the status.
- Quota and billing errors are final even on a 429: "you exceeded your current
  quota" does not get better in a second, so no request is repeated for it.
- The server's `retry-after-ms` / `retry-after` (seconds or an HTTP date) is honoured
  up to 60 s. A longer demand fails at once, with a message naming the wait, rather
  than freezing the agent for minutes.
- Otherwise wait `min(0.5 * 2**n, 8) * (1 - 0.25 * random())` seconds: exponential
  backoff, with jitter so that many clients do not retry in lockstep.

Retrying stops once the body has started: a stream that breaks halfway is an error for
the caller (`StreamError`), and the agent level retries the whole call from scratch.
That level sees only the errorMessage, so a failure decided final here must say so in
its text: `is_final(text)` reads the decision back (a 4xx status, a quota error, or
the NOT_RETRIED marker that ends the message when the status alone does not tell).

Abort is a `threading.Event` (set by Ctrl-C) and must take effect at once anywhere:

- a retry wait is `abort.wait(delay)`, never `time.sleep`;
- waiting for the status line (a server may think about a long prompt for minutes)
  happens on a helper thread, so the caller can stop waiting immediately;
- a read blocked on a silent server is ended by shutting the socket down from a
  watcher thread (closing the response alone can block as long as the server is
  silent); the reader wakes up with an error and we report `Aborted`.

Failure is reported by exceptions here (`HTTPError`, `StreamError`, `Aborted`); the
providers turn them into an assistant message with stopReason "error" or "aborted".

Left out: HTTP/2, proxies beyond what requests does by itself, resuming a broken
stream, and non-streaming calls.
"""

import email.utils
import math
import random
import re
import socket
import threading
import time
from typing import Callable, Iterator, Optional

import requests
import urllib3

from .httperrors import UNKNOWN_HOST, connection_reason, http_error_message, unreachable

RETRYABLE_STATUSES = frozenset({408, 409, 429})  # and every status >= 500
MAX_SERVER_DELAY = 60.0  # seconds; a longer retry-after fails at once
# A quota error can hide behind any of these statuses; its body says which it is.
QUOTA_STATUSES = frozenset({400, 402, 403, 429})
QUOTA_MARKERS = ("insufficient_quota", "billing", "credit balance", "exceeded your current quota")
MAX_ERROR_BODY = 64 * 1024  # bytes of an error body worth reading
# Ends the message of a failure decided final for a reason its status does not show,
# e.g. "503 Busy (not retried: the server said not to)"; is_final() looks for it.
NOT_RETRIED = "(not retried: "
# A thread that waits for two things (abort, and its request or body being done) can
# block on only one Event; it looks at the other this often, in seconds.
ABORT_POLL = 0.05
# One connection pool for every call: keep-alive saves a TCP and TLS handshake per
# turn (urllib3 checks a pooled connection is still alive before reusing it).
SHARED_SESSION = requests.Session()


class Failure(Exception):
    """A failure of ours: `message` is one line for the assistant message's errorMessage."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Aborted(Failure):
    """The abort event was set while we waited or read."""

    def __init__(self, message: str = "Request was aborted"):
        super().__init__(message)


class HTTPError(Failure):
    """The request failed before the body started: a status the server answered with,
    or no answer at all (status None). E.g. "429 Rate limit reached", status 429."""

    def __init__(self, message: str, status: Optional[int] = None, retryable: bool = False,
                 retry_after: Optional[float] = None):
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        """Whether trying again could help (its text tells the same: see is_final)."""
        self.retry_after = retry_after
        """The wait in seconds the server asked for, if it asked."""


class StreamError(Failure):
    """The connection broke or went silent after the body had started."""


# --- Sending, with retries -------------------------------------------------------------


def post_stream(url: str, headers: dict, body: dict, abort: threading.Event, *,
                max_retries: int = 2, connect_timeout: float = 10, read_timeout: float = 600,
                session: Optional[requests.Session] = None, base_delay: float = 0.5,
                on_wait: Callable[[HTTPError, float], None] = lambda error, delay: None,
                ) -> requests.Response:
    """POST `body` as JSON and return the response as soon as a 2xx status arrived
    (its body not read yet; pass it to `iter_body`). Raises HTTPError when the server
    refuses for good or the retries are used up, Aborted when `abort` is set.

    connect_timeout bounds connecting; read_timeout every wait for data (the status
    line, each read of the body): 600 s like the SDKs, as a reasoning model may think
    for minutes without sending a byte. `base_delay` scales the backoff (for tests).
    `on_wait(error, seconds)` is told before each wait, so that a person is not left
    staring at a silent minute of rate limiting."""
    session = session or SHARED_SESSION
    attempt = 0
    while True:
        try:
            return _send_once(session, url, headers, body, abort, (connect_timeout, read_timeout))
        except HTTPError as error:
            if not error.retryable or attempt == max_retries:
                raise
            delay = error.retry_after
            if delay is None:
                delay = backoff_delay(attempt, base_delay)
            on_wait(error, delay)
        if wait_or_abort(delay, abort):
            raise Aborted("Request was aborted while waiting to retry")
        attempt += 1


def backoff_delay(attempt: int, base: float = 0.5) -> float:
    """Seconds to wait before retry number attempt+1 (attempt counts from 0).

    Example (base 0.5): attempt 0 -> 0.375..0.5, 1 -> 0.75..1, 2 -> 1.5..2, 4+ -> 6..8
    """
    return min(base * 2**attempt, 8.0) * (1 - 0.25 * random.random())


def wait_or_abort(seconds: float, abort: threading.Event) -> bool:
    """Wait, but wake up the moment abort is set. True if aborted."""
    return abort.wait(max(seconds, 0))


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
    raise _error_from_response(response, abort)


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


# --- Deciding about a failed attempt ---------------------------------------------------


def _error_from_response(response: requests.Response, abort: threading.Event) -> HTTPError:
    """The rules of the module docstring; the first that decides wins: quota, then
    x-should-retry, then the status, then the wait the server asks for."""
    status, headers = response.status_code, response.headers
    text = _read_error_body(response, abort)
    message = http_error_message(status, text, response.url)  # a 404 names the URL
    if status in QUOTA_STATUSES and is_quota_error(text):
        return HTTPError(message, status)  # final, whatever else the response says
    verdict = headers.get("x-should-retry", "").strip().lower()
    if verdict == "false":
        return HTTPError(not_retried(message, "the server said not to"), status)
    if verdict != "true" and status not in RETRYABLE_STATUSES and status < 500:
        return HTTPError(message, status)
    delay = server_retry_delay(headers)
    if delay is not None and delay > MAX_SERVER_DELAY:
        why = f"the server asks to wait {delay:.0f} s; the limit is {MAX_SERVER_DELAY:.0f} s"
        return HTTPError(not_retried(message, why), status, retry_after=delay)
    return HTTPError(message, status, retryable=True, retry_after=delay)


def not_retried(message: str, why: str) -> str:
    """The message marked final, e.g. "503 Busy (not retried: the server said not to)"."""
    return f"{message} {NOT_RETRIED}{why})"


def is_final(text: str) -> bool:
    """Did the HTTP layer decide that the failure this errorMessage describes must not
    be repeated? The agent-level retry asks, as the text is all it sees. Examples:

        "400 Invalid 'max_tokens': expected at most 8192, got 500 instead"  -> True
              (a 4xx says the request itself is wrong; the "500" inside does not count)
        "429 Rate limit reached"  (and any 408, 409)                 -> False
        "429 You exceeded your current quota"                        -> True (quota)
        "500 Oops (not retried: the server said not to)"             -> True (the marker;
              also "... (not retried: the server asks to wait 120 s; the limit is 60 s)"
              and "Request failed: ... (not retried: the request could not be sent)",
              "Connection error: ... (unknown host name) (not retried: the name does not
              resolve)")
        "Connection error: could not reach http://x (connection refused)"  -> False
    """
    status = re.match(r"(4\d\d) ", text)
    client_error = status is not None and int(status.group(1)) not in RETRYABLE_STATUSES
    return client_error or NOT_RETRIED in text or is_quota_error(text)


def is_quota_error(text: str) -> bool:
    """Does an error text say the account's quota, credit or billing is exhausted?

    Example: '429 You exceeded your current quota, please check your plan' -> True
    """
    lowered = text.lower()
    return any(marker in lowered for marker in QUOTA_MARKERS)


def server_retry_delay(headers) -> Optional[float]:
    """The wait the server asked for, in seconds, or None if it asked for none.

    Examples: {"retry-after-ms": "1500"} -> 1.5;  {"retry-after": "2"} -> 2.0;
              {"retry-after": "Wed, 21 Oct 2037 07:28:00 GMT"} -> the seconds until then
    """
    millis, value = headers.get("retry-after-ms"), headers.get("retry-after")
    try:
        delay = float(millis) / 1000 if millis else float(value)
    except (TypeError, ValueError):
        try:  # not a number: an HTTP date, or garbage
            delay = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return delay if math.isfinite(delay) and delay > 0 else None


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
