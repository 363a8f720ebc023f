"""The harness: what turns an Agent into something you can leave running.

The Agent runs one prompt and stops at the first failure. Real servers fail all the
time in small ways: a 529 "overloaded", a rate limit, a connection that drops halfway
through a reply. The HTTP layer (retry.py) already retries a request that failed
*before* any reply arrived, twice, within a second or so. A reply that breaks *after*
it started streaming cannot be resumed, so it is retried here, one level up, from
scratch; and so is a failure the HTTP layer gave up on, after a longer pause (a server
that is down for a few seconds). As in pi, a server that always answers 503 therefore
sees 3 x 4 = 12 requests over about 20 s before the run reports the error:

    run the prompt
    while the last message is a transient error and retries remain:
        announce auto_retry_start, wait 2 s, 4 s, 8 s (abort cancels the wait)
        drop the failed message from the model's context
        continue the run from the message before it
    announce auto_retry_end

What counts as transient (decision 4 of the spec): overloaded, rate limits, 429 and
5xx statuses, connection resets and refusals, timeouts, a stream that ended before the
response was complete. Never retried: what the HTTP layer already called final
(`retry.is_final`: a 4xx other than 408/409/429, quota and billing errors, a server
that said not to retry or asked for a wait over 60 s) and context overflow (the
sessions issue answers that with compaction).

Left out (later issues): persisting to a session file, compaction. They hook into the
same place: the events of the Agent this harness wraps.
"""

import re
import threading
from typing import Optional

from .agent import Agent
from .messages import Message, is_failed
from .retry import is_final, wait_or_abort

MAX_RETRIES = 3
BASE_DELAY = 2.0  # seconds; doubles each retry: 2, 4, 8

TRANSIENT = re.compile(
    r"overloaded|rate.?limit|too many requests|\b(429|5\d\d)\b|"
    r"service.?unavailable|server.?error|internal.?error|connection|econnreset|"
    r"timed? ?out|timeout|stream ended|terminated|other side closed", re.IGNORECASE)
OVERFLOW = re.compile(
    r"prompt is too long|context.?(length|window|size)|maximum context|too many tokens|"
    r"token limit exceeded|reduce the length", re.IGNORECASE)


def is_retryable(message: Message) -> bool:
    """Should a failed assistant message be retried?

    Examples:
        "529 Overloaded"                                  -> True
        "stream ended before the response was complete"   -> True
        "429 You exceeded your current quota ..."         -> False (quota)
        "400 prompt is too long: 213462 tokens > 200000"  -> False (overflow)
        "401 Invalid API key"                             -> False
        "400 ... but got 500 instead"                     -> False (a 4xx is final)
    """
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    text = message.get("errorMessage") or ""
    if is_final(text):  # the HTTP layer already decided: a 4xx, quota, "do not retry"
        return False
    return bool(TRANSIENT.search(text)) and not OVERFLOW.search(text)


class Harness:
    """Runs prompts on an Agent with automatic retry; the front ends talk to this."""

    def __init__(self, agent: Agent, max_retries: int = MAX_RETRIES,
                 base_delay: float = BASE_DELAY):
        self.agent = agent
        self.max_retries = max_retries
        self.base_delay = base_delay
        self._abort = threading.Event()
        self._done = threading.Event()  # waited on instead of join(): see Agent.wait
        self._done.set()

    def prompt(self, text: str) -> None:
        """Start the prompt (and any retries) on a worker thread; see wait()."""
        self._abort = threading.Event()
        self._done.clear()
        threading.Thread(target=self._run_then_signal, args=(text,), daemon=True,
                         name="miniagent-harness").start()

    def _run_then_signal(self, text: str) -> None:
        try:
            self.run(text)
        finally:
            self._done.set()

    def run(self, text: str) -> Message:
        """Run the prompt to its end in this thread; returns the last message."""
        self.agent.prompt(text, inline=True)
        attempt, cancelled = 0, False
        while attempt < self.max_retries and is_retryable(self.agent.messages[-1]):
            attempt += 1
            cancelled = not self._retry(attempt)
            if cancelled:
                break
        if attempt:
            last = self.agent.messages[-1]
            success = not cancelled and not is_failed(last)
            self.agent.emit({"type": "auto_retry_end", "attempt": attempt, "success": success,
                             "finalError": "Retry cancelled" if cancelled
                             else last.get("errorMessage")})
        return self.agent.messages[-1]

    def _retry(self, attempt: int) -> bool:
        """Wait, drop the failed message and continue; False if abort cancelled the wait."""
        failed = self.agent.messages[-1]
        delay = self.base_delay * 2 ** (attempt - 1)
        self.agent.emit({"type": "auto_retry_start", "attempt": attempt,
                         "maxAttempts": self.max_retries, "delayMs": int(delay * 1000),
                         "errorMessage": failed.get("errorMessage")})
        if wait_or_abort(delay, self._abort):
            return False
        # The failed reply is useless to the model (possibly half a sentence); it is
        # dropped from the context so the retry starts from the same place.
        self.agent.messages.pop()
        self.agent.continue_(inline=True)
        return True

    def abort(self) -> None:
        """Stop the run, or the wait before a retry, at once."""
        self._abort.set()
        self.agent.abort()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the prompt and its retries are done; False on timeout."""
        return self._done.wait(timeout)
