"""toolcalls: the file queue with the core alone (docs/decisions.md D8). A tool that
declares the file it writes (Tool.paths) has its calls on one file run in the order of
the calls, and its calls on two files run at once. The product's read, write and edit
in the queue: tests/tools/test_call_order.py; the rest of toolcalls.py is tested
through the loop (test_loop.py)."""

import os
import threading

from core_helpers import call, make_agent, text
from miniagent.core import toolcalls
from miniagent.core.tools import Tool, text_result

BOUND = 10  # seconds: a generous bound on waits that end at once when all is well
SCHEMA = {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}}


def appender(execute):
    """A tool that writes the file named by `path` (declared, so the queue sees it)."""
    return Tool("append", "Append to a file.", SCHEMA, execute,
                paths=lambda args, cwd: ([], [os.path.join(cwd, args["path"])]))


def run_reply(tmp_path, paths, execute):
    calls = [{**call("append", path=path), "id": f"c{index}"} for index, path in enumerate(paths)]
    agent = make_agent([{"content": calls}, {"content": [text("done")]}], [appender(execute)],
                       cwd=str(tmp_path))
    agent.prompt("go")
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "toolResult"]


def test_calls_that_write_one_file_run_in_the_order_of_the_calls(tmp_path, monkeypatch):
    log = []
    moved = threading.Event()  # the second call reached the queue, or (wrongly) started
    wait_for_turn = toolcalls._wait_for_turn

    def arrive_then_wait(queued):
        if queued.block["id"] == "c1":
            moved.set()
        wait_for_turn(queued)

    def execute(call_id, args, ctx):
        log.append(f"start {call_id}")
        if call_id == "c1":
            moved.set()
        else:  # hold on until the second call moved: one that does not wait starts now
            assert moved.wait(BOUND)
        log.append(f"end {call_id}")
        return text_result(call_id)

    monkeypatch.setattr(toolcalls, "_wait_for_turn", arrive_then_wait)
    assert run_reply(tmp_path, ["x.txt", "./x.txt"], execute) == ["c0", "c1"]
    assert log == ["start c0", "end c0", "start c1", "end c1"]


def test_calls_that_write_two_files_run_at_once(tmp_path):
    meeting = threading.Barrier(2, timeout=BOUND)

    def execute(call_id, args, ctx):
        meeting.wait()  # a call queued behind the other would break the barrier: an error
        return text_result(call_id)

    assert run_reply(tmp_path, ["a.txt", "b.txt"], execute) == ["c0", "c1"]
