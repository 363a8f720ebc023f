"""The Agent: a run in the caller's thread, busy errors, abort, continue, queues, the bus."""

import ast
import threading
from pathlib import Path

import pytest

import miniagent
from core_helpers import answer, call, echo_tool, make_agent, text
from miniagent.core.agent import AgentBusyError


def in_a_thread(target):
    """Start `target` on a thread of the test's own: the Agent starts none."""
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_prompt_runs_in_the_callers_thread_and_returns_after_the_run():
    threads = []

    def record_thread(call_id, args, ctx):
        threads.append(threading.current_thread())
        return echo_tool().execute(call_id, args, ctx)

    agent = make_agent([{"content": [call("echo", v="x")]}, {"content": [text("ok")]}],
                       [echo_tool(execute=record_thread, sequential=True)])
    seen = []
    agent.subscribe(lambda event: seen.append(threading.current_thread()))
    agent.prompt("go")
    assert agent.messages[-1]["content"] == [text("ok")]  # the run is over on return
    assert not agent.is_running
    assert set(seen) == set(threads) == {threading.current_thread()}


def test_a_second_prompt_while_one_runs_is_refused():
    started = threading.Event()
    release = threading.Event()

    def blocking(call_id, args, ctx):
        started.set()
        release.wait(10)
        return echo_tool().execute(call_id, args, ctx)

    agent = make_agent([{"content": [call("echo", v="x")]}, {"content": [text("ok")]}],
                       [echo_tool(execute=blocking)])
    runner = in_a_thread(lambda: agent.prompt("go"))
    assert started.wait(10) and agent.is_running
    with pytest.raises(AgentBusyError, match="steer"):
        agent.prompt("again")
    with pytest.raises(AgentBusyError):
        agent.continue_()
    release.set()
    runner.join(10)
    assert not agent.is_running and agent.messages[-1]["content"] == [text("ok")]


def test_abort_from_another_thread_during_streaming_keeps_an_aborted_message():
    agent = make_agent([{"content": [text("a b c d e f g h i j k l")], "delayMs": 60000}])
    agent.subscribe(lambda e: e["type"] == "message_start" and
                    e["message"]["role"] == "assistant" and in_a_thread(agent.abort))
    agent.prompt("go")  # returns once aborted: the scripted delay was 60 s per word
    last = agent.messages[-1]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"


def test_an_abort_event_given_to_prompt_stops_the_run():
    agent = make_agent([{"content": [text("a b c d e f g h i j k l")], "delayMs": 60000}])
    stop = threading.Event()
    agent.subscribe(lambda e: e["type"] == "message_start" and
                    e["message"]["role"] == "assistant" and stop.set())
    agent.prompt("go", abort=stop)
    assert agent.messages[-1]["stopReason"] == "aborted"


def test_continue_after_a_tool_result_and_from_queued_messages():
    agent = make_agent([{"content": [text("one")]}, {"content": [text("two")]}])
    with pytest.raises(ValueError, match="no messages"):
        agent.continue_()
    agent.prompt("go")
    with pytest.raises(ValueError, match="assistant"):
        agent.continue_()
    agent.follow_up("more")
    agent.continue_()
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]


def test_queue_mode_all_delivers_every_queued_message_at_once():
    agent = make_agent([{"content": [text("one")]}, {"content": [text("two")]}])
    agent.follow_up_mode = "all"
    agent.follow_up("a")
    agent.follow_up("b")
    agent.prompt("go")
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "user",
                                                   "assistant"]


def test_a_raising_subscriber_is_reported_once_and_does_not_stop_the_run(capsys):
    agent = make_agent([{"content": [call("echo", v="x")]}, {"content": [text("done")]}],
                       [echo_tool()])
    seen = []

    def broken(event):
        raise RuntimeError("display bug")

    agent.subscribe(broken)
    agent.subscribe(seen.append)
    agent.prompt("go")
    assert agent.messages[-1]["content"] == [text("done")]
    assert seen[-1]["type"] == "agent_end"
    err = capsys.readouterr().err
    assert err.count("event subscriber") == 1 and "broken" in err and "display bug" in err


def test_a_provider_that_raises_still_ends_the_run_with_a_message(events):
    def broken_stream(model, context, options):
        raise ConnectionError("socket exploded")
        yield  # pragma: no cover - makes this a generator

    agent = make_agent([], stream_fn=broken_stream)
    agent.subscribe(events.append)
    agent.prompt("go")
    last = agent.messages[-1]
    assert last["stopReason"] == "error" and "socket exploded" in last["errorMessage"]
    assert events[-1]["type"] == "agent_end"
    assert not agent.is_running


CALLBACKS = {"should_stop", "will_retry", "between_turns", "convert_to_llm"}


def test_the_agents_callbacks_come_through_its_constructor_and_nothing_assigns_them_later():
    package = Path(miniagent.__file__).parent
    assigned = []
    for path in sorted(package.rglob("*.py")):
        if path == package / "core" / "agent.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            assigned += [f"{path.relative_to(package)}: .{target.attr}" for target in targets
                         if isinstance(target, ast.Attribute) and target.attr in CALLBACKS]
    assert assigned == []
    stops = []
    agent = make_agent([answer("never")], should_stop=lambda: stops.append(1) or True)
    agent.prompt("go")
    assert stops == [1] and agent.messages[-1]["role"] == "user"  # asked once, then stopped
