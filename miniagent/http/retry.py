"""When to try a failed HTTP request again, and how long to wait first.

Model servers fail often and briefly: they are overloaded (529, 503), rate-limited
(429), or the network hiccups. transport.py sends the request; this module decides,
from what came back, whether sending it again could help. It knows no sockets and no
HTTP library: only statuses, headers, error texts and an abort event. A worked example
with the default two retries:

    attempt 1  ->  503                    wait backoff_delay(0): 0.375..0.5 s
    attempt 2  ->  429, retry-after: 3    wait 3 s, as the server asked
    attempt 3  ->  200                    return the response, body not read yet

The rules (docs/decisions.md D3, matching the official SDKs where sensible):

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
- Every wait is `abort.wait(delay)`, never `time.sleep`: Ctrl-C ends it at once.

Retrying stops once the body has started: a stream that breaks halfway is an error for
the caller, and the agent level (harness.py) retries the whole call from scratch. That
level sees only the errorMessage, so a failure decided final here must say so in its
text: `is_final(text)` reads the decision back (a 4xx status, a quota error, or the
NOT_RETRIED marker that ends the message when the status alone does not tell).

Failure is reported by exceptions (`HTTPError`, `Aborted`; transport.py adds
`StreamError`); the providers turn them into an assistant message with stopReason
"error" or "aborted".

Left out: circuit breakers, per-host budgets, retrying a stream that already started.
"""

import email.utils
import math
import random
import re
import threading
import time
from typing import Any, Callable, Optional

from .errors import http_error_message
from ..messages import ABORTED_TEXT

RETRYABLE_STATUSES = frozenset({408, 409, 429})  # and every status >= 500
MAX_SERVER_DELAY = 60.0  # seconds; a longer retry-after fails at once
# A quota error can hide behind any of these statuses; its body says which it is.
QUOTA_STATUSES = frozenset({400, 402, 403, 429})
QUOTA_MARKERS = ("insufficient_quota", "billing", "credit balance", "exceeded your current quota")
# Ends the message of a failure decided final for a reason its status does not show,
# e.g. "503 Busy (not retried: the server said not to)"; is_final() looks for it.
NOT_RETRIED = "(not retried: "


class Failure(Exception):
    """A failure of ours: `message` is one line for the assistant message's errorMessage."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Aborted(Failure):
    """The abort event was set while we waited or read."""

    def __init__(self, message: str = ABORTED_TEXT):
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


# --- The loop ------------------------------------------------------------------------------


def with_retries(attempt: Callable[[], Any], abort: threading.Event, *,
                 max_retries: int = 2, base_delay: float = 0.5,
                 on_wait: Callable[..., None] = lambda error, delay, attempt, attempts: None,
                 ) -> Any:
    """Call attempt() until it returns, repeating it (at most max_retries times) while
    it raises a retryable HTTPError. Raises the last HTTPError, or Aborted when abort is
    set during a wait. `on_wait(error, seconds, attempt, attempts)` is told before each
    wait (attempt: the number of the try about to be made, of `attempts` at most), so
    that a person is not left staring at a silent minute of rate limiting."""
    tries = 0
    while True:
        try:
            return attempt()
        except HTTPError as error:
            if not error.retryable or tries == max_retries:
                raise
            delay = error.retry_after
            if delay is None:
                delay = backoff_delay(tries, base_delay)
            on_wait(error, delay, tries + 2, max_retries + 1)
        if wait_or_abort(delay, abort):
            raise Aborted(f"{ABORTED_TEXT} while waiting to retry")
        tries += 1


def backoff_delay(attempt: int, base: float = 0.5) -> float:
    """Seconds to wait before retry number attempt+1 (attempt counts from 0).

    Example (base 0.5): attempt 0 -> 0.375..0.5, 1 -> 0.75..1, 2 -> 1.5..2, 4+ -> 6..8
    """
    return min(base * 2**attempt, 8.0) * (1 - 0.25 * random.random())


def wait_or_abort(seconds: float, abort: threading.Event) -> bool:
    """Wait, but wake up the moment abort is set. True if aborted."""
    return abort.wait(max(seconds, 0))


# --- Deciding about a failed attempt ---------------------------------------------------


def error_for_status(status: int, headers, body_text: str, url: str = "") -> HTTPError:
    """The HTTPError for a non-2xx answer, saying whether to try again. The rules of the
    module docstring; the first that decides wins: quota, then x-should-retry, then the
    status, then the wait the server asks for.

    Examples: 503, {}, "Busy"                          -> "503 Busy", retryable
              503, {"x-should-retry": "false"}, "Busy" -> "503 Busy (not retried: the
                                                          server said not to)", final
              429, {}, "You exceeded your current quota" -> final (quota)
    """
    message = http_error_message(status, body_text, url)  # a 404 names the URL
    if status in QUOTA_STATUSES and is_quota_error(body_text):
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
