"""Which failed model replies deserve a second try: the harness's retry decision.

Real servers fail all the time in small ways: a 529 "overloaded", a rate limit, a
connection that drops halfway through a reply. The HTTP layer (http/retry.py) already
repeats a request that failed *before* any reply arrived, twice, within a second or
so. What reaches the harness is a reply that broke after it started, or a failure the
HTTP layer gave up on; the harness waits 2, 4, 8 s and runs the turn again from
scratch. As in pi, a server that always answers 503 therefore sees 3 x 4 = 12 requests
over about 20 s before the run reports the error.

Transient (docs/decisions.md D4): overloaded, rate limits, 429 and 5xx statuses,
connection resets, timeouts, a stream that ended before the response was complete.

Never retried here:
  * what the HTTP layer already called final (`retry.is_final`: a 4xx other than
    408/409/429, quota and billing errors, a server that said not to retry or asked
    for a wait over 60 s);
  * a refused connection: nothing listens there, and the HTTP layer has already tried
    three times; a server that is down is named within about 2 s instead of 20;
  * a context overflow: compaction answers that (harness.py), not a retry.
"""

import os
import re

from ..compaction.compaction import is_context_overflow
from ..messages import Message
from ..http.retry import is_final

MAX_RETRIES = 3
BASE_DELAY = 2.0  # seconds; doubles each retry: 2, 4, 8

TRANSIENT = re.compile(
    r"overloaded|rate.?limit|too many requests|\b(429|5\d\d)\b|"
    r"service.?unavailable|server.?error|internal.?error|connection|econnreset|"
    r"timed? ?out|timeout|stream ended|terminated|other side closed", re.IGNORECASE)
REFUSED = re.compile(r"connection refused", re.IGNORECASE)


def retry_base_delay() -> float:
    """The first retry's delay: MINIAGENT_RETRY_BASE_DELAY seconds (tests make it short)."""
    try:
        return float(os.environ.get("MINIAGENT_RETRY_BASE_DELAY", BASE_DELAY))
    except ValueError:
        return BASE_DELAY


def is_retryable(message: Message) -> bool:
    """Should a failed assistant message be retried?

    Examples:
        "529 Overloaded"                                  -> True
        "stream ended before the response was complete"   -> True
        "Connection error: ... (connection reset)"        -> True
        "Connection error: ... (connection refused)"      -> False (the server is down)
        "429 You exceeded your current quota ..."         -> False (quota)
        "400 prompt is too long: 213462 tokens > 200000"  -> False (overflow)
        "401 Invalid API key"                             -> False
    """
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    text = message.get("errorMessage") or ""
    if is_final(text) or REFUSED.search(text):
        return False
    return bool(TRANSIENT.search(text)) and not is_context_overflow(message)
