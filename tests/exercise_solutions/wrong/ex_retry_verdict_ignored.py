"""A wrong solution of EXERCISES.md step 6 (ex_retry): every failed reply is retried and the
HTTP layer's verdict is not read, so a 400, a 501 and a context overflow are tried again.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * 2 ** (retry - 1) * (1 - MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    return message.get("role") == "assistant" and message.get("stopReason") == "error"
