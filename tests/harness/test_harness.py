"""The harness's retry (docs/decisions.md D4): transient failures are retried from scratch."""

from functools import partial
import threading

from helpers import make_agent, text
from miniagent.harness.harness import Harness


def test_a_transient_failure_is_retried_and_the_failed_reply_dropped():
    harness = Harness(partial(make_agent, [
        {"content": [text("half a sen")], "errorMessage": "503 overloaded"},
        {"content": [text("whole answer")]}]), base_delay=0.001)
    agent = harness.agent
    events = []
    agent.subscribe(events.append)
    last = harness.run("go")
    assert last["content"] == [text("whole answer")]
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]
    retry = [e for e in events if e["type"].startswith("auto_retry")]
    assert [e["type"] for e in retry] == ["auto_retry_start", "auto_retry_end"]
    assert retry[0]["attempt"] == 1 and retry[0]["errorMessage"] == "503 overloaded"
    assert retry[1]["success"] is True


def test_retries_stop_after_three_attempts():
    turns = [{"content": [], "errorMessage": "500 internal error"}] * 5
    harness = Harness(partial(make_agent, turns), base_delay=0.01)
    events = []
    harness.agent.subscribe(events.append)
    last = harness.run("go")
    assert last["stopReason"] == "error"
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [e["attempt"] for e in starts] == [1, 2, 3]
    # Doubling from the base delay, less up to a quarter (jitter): 10, 20, 40 ms at most.
    assert [7 <= e["delayMs"] // (2 ** n) <= 10 for n, e in enumerate(starts)] == [True] * 3
    assert events[-2]["type"] == "auto_retry_end" and events[-2]["success"] is False
    # Each failed run says whether another follows; the last event says it is over.
    ends = [e["willRetry"] for e in events if e["type"] == "agent_end"]
    assert ends == [True, True, True, False]
    assert events[-1] == {"type": "agent_settled", "aborted": False}


def test_abort_cancels_the_wait_before_a_retry():
    harness = Harness(partial(make_agent, [{"content": [], "errorMessage": "503 overloaded"},
                                           {"content": [text("never")]}]), base_delay=60)
    agent = harness.agent
    events = []
    agent.subscribe(events.append)
    waiting = threading.Event()
    agent.subscribe(lambda e: e["type"] == "auto_retry_start" and waiting.set())
    harness.prompt("go")
    assert waiting.wait(10)
    harness.abort()
    assert harness.wait(5)  # the retry would have waited 60 s
    assert agent.messages[-1]["stopReason"] == "error"
    end = events[-2]
    assert end["type"] == "auto_retry_end" and end["success"] is False
    assert end["finalError"] == "Retry cancelled"
    assert events[-1] == {"type": "agent_settled", "aborted": True}
