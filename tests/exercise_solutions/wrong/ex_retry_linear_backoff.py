"""A wrong solution of EXERCISES.md step 6 (ex_retry): the delay grows by the base each
retry (2, 4, 6) instead of doubling (2, 4, 8).
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * retry * (1 - MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    return verdict_of(message).retryable
