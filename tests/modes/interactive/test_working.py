"""The working line (working.py): what the status line says when nothing else does."""

from miniagent.modes.interactive.working import WorkingLine

RETRY = {"delayMs": 2500, "attempt": 2, "maxAttempts": 3}


def test_working_counts_from_the_first_start_until_the_end():
    line = WorkingLine()
    assert line.status(5.0) is None
    line.start(10.0)
    line.start(20.0)  # a retry's request: the run's clock goes on
    assert line.status(30.0) == ("working", 10.0)
    line.end()
    assert line.status(31.0) is None


def test_a_retry_wait_is_counted_down_in_whole_seconds_then_working_again():
    line = WorkingLine()
    line.start(0.0)
    line.retry(RETRY, 10.0)
    assert line.status(10.2) == ("retrying in 3s (2 of 3)", None)
    assert line.status(12.6) == ("retrying in 0s (2 of 3)", None)
    line.start(12.6)  # the retry's request
    assert line.status(13.0) == ("working", 0.0)
