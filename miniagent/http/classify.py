"""Is a failed HTTP exchange worth repeating, and how long did the server ask us to wait?

Model servers fail often and briefly: they are overloaded (529, 503), rate-limited
(429), or the network hiccups. The HTTP layer sends each request once and never
repeats it itself; the one retry layer is the harness's (harness/reply_retry.py), which
tries the whole reply again. This module only judges what came back, once, here, where
the status, the headers and the server's words are at hand. Its judgement is a
`Verdict` (http/errors.py) that travels as data: on the HTTPError, then beside the failed
message (providers/verdict.py), so the retry layer and compaction read the verdict, never
the text. The text says the same for people, in the one line they read:

    503 "Busy"                        -> "503 Busy"                 Verdict(retryable=True)
    503 + x-should-retry: false       -> "503 Busy (not retried: the server said not to)"
                                                                    Verdict(retryable=False)
    429 + retry-after: 2              -> "429 Slow down (the server asks to wait 2 s)"
                                                                    Verdict(True, wait_s=2.0)
    429 + retry-after: 120            -> "429 Slow down (not retried: the server asks to
                                          wait 120 s; the limit is 60 s)"     final
    501 "Not Implemented"             -> "501 Not Implemented"      final (status)
    429 "exceeded your current quota" -> final (quota)
    400 "prompt is too long: ..."     -> final, overflow=True (compaction answers it)
    500 "tools param requires --jinja flag"
                                      -> "... (not retried: start llama-server with
                                          --jinja to let the model call tools)"

The rules (docs/decisions.md D3), the first that decides wins:

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
- Whatever the status, words saying the request did not fit the window (OVERFLOW) make
  it an overflow, which is never retried as it is.

Failures without a status (connection refused, reset, timed out) are judged in
transport.py, which knows whether this process has reached the server before.

Some failures have only words: an error sent inside a stream ("Overloaded
(overloaded_error)"), a stream cut short, and a message read back from a session file
or written by a script, which no verdict came with. `judge(text)` reads those words
(server wordings, and our own marks above), here too, so that reading error text
happens in this one module.

Left out: circuit breakers, per-host budgets, the waiting itself (the harness's).
"""

import email.utils
import math
import re
import time
from typing import Optional

from .errors import FINAL, HTTPError, Verdict, http_error_message

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504, 520, 524, 529})
MAX_SERVER_DELAY = 60.0  # seconds; a longer retry-after fails at once
# A quota error can hide behind any of these statuses; its body says which it is.
QUOTA_STATUSES = frozenset({400, 402, 403, 429})
QUOTA_MARKERS = ("insufficient_quota", "billing", "credit balance", "exceeded your current quota")
# Bodies no retry can mend, each with the one step that can (llama.cpp's wording).
FINAL_BODIES = {
    "tools param requires --jinja flag": "start llama-server with --jinja to let the model call tools",
}
# Our marks in the one line, for people (and for judge(), when a line is all there is):
NOT_RETRIED = "(not retried: "  # final, e.g. "503 Busy (not retried: the server said not to)"
RETRY_ASKED = "(the server asks to retry)"  # x-should-retry: true on a final status
WAIT_ASKED = "(the server asks to wait "  # transient, after the wait named: "... 2 s)"
_WAIT = re.compile(re.escape(WAIT_ASKED) + r"([0-9.]+(?:e-\d+)?) s\)")
# Words of a failure that passes: servers' wordings, and ours for a connection or a stream.
TRANSIENT_WORDS = re.compile(
    r"overloaded|rate.?limit|too many requests|\b(408|429|500|502|503|504|520|524|529)\b|"
    r"service.?unavailable|server.?error|internal.?error|connection|econnreset|"
    r"timed? ?out|timeout|stream ended|terminated|other side closed", re.IGNORECASE)
# Words that mean "the request did not fit the window", one server family or more
# each. A 429 is never one: a rate limit on tokens per minute is not the window.
OVERFLOW = re.compile("|".join([
    r"prompt is too long",                        # Anthropic
    r"prompt too long", r"exceeded max context length",     # Ollama
    r"exceeds the available context size",        # llama.cpp
    r"maximum context length is \d+ tokens",      # OpenAI, vLLM, OpenRouter
    r"reduce the length of the messages",         # OpenAI, Groq
    r"context[_ ]length[_ ]exceeded",             # OpenAI's code, Groq
    r"greater than the context length",           # LM Studio
    r"input is too long for requested model", r"exceeds the context window",
    r"input token count.*exceeds the maximum", r"maximum prompt length is \d+",
    r"exceeds the limit of \d+", r"context window exceeds limit",
    r"exceeded model token limit", r"too large for model with \d+ maximum context length",
    r"model_context_window_exceeded", r"too many tokens", r"token limit exceeded",
]), re.IGNORECASE)
_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)  # Cerebras


