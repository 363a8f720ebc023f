"""When a run is over: agent_end's willRetry forecasts the harness's next step, and
agent_settled follows the prompt's last agent_end (harness/lifecycle.py)."""

from functools import partial
import threading

from helpers import make_agent, text
from miniagent.harness.harness import Harness

FAILED = {"content": [], "errorMessage": "503 overloaded"}


def test_with_auto_retry_off_a_failure_is_final_and_says_so():
    harness = Harness(partial(make_agent, [FAILED, FAILED, {"content": [text("answer")]}]),
                      base_delay=0.001)
    agent = harness.agent
    events = []
    agent.subscribe(events.append)
    harness.set_auto_retry(False)
    assert harness.run("go")["errorMessage"] == "503 overloaded"
    assert [e["type"] for e in events if e["type"].startswith(("agent_", "auto_retry"))] == [
        "agent_start", "agent_end", "agent_settled"]
    assert not next(e for e in events if e["type"] == "agent_end")["willRetry"]
    harness.set_auto_retry(True)
    agent.messages.clear()
    events.clear()
    harness.run("again")
    assert [e["willRetry"] for e in events if e["type"] == "agent_end"] == [True, False]


def test_a_waiting_retry_is_known_and_an_abort_settles_it_as_aborted():
    harness = Harness(partial(make_agent, [FAILED, {"content": [text("never")]}]), base_delay=60)
    agent = harness.agent
    events = []
    agent.subscribe(events.append)
    waiting = threading.Event()
    agent.subscribe(lambda e: e["type"] == "auto_retry_start" and waiting.set())
    harness.prompt("go")
    assert waiting.wait(10) and harness.lifecycle.retry_waiting
    harness.abort()  # what rpc's abort_retry does while a retry waits
    assert harness.wait(5)  # the retry would have waited 60 s
    assert not harness.lifecycle.retry_waiting
    assert events[-1] == {"type": "agent_settled", "aborted": True}
