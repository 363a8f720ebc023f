"""A second correct solution of EXERCISES.md step 6 (ex_retry): the jitter subtracted
from the full delay, and the retry decision written as one expression. Spliced into a
copy of the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    """The backoff before retry number `retry` (from 1), jittered."""
    full = base * pow(2, retry - 1)
    return full - full * MAX_JITTER * random.random()


def is_retryable(message: Message) -> bool:
    """Should a failed assistant message be retried?"""
    failed = (message.get("role"), message.get("stopReason")) == ("assistant", "error")
    return failed and verdict_of(message).retryable
