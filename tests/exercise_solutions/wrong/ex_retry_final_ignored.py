"""A wrong solution of EXERCISES.md step 6 (ex_retry): the HTTP layer's verdict is not read, so
a 400 whose text holds "500" is tried again, and so is a 501.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * 2 ** (retry - 1) * (1 - MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    if message.get("role") != "assistant" or message.get("stopReason") != "error":
        return False
    text = message.get("errorMessage") or ""
    if is_context_overflow(message):
        return False
    return retry_asked(text) or bool(TRANSIENT.search(text))
