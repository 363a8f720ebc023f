"""A wrong solution of EXERCISES.md step 6 (ex_retry): the verdict alone decides, so an
aborted reply whose text reads "connection reset" is retried after the user stopped it.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/harness/reply_retry.py"
CLASS = None


def backoff_delay(retry: int, base: float = BASE_DELAY) -> float:
    return base * 2 ** (retry - 1) * (1 - MAX_JITTER * random.random())


def is_retryable(message: Message) -> bool:
    return bool(message.get("errorMessage")) and verdict_of(message).retryable
