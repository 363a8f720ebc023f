"""The one retry layer: a failed model reply tried again from scratch, up to 3 times.

Real servers fail all the time in small ways: a 529 "overloaded", a rate limit, a
connection that drops halfway through a reply. The HTTP layer sends each request once
and only judges the failure (http/classify.py); this module is the only place that
tries again. After a run that ended in a transient failure the harness calls
`retry_transient_failures`, which waits 2, 4, 8 s (less a random quarter: many clients
should not come back in step), drops the failed reply from the context (the session
file keeps it) and runs the turn again. A server that always answers 500 sees:

    request 1 -> 500    auto_retry_start  attempt 1 of 3, delayMs 1500 .. 2000
    request 2 -> 500    auto_retry_start  attempt 2 of 3, delayMs 3000 .. 4000
    request 3 -> 500    auto_retry_start  attempt 3 of 3, delayMs 6000 .. 8000
    request 4 -> 500    auto_retry_end    success false, attempt 3, finalError "500 ..."

that is 4 requests in at most 14 s. A server that asks for a wait ("retry-after: 5", up to
60 s) gets that wait instead of the backoff; abort ends any wait at once.

Which failures pass was decided where each was first seen: the failed message comes
with a `Verdict` (http/classify.py decides it, providers/verdict.py keeps it beside the
message), and this layer reads `verdict_of(message)`, never the message's text.
Transient (docs/decisions.md D4): overloaded, rate limits, 408, 429, 500, 502, 503, 504,
520, 524, 529, connection resets and refusals, timeouts, a stream that ended before
the response was complete. Never retried:
  * what the HTTP layer called final: 501, 505 and other 4xx, quota and billing
    errors, a server that said not to retry or asked for a wait over 60 s, a refused
    connection to a server this process never reached;
  * a context overflow: compaction answers that (harness.py), not a retry.

Left out: retry settings per model, a retry budget shared across prompts.
"""

import os
import random
import threading

from ..core.messages import Message, is_failed
from ..providers.verdict import verdict_of

MAX_RETRIES = 3
BASE_DELAY = 2.0  # seconds; doubles each retry: 2, 4, 8
MAX_JITTER = 0.25  # up to this share of a delay is taken off at random


def retry_transient_failures(agent, abort: threading.Event, max_retries: int = MAX_RETRIES,
                             base_delay: float = BASE_DELAY) -> None:
    """While the Agent's last reply is a transient failure, wait, drop it and continue
    the turn, at most max_retries times. Announces each wait (auto_retry_start) and the
    outcome (auto_retry_end), with pi's fields."""
    retries = 0
    while retries < max_retries and is_retryable(agent.messages[-1]):
        retries += 1
        failed = agent.messages[-1]
        delay = retry_delay(retries, failed, base_delay)
        agent.emit({"type": "auto_retry_start", "attempt": retries, "maxAttempts": max_retries,
                    "delayMs": round(delay * 1000),
                    "errorMessage": failed.get("errorMessage") or ""})
        if abort.wait(delay):
            break
        # The failed reply is useless to the model (possibly half a sentence); it is
        # dropped from the context so the retry starts from the same place.
        agent.messages.pop()
        agent.continue_(abort=abort)
    if not retries:
        return
    last = agent.messages[-1]
    if abort.is_set():
        agent.emit({"type": "auto_retry_end", "success": False, "attempt": retries,
                    "finalError": "Retry cancelled"})
    elif is_failed(last):
        agent.emit({"type": "auto_retry_end", "success": False, "attempt": retries,
                    "finalError": last.get("errorMessage")})
    else:
        agent.emit({"type": "auto_retry_end", "success": True, "attempt": retries})


def retry_delay(retry: int, failed: Message, base: float = BASE_DELAY) -> float:
    """Seconds to wait before retry number `retry` (from 1) after the reply `failed`: the
    server's own wait when it asked for one (its verdict's wait_s), else the backoff.

    Examples: (1, a 503 "Busy")                                     -> 1.5 .. 2
              (1, a 429 that came with retry-after: 5)              -> 5
    """
    asked = verdict_of(failed).wait_s
    return backoff_delay(retry, base) if asked is None else asked


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    """The backoff before retry number `retry` (from 1): `base` doubled for each retry
    before it, less up to a quarter at random.

    Examples (base 2): 1 -> 1.5 .. 2,  2 -> 3 .. 4,  3 -> 6 .. 8
    """
    return base * 2 ** (retry - 1) * (1 - MAX_JITTER * random.random())


def retry_base_delay() -> float:
    """The first retry's delay: MINIAGENT_RETRY_BASE_DELAY seconds (tests make it short)."""
    try:
        return float(os.environ.get("MINIAGENT_RETRY_BASE_DELAY", BASE_DELAY))
    except ValueError:
        return BASE_DELAY


def is_retryable(message: Message) -> bool:
    """Should a failed assistant message be retried? Only a failed reply (stopReason
    "error", not an abort) whose verdict says it passes. Examples, by errorMessage:

        "529 Overloaded"                                  -> True
        "stream ended before the response was complete"   -> True
        "Connection error: ... (connection reset)"        -> True
        "Connection error: ... (connection refused) (not retried: no server has
         answered at this address yet)"                   -> False (final)
        "501 Not Implemented"                             -> False (final)
        "429 You exceeded your current quota ..."         -> False (quota)
        "400 prompt is too long: 213462 tokens > 200000"  -> False (overflow)
    """
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    return verdict_of(message).retryable
