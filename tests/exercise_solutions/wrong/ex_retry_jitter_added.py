"""A wrong solution of EXERCISES.md step 6 (ex_retry): the jitter added on top of the doubled
delay instead of taken off it: waits run past the promised bound.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * 2 ** (retry - 1) * (1 + MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    return verdict_of(message).retryable
