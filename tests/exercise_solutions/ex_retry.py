"""A second correct solution of EXERCISES.md step 6 (ex_retry): the jitter subtracted
from the full delay, and the two headers read by a small helper. Spliced into a copy
of the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/http/retry.py"
CLASS = None


def backoff_delay(attempt: int, base: float = 0.5) -> float:
    """Seconds to wait before retry number attempt+1 (attempt counts from 0)."""
    full = min(8.0, base * pow(2, attempt))
    return full - full * random.random() / 4


def server_retry_delay(headers) -> Optional[float]:
    """The wait the server asked for, in seconds, or None if it asked for none."""
    def seconds(text, per_second):
        try:
            return float(text) / per_second
        except (TypeError, ValueError):
            return None

    millis, value = headers.get("retry-after-ms"), headers.get("retry-after")
    delay = seconds(millis, 1000) if millis else seconds(value, 1)
    if delay is None:
        try:  # an HTTP date, or garbage
            delay = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    if not math.isfinite(delay) or delay <= 0:
        return None
    return delay
