"""The one retry layer (docs/decisions.md D4): which failed replies are tried again, how
long the harness waits first, and what a server sees.

The decisions on their own first (EXERCISES.md step 6), then the harness against the
scripted server with the real transport: the number of requests that reach the server
and the events that announce the waits. Waits are made tiny with base_delay; a wait the
server asks for is cut short by abort, so nothing here sleeps.
"""

from functools import partial
import ast
import socket
import threading
from pathlib import Path

import pytest

import miniagent

from fake_server import FakeServer, status
from miniagent.agent import Agent
from miniagent.harness.harness import Harness
from miniagent.harness.reply_retry import backoff_delay, is_retryable, retry_delay
from miniagent.http.transport import SHARED_SESSION
from miniagent.core.provider import Model


def failed(error):
    return {"role": "assistant", "stopReason": "error", "errorMessage": error}


# --- The decisions --------------------------------------------------------------------------


@pytest.mark.ex_retry
def test_transient_failures_are_retried():
    for text in ["529 Overloaded", "520 Web server returned an unknown error",
                 "429 Rate limit reached for requests", "408 Request Timeout", "502 Bad Gateway",
                 "503 Busy (the server asks to wait 2 s)", "400 Try later (the server asks to retry)",
                 "stream ended before the response was complete",
                 "Connection error: could not reach http://x (connection reset by the server)",
                 "Connection error: could not reach http://x (connection refused)",
                 "Request timed out: http://x sent no response within 600 s",
                 "Overloaded (overloaded_error)"]:
        assert is_retryable(failed(text)), text


@pytest.mark.ex_retry
def test_final_failures_overflows_and_other_outcomes_are_not():
    for text in ["501 Not Implemented", "505 HTTP Version Not Supported", "401 Invalid API key",
                 "404 model not found", "400 Invalid 'max_tokens': got 500 instead",
                 "429 You exceeded your current quota, check billing",
                 "400 prompt is too long: 213462 tokens > 200000 maximum",
                 # an overflow behind a status that alone would be retried: compaction's
                 "500 Internal Server Error: the input exceeds the context window",
                 "503 Busy (not retried: the server said not to)",
                 "Connection error: could not reach http://x (connection refused) (not retried: "
                 "no server has answered at this address yet)",
                 "The model declined to answer (stop_reason: refusal)",
                 "The request was refused by the content policy"]:
        assert not is_retryable(failed(text)), text
    assert not is_retryable({"role": "assistant", "stopReason": "aborted",
                             "errorMessage": "connection reset"})
    assert not is_retryable({"role": "assistant", "stopReason": "stop", "content": []})


@pytest.mark.ex_retry
def test_backoff_doubles_from_the_base_less_up_to_a_quarter():
    for _ in range(200):
        assert 1.5 <= backoff_delay(1) <= 2.0
        assert 3.0 <= backoff_delay(2) <= 4.0
        assert 6.0 <= backoff_delay(3) <= 8.0
        assert 0.075 <= backoff_delay(1, base=0.1) <= 0.1
    assert len({backoff_delay(1) for _ in range(20)}) > 1  # jittered: clients out of step


@pytest.mark.ex_retry
def test_the_servers_wait_replaces_the_backoff():
    assert retry_delay(1, failed("429 Slow down (the server asks to wait 5 s)")) == 5
    assert retry_delay(3, failed("503 Busy (the server asks to wait 0.25 s)"), base=0.001) == 0.25
    assert 3.0 <= retry_delay(2, failed("503 Busy")) <= 4.0


# --- The harness against a server -------------------------------------------------------------


def model_at(url):
    return Model("test-model", "test", "openai-completions", url + "/v1")


def run_against(turns, base_delay=0.001):
    """One prompt through a Harness over HTTP: (the last message, the retry events,
    the requests the server saw)."""
    with FakeServer(turns) as srv:
        harness = Harness(partial(Agent, model=model_at(srv.base_url)), base_delay=base_delay)
        events = []
        harness.agent.subscribe(lambda e: e["type"].startswith("auto_retry") and events.append(e))
        last = harness.run("go")
        return last, events, srv.requests


ANSWER = {"content": [{"type": "text", "text": "answer"}]}


def test_a_server_always_answering_500_gets_4_requests_and_one_counter():
    last, events, requests = run_against([status(500, body="boom")] * 6)
    assert len(requests) == 4
    starts = [e for e in events if e["type"] == "auto_retry_start"]
    assert [(e["attempt"], e["maxAttempts"]) for e in starts] == [(1, 3), (2, 3), (3, 3)]
    assert [e["errorMessage"] for e in starts] == ["500 boom"] * 3
    assert events[-1] == {"type": "auto_retry_end", "success": False, "attempt": 3,
                          "finalError": "500 boom"}
    assert last["errorMessage"] == "500 boom"


def test_a_retry_that_succeeds_ends_with_success():
    last, events, requests = run_against([status(503, body="busy"), ANSWER])
    assert last["content"] == [{"type": "text", "text": "answer"}] and len(requests) == 2
    assert events[-1] == {"type": "auto_retry_end", "success": True, "attempt": 1}


