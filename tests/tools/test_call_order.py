"""The product's read, write and edit in the file queue of core/toolcalls.py (docs/decisions.md D8). Calls of one reply that share a file,
one of them writing it, run in the order of the calls; calls on other files, and two reads
of one file, still run at once. The rest of toolcalls.py is tested through the loop
(tests/core/test_loop.py); tests/core/test_toolcalls.py holds the queue with the core alone."""

import threading
from dataclasses import replace

from helpers import call, make_agent, text
from miniagent.core import toolcalls
from miniagent.tools import create_tools

BOUND = 10  # seconds: a generous bound on waits that end at once when all is well


def tool_call(index, name, **arguments):
    """A call with a known id (c0, c1, ...), so a test can tell the calls apart."""
    return {**call(name, **arguments), "id": f"c{index}"}


def run_reply(tmp_path, calls, tools):
    """Run one reply holding `calls` in tmp_path; the texts of its results, in order."""
    agent = make_agent([{"content": calls}, {"content": [text("done")]}], tools,
                       cwd=str(tmp_path))
    agent.prompt("go")
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "toolResult"]


def run_holding_each_call(tmp_path, calls, monkeypatch):
    """Run the real read, write and edit, logging when each call starts and ends running.

    Each call but the last holds on, before it runs, until the next call has either
    reached the queue (where it must wait for this one) or started running (it did
    not wait). So a next call that does not wait starts while this one runs, on every
    run, and the log shows it; left to the threads, that would happen once in a while.
    """
    ids = [block["id"] for block in calls]
    moved = {call_id: threading.Event() for call_id in ids}
    log = []
    wait_for_turn = toolcalls._wait_for_turn

    def arrive_then_wait(queued):
        moved[queued.block["id"]].set()
        wait_for_turn(queued)

    def held(tool):
        def execute(call_id, args, ctx):
            moved[call_id].set()
            log.append(f"start {call_id}")
            following = ids[ids.index(call_id) + 1:]
            if following:
                assert moved[following[0]].wait(BOUND)
            try:
                return tool.execute(call_id, args, ctx)
            finally:
                log.append(f"end {call_id}")
        return replace(tool, execute=execute)

    monkeypatch.setattr(toolcalls, "_wait_for_turn", arrive_then_wait)
    texts = run_reply(tmp_path, calls, [held(tool) for tool in
                                        create_tools(["read", "write", "edit"])])
    return log, texts


def in_call_order(count):
    """The log of `count` calls that ran one after the other, in the order of the calls."""
    return [f"{moment} c{index}" for index in range(count) for moment in ("start", "end")]


def test_read_write_edit_of_one_file_run_in_call_order(tmp_path, monkeypatch):
    # Issue 30: the edit sometimes ran before the write and found no file.
    log, texts = run_holding_each_call(tmp_path, [
        tool_call(0, "read", path="x.txt"),
        tool_call(1, "write", path="x.txt", content="old\n"),
        tool_call(2, "edit", path="x.txt", edits=[{"oldText": "old", "newText": "new"}])],
        monkeypatch)
    assert log == in_call_order(3)
    assert "not found" in texts[0].lower()  # the read came first: no file yet
    assert texts[1].startswith("Wrote 4 bytes") and texts[2].startswith("Edited")
    assert (tmp_path / "x.txt").read_text() == "new\n"


def test_write_edit_read_of_one_file_run_in_call_order(tmp_path, monkeypatch):
    log, texts = run_holding_each_call(tmp_path, [
        tool_call(0, "write", path="x.txt", content="old\n"),
        tool_call(1, "edit", path="x.txt", edits=[{"oldText": "old", "newText": "new"}]),
        tool_call(2, "read", path="x.txt")], monkeypatch)
    assert log == in_call_order(3)
    assert texts[2] == "new\n"  # the read sees the edit, never the file half-written


def test_two_edits_of_one_file_both_land(tmp_path, monkeypatch):
    # Run at once, the second read-modify-write would put back the file without the first.
    (tmp_path / "x.txt").write_text("a = 1\nb = 1\n")
    log, texts = run_holding_each_call(tmp_path, [
        tool_call(0, "edit", path="x.txt", edits=[{"oldText": "a = 1", "newText": "a = 2"}]),
        tool_call(1, "edit", path="x.txt", edits=[{"oldText": "b = 1", "newText": "b = 2"}])],
        monkeypatch)
    assert log == in_call_order(2) and all(t.startswith("Edited") for t in texts)
    assert (tmp_path / "x.txt").read_text() == "a = 2\nb = 2\n"


def test_two_spellings_and_a_symlink_of_one_file_share_its_queue(tmp_path, monkeypatch):
    (tmp_path / "link.txt").symlink_to(tmp_path / "x.txt")  # x.txt does not exist yet
    log, texts = run_holding_each_call(tmp_path, [
        tool_call(0, "write", path="link.txt", content="old\n"),
        tool_call(1, "edit", path="./x.txt", edits=[{"oldText": "old", "newText": "new"}]),
        tool_call(2, "read", path=str(tmp_path / "x.txt"))], monkeypatch)
    assert log == in_call_order(3) and texts[2] == "new\n"


def run_meeting(tmp_path, calls):
    """Run `calls`, each first waiting for the other to start: both must run at once."""
    meeting = threading.Barrier(2, timeout=BOUND)

    def meet(tool):
        def execute(call_id, args, ctx):
            meeting.wait()  # a call queued behind the other breaks the barrier: an error
            return tool.execute(call_id, args, ctx)
        return replace(tool, execute=execute)

    return run_reply(tmp_path, calls, [meet(tool) for tool in create_tools(["read", "write"])])


def test_writes_of_two_files_run_at_once(tmp_path):
    texts = run_meeting(tmp_path, [tool_call(0, "write", path="a.txt", content="a"),
                                   tool_call(1, "write", path="b.txt", content="b")])
    assert texts == [f"Wrote 1 bytes to {tmp_path / 'a.txt'}",
                     f"Wrote 1 bytes to {tmp_path / 'b.txt'}"]


def test_two_reads_of_one_file_run_at_once(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    texts = run_meeting(tmp_path, [tool_call(0, "read", path="a.txt"),
                                   tool_call(1, "read", path="./a.txt")])
    assert texts == ["a", "a"]
