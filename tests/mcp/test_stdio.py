"""The stdio transport against the scripted fault server: messages by the line, every
way a server can break the pipe, and no process left after close."""

import queue
import resource
import sys
import threading
import time

import pytest

from helpers import is_alive, wait_gone
from mcp.faults import fault_transport, server_pids
from miniagent.mcp import stdio
from miniagent.mcp.stdio import StdioTransport
from miniagent.mcp.transport import TransportClosed

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}


class Recorder:
    """Plays the Connection: collects what the transport delivers."""

    def __init__(self, transport):
        self.messages = queue.Queue()
        self.closed = queue.Queue()
        transport.on_message = self.messages.put
        transport.on_closed = self.closed.put


def started(mode, tmp_path, *more):
    transport = fault_transport(mode, tmp_path, *more)
    recorder = Recorder(transport)
    transport.start()
    return transport, recorder


def wait_for_pids(tmp_path, count):
    """The pids the servers wrote, once `count` of them have started (bounded)."""
    deadline = time.monotonic() + 10
    while len(server_pids(tmp_path)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return server_pids(tmp_path)


def test_a_message_goes_out_as_one_line_and_the_answer_comes_back(tmp_path):
    transport, recorder = started("normal", tmp_path)
    try:
        transport.send(INITIALIZE)
        answer = recorder.messages.get(timeout=10)
        assert answer["id"] == 1
        assert answer["result"]["serverInfo"] == {"name": "fault", "version": "1.0"}
        text_with_newline = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": "echo", "arguments": {"text": "a\nb ü"}}}
        transport.send(text_with_newline)
        assert recorder.messages.get(timeout=10)["result"]["content"][0]["text"] == "a\nb ü"
    finally:
        transport.close()
    assert not any(is_alive(pid) for pid in server_pids(tmp_path))


def test_a_command_that_does_not_exist_fails_start(tmp_path):
    transport = StdioTransport("no-such-mcp-server-xyz", [], {"PATH": "/usr/bin"}, str(tmp_path))
    with pytest.raises(TransportClosed, match="^command not found: no-such-mcp-server-xyz$"):
        transport.start()
    transport.close()  # still safe


def test_a_working_directory_that_does_not_exist_is_named(tmp_path):
    transport = StdioTransport(sys.executable, [], {}, str(tmp_path / "missing"))
    with pytest.raises(TransportClosed, match="working directory not found: .*missing"):
        transport.start()


def test_a_server_that_exits_is_reported_with_its_status_and_the_tail_of_its_stderr(tmp_path):
    transport, recorder = started("exit", tmp_path)
    reason = recorder.closed.get(timeout=10)
    assert reason.startswith("exited with status 3: ")
    assert reason.endswith("noise line fatal: config missing")
    assert "\n" not in reason and len(reason) < 2100  # 100 KB of stderr, a bounded tail
    with pytest.raises(TransportClosed, match="exited with status 3"):
        transport.send(INITIALIZE)
    transport.close()


def test_the_stderr_tail_is_one_line_without_colours_or_control_characters(tmp_path):
    script = "printf '\\033[31merror:\\033[0m bad\\tthing\\a\\nsecond line\\n' >&2; exit 2"
    transport = StdioTransport("/bin/sh", ["-c", script], {}, str(tmp_path))
    recorder = Recorder(transport)
    transport.start()
    assert recorder.closed.get(timeout=10) == "exited with status 2: error: bad thing second line"
    transport.close()


def test_a_line_that_is_not_json_ends_the_transport_with_its_start_quoted(tmp_path):
    transport, recorder = started("malformed", tmp_path)
    transport.send(INITIALIZE)
    reason = recorder.closed.get(timeout=10)
    assert reason == 'sent a line that is not JSON: "Starting fault server v1.0 ... ready!"'
    transport.close()
    assert wait_gone(server_pids(tmp_path)[0])


def test_a_50_mb_line_ends_the_transport_without_holding_it_in_memory(tmp_path):
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    transport, recorder = started("huge-line", tmp_path)
    transport.send(INITIALIZE)
    assert recorder.closed.get(timeout=30) == "sent a line over 16 MB"
    transport.close()
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before) / 1024
    assert grown_mb < 48  # the 16 MB cap costs ~32 MB at the peak; the whole line, 50 MB or more
    assert wait_gone(server_pids(tmp_path)[0])


@pytest.fixture
def quick_steps(monkeypatch):
    """close() waits 1 s before each firmer step; the steps, not the second, are tested."""
    monkeypatch.setattr(stdio, "STOP_SECONDS", 0.2)


def test_close_escalates_to_sigkill_for_a_server_deaf_to_stdin_and_sigterm(tmp_path, quick_steps):
    transport, recorder = started("stubborn", tmp_path)
    transport.send(INITIALIZE)
    recorder.messages.get(timeout=10)  # it runs, SIGTERM ignored from here on
    started_at = time.monotonic()
    transport.close()
    assert time.monotonic() - started_at < 4
    assert not is_alive(server_pids(tmp_path)[0])
    assert recorder.closed.get(timeout=10) == "was killed by signal 9"


def test_close_stops_the_grandchild_of_a_wrapper_like_npx(tmp_path, quick_steps):
    transport, recorder = started("wrapper", tmp_path, "stubborn")
    wrapper, server = wait_for_pids(tmp_path, 2)
    transport.send(INITIALIZE)
    assert recorder.messages.get(timeout=10)["id"] == 1  # the grandchild answers
    transport.close()
    assert not is_alive(wrapper)
    assert wait_gone(server)  # re-parented once the wrapper died: reaped by init


def test_close_is_idempotent_and_safe_from_two_threads(tmp_path):
    transport, recorder = started("normal", tmp_path)
    transport.send(INITIALIZE)
    recorder.messages.get(timeout=10)
    closers = [threading.Thread(target=transport.close) for _ in range(2)]
    for closer in closers:
        closer.start()
    for closer in closers:
        closer.join(10)
    transport.close()
    assert not is_alive(server_pids(tmp_path)[0])
    assert recorder.closed.get(timeout=10).startswith("exited with status 0")
    assert recorder.closed.empty()  # on_closed once


def test_describe_shows_the_command_as_a_shell_would_read_it(tmp_path):
    transport = StdioTransport("npx", ["-y", "@x/server", "a b"], {}, str(tmp_path))
    assert transport.describe() == "npx -y @x/server 'a b'"


def test_a_tail_that_is_one_long_line_is_kept_not_dropped(tmp_path):
    script = "head -c 5000 /dev/zero | tr '\\000' x >&2; exit 1"
    transport = StdioTransport("/bin/sh", ["-c", script], {"PATH": "/usr/bin:/bin"}, str(tmp_path))
    recorder = Recorder(transport)
    transport.start()
    assert recorder.closed.get(timeout=10) == "exited with status 1: " + "x" * 600
    transport.close()