def error_for_status(status: int, headers, body_text: str, url: str = "") -> HTTPError:
    """The HTTPError for a non-2xx answer, with its verdict (the rules of the module
    docstring), which its message also says for people.

    Examples: 503, {}, "Busy"                          -> "503 Busy", retryable
              503, {"x-should-retry": "false"}, "Busy" -> "503 Busy (not retried: the
                                                          server said not to)", final
              429, {"retry-after": "2"}, "Slow down"   -> "429 Slow down (the server asks
                                                          to wait 2 s)", retryable, 2 s
    """
    message = http_error_message(status, body_text, url)  # a 404 names the URL
    message, retryable, wait = judge_status(status, headers, body_text, message)
    overflow = is_overflow(message)
    return HTTPError(message, status, Verdict(retryable and not overflow, wait, overflow))


def judge_status(status: int, headers, body_text: str, message: str):
    """(the message with its marks, retryable, the wait asked) for a status, its headers
    and its body, by the rules of the module docstring."""
    if status in QUOTA_STATUSES and is_quota_error(body_text):
        return message, False, None  # final, whatever else the response says
    for marker, step in FINAL_BODIES.items():
        if marker in body_text:
            return not_retried(message, step), False, None
    asked = headers.get("x-should-retry", "").strip().lower()
    if asked == "false":
        return not_retried(message, "the server said not to"), False, None
    if asked != "true" and status not in TRANSIENT_STATUSES:
        return message, False, None
    if status not in TRANSIENT_STATUSES:
        message = f"{message} {RETRY_ASKED}"
    delay = server_retry_delay(headers)
    if delay is not None and delay > MAX_SERVER_DELAY:
        why = f"the server asks to wait {delay:.0f} s; the limit is {MAX_SERVER_DELAY:.0f} s"
        return not_retried(message, why), False, None
    if delay is not None:
        message = f"{message} {WAIT_ASKED}{delay:.3g} s)"
    return message, True, delay


def not_retried(message: str, why: str) -> str:
    """The message marked final, e.g. "503 Busy (not retried: the server said not to)"."""
    return f"{message} {NOT_RETRIED}{why})"


def final_error(message: str, why: str, status: Optional[int] = None) -> HTTPError:
    """A failure no retry can mend: marked for people, final for the code.

    Example: ("Connection error: ...", "the name does not resolve")
        -> HTTPError("Connection error: ... (not retried: the name does not resolve)",
                     verdict FINAL)
    """
    return HTTPError(not_retried(message, why), status, FINAL)


def judge(text: str) -> Verdict:
    """The verdict for a failure that is only words: an error sent inside a stream, a
    stream cut short, a message from a session file. Examples:

        "Overloaded (overloaded_error)"                 -> retryable
        "stream ended before the response was complete" -> retryable
        "429 Slow down (the server asks to wait 2 s)"   -> retryable, wait_s 2.0
        "501 Not Implemented"                           -> final
        "400 prompt is too long: 213462 tokens > 200000" -> final, overflow
        "The model declined to answer"                  -> final (nothing says it passes)
    """
    overflow = is_overflow(text)
    retryable = not is_final(text) and not overflow and (
        retry_asked(text) or TRANSIENT_WORDS.search(text) is not None)
    return Verdict(retryable, asked_wait(text), overflow)


def is_overflow(text: str) -> bool:
    """Do these words say the request was larger than the window?

    Example: "400 This model's maximum context length is 8192 tokens" -> True
    """
    return bool(OVERFLOW.search(text) or _NO_BODY.search(text))


def is_final(text: str) -> bool:
    """Does the one line say, by our mark or by its status, that the failure must not be
    repeated (judge's question about a line that came without its verdict)? Examples:

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
    """The seconds the server asked to wait before trying again, as the line says (for
    judge); None when it asked for nothing.

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
