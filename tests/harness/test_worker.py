"""The worker: the one thread a run gets, its abort Event, its wait, its outcome."""

from functools import partial
import pathlib
import re
import threading

import pytest

from helpers import call, echo_tool, make_agent, text
from miniagent.harness.harness import Harness
from miniagent.harness.worker import Worker, WorkerBusyError

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "miniagent"


def test_work_runs_on_another_thread_and_its_result_comes_back():
    worker = Worker()
    worker.start(lambda abort: threading.current_thread())
    assert worker.wait(10)
    assert worker.outcome() is not threading.current_thread()


def test_what_the_work_raises_is_raised_by_outcome():
    worker = Worker()
    worker.start(lambda abort: 1 / 0)
    assert worker.wait(10)
    with pytest.raises(ZeroDivisionError):
        worker.outcome()


def test_one_piece_of_work_at_a_time_and_abort_stops_it():
    worker = Worker()
    started = threading.Event()
    worker.start(lambda abort: started.set() or abort.wait(60))
    assert started.wait(10)
    with pytest.raises(WorkerBusyError):
        worker.start(lambda abort: None)
    worker.abort()
    assert worker.wait(5)  # the work would have waited 60 s
    assert worker.outcome() is True


def test_each_start_gets_a_fresh_abort():
    worker = Worker()
    worker.abort()  # a Ctrl-C while idle must not stop the next run
    worker.start(lambda abort: abort.is_set())
    assert worker.wait(10) and worker.outcome() is False


def test_a_harness_prompt_runs_the_agent_on_the_worker_and_returns_at_once():
    release = threading.Event()
    threads = []

    def blocking(call_id, args, ctx):
        threads.append(threading.current_thread())
        release.wait(10)
        return echo_tool().execute(call_id, args, ctx)

    harness = Harness(partial(make_agent, [{"content": [call("echo", v="x")]},
                                           {"content": [text("ok")]}],
                              [echo_tool(execute=blocking, sequential=True)]))
    agent = harness.agent
    harness.prompt("go")
    assert not harness.wait(0)  # still running: prompt() did not wait for it
    release.set()
    assert harness.wait(10)
    assert agent.messages[-1]["content"] == [text("ok")]
    assert threads and threads[0] is not threading.current_thread()


# Every thread miniagent starts, and its role. A run gets the worker's thread only; the
# others serve HTTP reads and their abort, parallel tool calls, the summariser's two
# requests, rpc's stdin reader and its commands answered later, and MCP: each server's
# connecting and closing, a child server's stdout and stderr readers, an HTTP server's
# event streams (one reader each), and a server's requests and notifications handled
# off the reader, and an eval's workers (each waits on its trials' child processes). The
# core's plain bash has its own: its output reader.
# (The terminal's spinner needs none: the REPL's main thread redraws it between keys.)
THREAD_STARTERS = {"harness/worker.py": 1, "http/transport.py": 2, "core/toolcalls.py": 1,
                   "compaction/compaction.py": 1, "modes/rpc/rpc_mode.py": 2,
                   "mcp/servers.py": 2, "mcp/stdio.py": 2, "mcp/jsonrpc.py": 3,
                   "mcp/http.py": 1, "evals/runner.py": 1, "core/bash.py": 1,
                   "extensions/background.py": 1, "extensions/subagents/child.py": 1}


def test_no_module_starts_a_thread_of_its_own_for_the_run():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        count = len(re.findall(r"\bThread\(|ThreadPoolExecutor\(", path.read_text()))
        if count:
            found[path.relative_to(PACKAGE).as_posix()] = count
    assert found == THREAD_STARTERS
