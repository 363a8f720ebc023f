"""Is a failed HTTP exchange worth repeating, and how long did the server ask us to wait?

Model servers fail often and briefly: they are overloaded (529, 503), rate-limited
(429), or the network hiccups. The HTTP layer sends each request once and never
repeats it itself; the one retry layer is the harness's (harness/reply_retry.py), which
tries the whole reply again. This module only judges what came back, and its verdict
travels up in the failure's one line, because the provider contract turns every
failure into an assistant message and its errorMessage is all the harness sees:

    503 "Busy"                        -> "503 Busy"                          transient
    503 + x-should-retry: false       -> "503 Busy (not retried: the server said not to)"
    429 + retry-after: 2              -> "429 Slow down (the server asks to wait 2 s)"
    429 + retry-after: 120            -> "429 Slow down (not retried: the server asks to
                                          wait 120 s; the limit is 60 s)"
    501 "Not Implemented"             -> "501 Not Implemented"               final (status)
    429 "exceeded your current quota" -> final (quota)
    500 "tools param requires --jinja flag"
                                      -> "... (not retried: start llama-server with
                                          --jinja to let the model call tools)"

`is_final(text)`, `retry_asked(text)` and `asked_wait(text)` read the verdict back. The rules
(docs/decisions.md D3), the first that decides wins:

- Quota and billing bodies are final on 429, 400, 402 and 403: "you exceeded your
  current quota" does not get better in a few seconds.
- A body that names a server's setup (FINAL_BODIES) is final whatever its status, and
  says the step that mends it: llama-server started without `--jinja` answers every
  request that carries tools with a 500, however often it is asked.
- The server's `x-should-retry: true|false` header overrides the status.
- Transient statuses: 408, 429, 500, 502, 503, 504, 520, 524, 529. Every other status
  (501 and 505 included: the server does not do what we ask) is final.
- The server's `retry-after-ms` / `retry-after` (seconds or an HTTP date) is read and
  passed up; a demand over 60 s is final at once, naming the wait, rather than
  freezing the agent for minutes.

Failures without a status (connection refused, reset, timed out) are judged in
transport.py, which knows whether this process has reached the server before.

Left out: circuit breakers, per-host budgets, the waiting itself (the harness's).
"""

import email.utils
import math
import re
import time
from typing import Optional

from .errors import HTTPError, http_error_message

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 520, 524, 529})
MAX_SERVER_DELAY = 60.0  # seconds; a longer retry-after fails at once
# A quota error can hide behind any of these statuses; its body says which it is.
QUOTA_STATUSES = frozenset({400, 402, 403, 429})
QUOTA_MARKERS = ("insufficient_quota", "billing", "credit balance", "exceeded your current quota")
# Bodies no retry can mend, each with the one step that can (llama.cpp's wording).
FINAL_BODIES = {
    "tools param requires --jinja flag": "start llama-server with --jinja to let the model call tools",
}
# The verdicts a message carries when its status alone does not tell:
NOT_RETRIED = "(not retried: "  # final, e.g. "503 Busy (not retried: the server said not to)"
RETRY_ASKED = "(the server asks to retry)"  # x-should-retry: true on a final status
WAIT_ASKED = "(the server asks to wait "  # transient, after the wait named: "... 2 s)"
_WAIT = re.compile(re.escape(WAIT_ASKED) + r"([0-9.]+(?:e-\d+)?) s\)")


def error_for_status(status: int, headers, body_text: str, url: str = "") -> HTTPError:
    """The HTTPError for a non-2xx answer, its verdict in its message (the rules of the
    module docstring).

    Examples: 503, {}, "Busy"                          -> "503 Busy"
              503, {"x-should-retry": "false"}, "Busy" -> "503 Busy (not retried: the
                                                          server said not to)"
              429, {"retry-after": "2"}, "Slow down"   -> "429 Slow down (the server asks
                                                          to wait 2 s)"
    """
    message = http_error_message(status, body_text, url)  # a 404 names the URL
    if status in QUOTA_STATUSES and is_quota_error(body_text):
        return HTTPError(message, status)  # final, whatever else the response says
    for marker, step in FINAL_BODIES.items():
        if marker in body_text:
            return HTTPError(not_retried(message, step), status)
    verdict = headers.get("x-should-retry", "").strip().lower()
    if verdict == "false":
        return HTTPError(not_retried(message, "the server said not to"), status)
    if verdict != "true" and status not in TRANSIENT_STATUSES:
        return HTTPError(message, status)
    if status not in TRANSIENT_STATUSES:
        message = f"{message} {RETRY_ASKED}"
    delay = server_retry_delay(headers)
    if delay is not None and delay > MAX_SERVER_DELAY:
        why = f"the server asks to wait {delay:.0f} s; the limit is {MAX_SERVER_DELAY:.0f} s"
        return HTTPError(not_retried(message, why), status)
    if delay is not None:
        message = f"{message} {WAIT_ASKED}{delay:.3g} s)"
    return HTTPError(message, status)


def not_retried(message: str, why: str) -> str:
    """The message marked final, e.g. "503 Busy (not retried: the server said not to)"."""
    return f"{message} {NOT_RETRIED}{why})"


def is_final(text: str) -> bool:
    """Did the HTTP layer decide that the failure this errorMessage describes must not
    be repeated? The retry layer asks, as the text is all it sees. Examples:

        "400 Invalid 'max_tokens': expected at most 8192, got 500 instead"  -> True
              (the status comes first; the "500" inside does not count)
        "501 Not Implemented", "505 HTTP Version Not Supported"      -> True
        "429 Rate limit reached", "503 Busy", "408 Request Timeout"  -> False
        "429 You exceeded your current quota"                        -> True (quota)
        "400 Try later (the server asks to retry)"                   -> False
        "500 Oops (not retried: the server said not to)"             -> True (the marker;
              also "Connection error: ... (connection refused) (not retried: no server
              has answered at this address yet)")
        "Connection error: could not reach http://x (connection reset by the server)"
                                                                     -> False
    """
    if NOT_RETRIED in text or is_quota_error(text):
        return True
    status = re.match(r"([1-5]\d\d) ", text)
    return (status is not None and int(status.group(1)) not in TRANSIENT_STATUSES
            and RETRY_ASKED not in text)


def retry_asked(text: str) -> bool:
    """Did the server itself ask for another try (x-should-retry: true, or a wait)?

    Example: "400 Try later (the server asks to retry)" -> True
    """
    return RETRY_ASKED in text or WAIT_ASKED in text


def asked_wait(text: str) -> Optional[float]:
    """The seconds the server asked to wait before trying again, read back from an
    errorMessage; None when it asked for nothing.

    Example: "429 Slow down (the server asks to wait 2 s)" -> 2.0
    """
    found = _WAIT.search(text)
    try:
        return float(found.group(1)) if found else None
    except ValueError:  # "1.2.3": no number we wrote
        return None


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