def test_a_servers_words_cannot_pass_for_our_marks():
    # The verdict travels as data: a body that happens to hold the words we write for
    # people neither makes a 503 final nor sets the wait (60 s would exceed the bound).
    forged = [status(503, body="down (not retried: maintenance)"),
              status(503, body="busy (the server asks to wait 59 s)"), ANSWER]
    last, events, requests = run_against(forged)
    assert len(requests) == 3 and last["content"] == [{"type": "text", "text": "answer"}]
    assert [e["delayMs"] < 1000 for e in events if e["type"] == "auto_retry_start"] == [True] * 2


@pytest.mark.parametrize("turn", [
    status(501, body="Not Implemented"), status(505), status(404), status(400, body="bad"),
    status(429, body={"error": {"message": "You exceeded your current quota",
                                "code": "insufficient_quota"}}),
    status(500, body={"error": {"code": 500, "message": "tools param requires --jinja flag",
                                "type": "server_error"}})])
def test_a_final_failure_is_one_request_and_no_wait(turn):
    # A base delay of 60 s: a test that waited once would not end within run_cli's bound.
    last, events, requests = run_against([turn, ANSWER], base_delay=60)
    assert len(requests) == 1 and events == [] and last["stopReason"] == "error"


def test_a_retry_after_of_2_s_is_the_wait_and_abort_ends_it():
    turns = [status(429, {"retry-after": "2"}, {"error": {"message": "Slow down"}}), ANSWER]
    with FakeServer(turns) as srv:
        harness = Harness(partial(Agent, model=model_at(srv.base_url)), base_delay=60)
        agent = harness.agent
        starts = []
        agent.subscribe(lambda e: e["type"] == "auto_retry_start" and starts.append(e))
        agent.subscribe(lambda e: e["type"] == "auto_retry_start" and harness.abort())
        harness.prompt("go")
        assert harness.wait(30)  # the base delay would have been 60 s
        assert len(srv.requests) == 1
    assert starts[0]["delayMs"] == 2000
    assert starts[0]["errorMessage"] == "429 Slow down (the server asks to wait 2 s)"


def free_port():
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_to_a_server_never_reached_is_final_at_once():
    harness = Harness(partial(Agent, model=model_at(f"http://127.0.0.1:{free_port()}")),
                      base_delay=60)
    events = []
    harness.agent.subscribe(lambda e: e["type"].startswith("auto_retry") and events.append(e))
    last = harness.run("go")  # one wait would exceed the bound
    assert "(connection refused; is the server running?)" in last["errorMessage"]
    assert events == []


def test_a_refused_connection_after_an_earlier_answer_is_retried():
    with FakeServer([ANSWER]) as srv:
        harness = Harness(partial(Agent, model=model_at(srv.base_url)), base_delay=0.001)
        agent = harness.agent
        assert harness.run("first")["stopReason"] == "stop"
    SHARED_SESSION.close()  # the kept-alive connection goes: the next request must connect
    events = []
    agent.subscribe(lambda e: e["type"].startswith("auto_retry") and events.append(e))
    last = harness.run("second")  # the server is gone: restarting, perhaps
    assert "connection refused" in last["errorMessage"]
    assert [e["attempt"] for e in events if e["type"] == "auto_retry_start"] == [1, 2, 3]


def test_abort_during_the_wait_cancels_the_retry():
    with FakeServer([status(503), ANSWER]) as srv:
        harness = Harness(partial(Agent, model=model_at(srv.base_url)), base_delay=60)
        agent = harness.agent
        events = []
        agent.subscribe(lambda e: e["type"].startswith("auto_retry") and events.append(e))
        waiting = threading.Event()
        agent.subscribe(lambda e: e["type"] == "auto_retry_start" and waiting.set())
        harness.prompt("go")
        assert waiting.wait(10)
        harness.abort()
        assert harness.wait(5)  # the retry would have waited 45 s or more
        assert len(srv.requests) == 1
    assert events[-1] == {"type": "auto_retry_end", "success": False, "attempt": 1,
                          "finalError": "Retry cancelled"}


# --- The rule: the verdict is read, the words are not -------------------------------------------

PACKAGE = Path(miniagent.__file__).parent
TEXT_TESTS = {"search", "match", "fullmatch", "findall", "startswith", "endswith", "find"}
WORD_READERS = {"is_final", "asked_wait", "retry_asked", "judge", "is_overflow", "is_quota_error",
                "TRANSIENT_WORDS", "OVERFLOW"}


def reads_words(function: ast.AST) -> bool:
    """Does this function test a text: a regex, `"x" in text`, or a string method?"""
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id == "re":
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in TEXT_TESTS:
            return True
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn))
                                                 for op in node.ops):
            return True
    return False


def test_harness_and_compaction_read_the_verdict_never_the_error_text():
    """Outside http/ and providers/ no code matches an errorMessage to decide a retry, a
    wait or an overflow (docs/decisions.md D3, D4)."""
    offenders = []
    for folder in ("harness", "compaction"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        "errorMessage" in ast.unparse(node) and reads_words(node):
                    offenders.append(f"{folder}/{path.name}: {node.name}")
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(("http/", "providers/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("classify"):
                offenders += [f"{relative} imports {alias.name}" for alias in node.names
                              if alias.name in WORD_READERS]
    assert offenders == []
