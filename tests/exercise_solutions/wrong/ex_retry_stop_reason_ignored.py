"""A wrong solution of EXERCISES.md step 6 (ex_retry): the error text alone decides, so an
aborted reply whose text reads "connection reset" is retried after the user stopped it.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * 2 ** (retry - 1) * (1 - MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    text = message.get("errorMessage") or ""
    if not text or is_final(text) or is_context_overflow(message):
        return False
    return retry_asked(text) or bool(TRANSIENT.search(text))
