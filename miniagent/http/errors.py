"""HTTP failures in one line: what went wrong, in words a person reads; the verdict beside it.

A failed call ends as an assistant message whose errorMessage is shown to the user on one
line and kept in the session file. So every failure of the HTTP layer is turned into one
short line that keeps the facts: the status, the server's own message, its error code or
type (`overloaded_error`, `insufficient_quota`: classify.py looks for such words where it
judges the failure), and for a connection that failed, why in plain words.

    429 + {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}
        -> "429 Rate limit reached (rate_limit_exceeded)"
    502 + a proxy's HTML page         -> "502 Bad Gateway"   (its title, not its markup)
    ConnectionRefusedError on :11434  -> "Connection error: could not reach
                                          http://127.0.0.1:11434/v1/chat/completions
                                          (connection refused; is the server running?)"
    404 from a base URL without /v1   -> "404 page not found (POST http://127.0.0.1:8080/
                                          chat/completions; is the base URL right?
                                          OpenAI-style base URLs usually end in /v1)"

Failure is reported by exceptions: `HTTPError` before the body starts (a status, or no
answer at all), `Aborted` when abort was set; transport.py adds `StreamError` for a body
that breaks. The providers turn each into an assistant message with stopReason "error"
or "aborted", its errorMessage the exception's one line. Whether trying again could help
is not in that line for a program to read back: a failure carries its `Verdict` as data
(classify.py decides it, providers/verdict.py keeps it beside the message).

Left out: localisation, and error bodies beyond the first 64 KB (transport.py reads no more).
"""

import ipaddress
import json
import re
import urllib.parse
from dataclasses import dataclass
from typing import Optional

from ..core.messages import ABORTED_TEXT
from ..files.text import one_line


@dataclass(frozen=True)
class Verdict:
    """What a failed reply means for what comes next, decided once where the failure is
    first seen (classify.py) and carried as data from there on.

    Examples: 503 Busy                      -> Verdict(retryable=True)
              429 + retry-after: 2          -> Verdict(retryable=True, wait_s=2.0)
              501 Not Implemented           -> Verdict(retryable=False)
              400 prompt is too long: ...   -> Verdict(retryable=False, overflow=True)
    """

    retryable: bool
    """Worth the same request again, after a wait."""
    wait_s: Optional[float] = None
    """The seconds the server asked to wait first; None: it asked for nothing."""
    overflow: bool = False
    """The request was larger than the model's window: compaction answers it, not a retry."""


RETRYABLE = Verdict(retryable=True)
FINAL = Verdict(retryable=False)


class Failure(Exception):
    """A failure of ours: `message` is one line for the assistant message's errorMessage;
    `verdict` is what it means, when the code that raised it knows (None: classify.py
    judges the message's words)."""

    def __init__(self, message: str, verdict: Optional[Verdict] = None):
        super().__init__(message)
        self.message = message
        self.verdict = verdict


class Aborted(Failure):
    """The abort event was set while we waited or read."""

    def __init__(self, message: str = ABORTED_TEXT):
        super().__init__(message)


class HTTPError(Failure):
    """The request failed before the body started: a status the server answered with,
    or no answer at all (status None). E.g. "429 Rate limit reached", status 429, with
    Verdict(retryable=True) (classify.error_for_status decides it)."""

    def __init__(self, message: str, status: Optional[int] = None,
                 verdict: Optional[Verdict] = None):
        super().__init__(message, verdict)
        self.status = status


def http_error_message(status: int, body_text: str, url: str = "") -> str:
    """One line for an error status: the status, then what the server said (and for a
    404 or 405, the URL asked and a hint about the base URL: see wrong_route).

    Examples:
        429, '{"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}'
            -> "429 Rate limit reached (rate_limit_exceeded)"
        529, '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
            -> "529 Overloaded (overloaded_error)"
        502, '<html><head><title>502 Bad Gateway</title>...'  -> "502 Bad Gateway"
        500, ''                            -> "500 status code (no body)"
    The error's code or type is kept because classify.py looks for words like
    overloaded_error and insufficient_quota.
    """
    text = body_text.strip()
    if not text:
        line = f"{status} status code (no body)"
    else:
        message = server_message(text)
        # A proxy's page title usually names the status itself: say it once.
        line = message if message.startswith(f"{status} ") else f"{status} {message}"
    return wrong_route(line, url) if status in (404, 405) and url else line


def wrong_route(line: str, url: str) -> str:
    """A 404 or 405 with the URL that was asked, and, unless the server complained about
    the model (the route was right then), which base URL convention the route expects
    (docs/decisions.md D16). The status stays first, where a reader looks for it.

    Examples:
        "404 page not found", "http://h:8080/chat/completions"
            -> "404 page not found (POST http://h:8080/chat/completions; is the base URL
                right? OpenAI-style base URLs usually end in /v1)"
        "404 Not Found (not_found_error)", "http://gw/v1/v1/messages"
            -> "... (POST http://gw/v1/v1/messages; is the base URL right? Anthropic-style
                base URLs do not include /v1)"
    """
    path = urllib.parse.urlsplit(url).path.rstrip("/")
    if "model" in line.lower():  # "404 model 'x' not found": a wrong model, not a wrong URL
        hint = ""
    elif path.endswith("/v1/messages"):
        hint = "; is the base URL right? Anthropic-style base URLs do not include /v1"
    elif path.endswith("/chat/completions") and not path.endswith("/v1/chat/completions"):
        hint = "; is the base URL right? OpenAI-style base URLs usually end in /v1"
    else:
        hint = "; is the base URL right?"
    return f"{line} (POST {url}{hint})"


def server_message(text: str) -> str:
    """The message inside an error body: OpenAI {"error": {"message"}}, Anthropic
    {"type": "error", "error": {"type", "message"}}, {"error": "text"}, an HTML page
    (a proxy's), or raw text."""
    try:
        data = json.loads(text)
    except ValueError:
        return page_text(text) if text.startswith("<") else one_line(text)
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, str) and error.strip():
        return one_line(error)
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        message = one_line(error["message"])
        kinds = [k for k in (error.get("code"), error.get("type")) if isinstance(k, str) and k]
        if kinds and kinds[0] not in message:
            message += f" ({kinds[0]})"
        return message
    for key in ("message", "detail"):  # other servers' shapes
        if isinstance(data, dict) and isinstance(data.get(key), str):
            return one_line(data[key])
    return one_line(text)


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<h[1-6][^>]*>(.*?)</h[1-6]>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def page_text(page: str) -> str:
    """What an HTML error page says, in one short line: its title, else its first
    heading, else its text without the markup.

    Example: '<html><head><title>502 Bad Gateway</title></head><body>...' -> "502 Bad Gateway"
    """
    import html  # an error page's entities; loaded only when a server sends one
    for pattern in (_TITLE, _HEADING):
        found = pattern.search(page)
        if found and _TAG.sub("", found.group(1)).strip():
            page = found.group(1)
            break
    return one_line(html.unescape(_TAG.sub(" ", page)), 200)


def unreachable(url: str, reason: str) -> str:
    """Example: "Connection error: could not reach http://127.0.0.1:11434/v1/chat/completions
    (connection refused; is the server running?)" (the hint only for this machine)."""
    if reason == "connection refused" and is_loopback(url):
        reason += "; is the server running?"
    return f"Connection error: could not reach {url} ({reason})"


def is_loopback(url: str) -> bool:
    """Does the URL name this machine (localhost, 127.0.0.0/8, ::1)?"""
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        return False


UNKNOWN_HOST = "unknown host name"  # final: a name that does not resolve will not in 8 s

# What the text of a requests/urllib3 exception contains -> what we tell the user. The
# first match wins: EAI_AGAIN (no DNS server answered: the network may be coming back)
# comes before the other resolver errors, which say the name does not exist.
_REASONS = (
    ("refused", "connection refused"),
    ("temporary failure in name resolution", "temporary failure in name resolution"),
    ("failed to resolve", UNKNOWN_HOST),
    ("name or service not known", UNKNOWN_HOST),  # Linux
    ("nodename nor servname", UNKNOWN_HOST),  # macOS
    ("getaddrinfo failed", UNKNOWN_HOST),  # Windows
    ("reset by peer", "connection reset by the server"),
    ("remote end closed", "the server closed the connection"),
    ("incompleteread", "the server closed the connection mid-response"),
    ("response ended prematurely", "the server closed the connection mid-response"),
    ("timed out", "timed out waiting for data"),
)


def connection_reason(exc: BaseException) -> str:
    text = str(exc).lower()
    for needle, reason in _REASONS:
        if needle in text:
            return reason
    return one_line(str(exc), 200) or type(exc).__name__
