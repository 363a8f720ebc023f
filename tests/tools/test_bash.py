"""bash: pi's tool tests plus docs/decisions.md D10's guarantees.

How the command runs (shell, environment, process group, output pump) is tested in
test_process.py."""

import os
import tempfile
import threading
import time

import pytest

from miniagent.project.system_prompt import first_sentence
from miniagent.core.tools import ToolError
from miniagent.core import bash as bash_module  # the description the product sends
from helpers import call, is_alive, make_agent, run_bash as bash, first_text as text_of, text
from miniagent.tools import create_tools


@pytest.fixture
def temp_logs():
    """Delete the temp files a test's commands spill into."""
    paths = []
    yield paths
    for path in paths:
        if path and os.path.exists(path):
            os.remove(path)


# --- pi's tests --------------------------------------------------------------------------

def test_echo(tmp_path):
    result = bash(tmp_path, "echo 'test output'")
    assert text_of(result) == "test output\n"
    assert result.details is None and not result.is_error


def test_non_zero_exit_is_an_error_with_the_output(tmp_path):
    with pytest.raises(ToolError) as info:
        bash(tmp_path, "echo x; exit 3")
    assert str(info.value) == "x\n\n\nCommand exited with code 3"
    with pytest.raises(ToolError, match="Command exited with code 1$"):
        bash(tmp_path, "exit 1")


def test_no_output(tmp_path):
    assert text_of(bash(tmp_path, "true")) == "(no output)"


def test_timeout(tmp_path):
    started = time.monotonic()
    with pytest.raises(ToolError, match="timed out after 0.5 seconds") as info:
        bash(tmp_path, "echo before; sleep 30", timeout=0.5)
    assert time.monotonic() - started < 10
    assert str(info.value).startswith("before\n\n\n") and "larger timeout" in str(info.value)


def test_missing_working_directory(tmp_path):
    with pytest.raises(ToolError, match="Working directory does not exist"):
        bash(tmp_path / "gone", "echo hi")


# --- D10 --------------------------------------------------------------------------------

def test_description_first_sentence_stands_alone():
    # The system prompt lists each tool by its first sentence.
    first = first_sentence(bash_module.DESCRIPTION)
    assert first == "Run a bash command in the working directory."


def test_undecodable_output_is_replaced(tmp_path):
    assert text_of(bash(tmp_path, r"printf 'caf\351\n'")) == "caf\ufffd\n"


def test_aborted_before_start(tmp_path):
    abort = threading.Event()
    abort.set()
    with pytest.raises(ToolError, match="Operation aborted"):
        bash(tmp_path, "touch ran", abort=abort)
    assert not (tmp_path / "ran").exists()


def test_large_output_keeps_the_tail_and_spills_everything(tmp_path, temp_logs):
    result = bash(tmp_path, "seq -f 'line %030g' 1 30000")  # 36 bytes a line, 1 MB
    temp_logs.append(result.details["fullOutputPath"])
    text = text_of(result)
    assert text.startswith("line ") and f"\nline {30000:030d}\n" in text
    assert f"line {1:030d}" not in text
    assert len(text.encode()) <= 51200 + 200
    path = result.details["fullOutputPath"]
    assert os.path.basename(path).startswith("miniagent-bash-")
    assert text.endswith(f"of 30001 (50.0KB limit). Full output: {path}]")
    with open(path) as f:
        assert f.read() == "".join(f"line {i:030d}\n" for i in range(1, 30001))
    assert result.details["truncation"]["truncatedBy"] == "bytes"


def test_many_short_lines_are_cut_by_lines_and_still_saved(tmp_path, temp_logs):
    result = bash(tmp_path, "seq 1 3000")
    temp_logs.append(result.details["fullOutputPath"])
    text = text_of(result)
    assert text.startswith("1002\n") and "\n3000\n" in text
    path = result.details["fullOutputPath"]
    assert text.endswith(f"[Showing lines 1002-3001 of 3001. Full output: {path}]")
    with open(path) as f:
        assert len(f.read().splitlines()) == 3000


def test_error_result_names_the_temp_file_too(tmp_path, temp_logs):
    with pytest.raises(ToolError) as info:
        bash(tmp_path, "seq 1 30000; exit 2")
    message = str(info.value)
    assert message.endswith("Command exited with code 2")
    path = message.split("Full output: ")[1].split("]")[0]
    temp_logs.append(path)
    assert os.path.exists(path)


def test_one_huge_line_keeps_its_end(tmp_path, temp_logs):
    result = bash(tmp_path, "head -c 200000 /dev/zero | tr '\\0' x; echo END")
    temp_logs.append(result.details["fullOutputPath"])
    text = text_of(result)
    assert text.startswith("xxx") and "END\n" in text and "of line 1." in text
    assert result.details["truncation"]["lastLinePartial"]


def test_abort_after_large_output_shows_the_tail_and_the_temp_file(tmp_path, temp_logs):
    # pi put up to 100 KB of raw output in a timeout or abort error; ours is cut like
    # any result and names the file with all of it.
    abort = threading.Event()

    def on_update(partial):
        if "done" in text_of(partial):
            abort.set()

    with pytest.raises(ToolError) as info:
        bash(tmp_path, "seq 1 30000; echo done; sleep 30", abort=abort, on_update=on_update)
    message = str(info.value)
    path = message.split("Full output: ")[1].split("]")[0]
    temp_logs.append(path)
    assert message.endswith("\n\nCommand aborted") and "\n30000\ndone\n" in message
    assert len(message.encode()) <= 51200 + 200
    with open(path) as f:
        assert f.read().startswith("1\n2\n3\n")


def test_shell_killed_by_a_signal_is_an_error(tmp_path):
    with pytest.raises(ToolError, match="killed by signal 9"):
        bash(tmp_path, "echo partial; kill -9 $$")


def test_output_that_cannot_be_saved_is_still_shown_with_the_reason(tmp_path, monkeypatch):
    # TMPDIR pointing at a regular file: the full-output file cannot be created. The
    # command must run on, and the model see its tail and why there is no full copy.
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_dir))
    result = bash(tmp_path, "seq 1 30000; echo done")
    text = text_of(result)
    assert "\n30000\ndone\n" in text and not result.is_error
    last_line = text.splitlines()[-1]
    assert last_line.startswith("[Showing lines 28003-30002 of 30002.")
    assert "full output could not be saved" in last_line and "Not a directory" in last_line
    assert result.details["fullOutputPath"] is None


def test_abort_during_bash_ends_the_run_and_kills_the_grandchild(tmp_path):
    command = "sleep 60 & echo grandchild $!; sleep 60"
    agent = make_agent([{"content": [call("bash", command=command)]},
                        {"content": [text("never reached")]}],
                       create_tools(["bash"]), cwd=str(tmp_path))
    pids = []
    started = threading.Event()

    def watch(event):
        if event["type"] == "tool_execution_update":
            words = event["partialResult"]["content"][0]["text"].split()
            if "grandchild" in words:
                pids.append(int(words[words.index("grandchild") + 1]))
                started.set()

    agent.subscribe(watch)
    runner = threading.Thread(target=lambda: agent.prompt("go"), daemon=True)
    runner.start()
    assert started.wait(10)
    begin = time.monotonic()
    agent.abort()
    runner.join(5)  # the command would run for 60 s
    assert not runner.is_alive() and time.monotonic() - begin < 5
    assert agent.messages[-1]["stopReason"] == "aborted"
    result = next(m for m in agent.messages if m["role"] == "toolResult")
    assert result["isError"]
    deadline = time.monotonic() + 5
    while is_alive(pids[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not is_alive(pids[0])


class Launched:
    """A sandbox whose launcher marks the command (the real one confines it)."""

    def launcher(self):
        return ("env", "MINIAGENT_CONFINED=1")

    def explain_failure(self, output):
        return "(The sandbox may have refused this.)" if "Permission denied" in output else None


def run_confined(tmp_path, command):
    from miniagent.core.tools import ToolContext
    from miniagent.tools import bash as bash_tool
    tool = bash_tool.create_tool(None, Launched())
    return tool.execute("c", {"command": command},
                        ToolContext(cwd=str(tmp_path), abort=threading.Event()))


def test_a_sandboxed_command_starts_through_the_launcher(tmp_path):
    assert text_of(run_confined(tmp_path, "echo $MINIAGENT_CONFINED")) == "1\n"


def test_a_denied_command_says_the_sandbox_may_have_refused_it(tmp_path):
    with pytest.raises(ToolError) as failed:
        run_confined(tmp_path, "echo 'touch: /etc/x: Permission denied'; exit 1")
    assert str(failed.value) == ("touch: /etc/x: Permission denied\n\n(The sandbox may have "
                                 "refused this.)\n\nCommand exited with code 1")
    with pytest.raises(ToolError) as other:
        run_confined(tmp_path, "echo 'no such file'; exit 1")
    assert "sandbox" not in str(other.value)
    ok = run_confined(tmp_path, "echo 'Permission denied, but it went on'")
    assert "sandbox" not in text_of(ok)  # only a failure gets the note


# --- What a command leaves running ----------------------------------------------------------

def test_a_command_that_leaves_a_child_running_returns_and_says_so(tmp_path):
    # The case: the call returns at once, the child keeps running (it may serve
    # the next call), and the result names it for the model.
    started = time.monotonic()
    result = bash(tmp_path, 'bash -c "sleep 1000 & echo \\$! > left.pid"')
    pid = int((tmp_path / "left.pid").read_text())
    try:
        assert time.monotonic() - started < 10 and is_alive(pid)
        assert text_of(result) == (
            f"(no output)\n\n[Still running after the command ended: pid {pid} "
            f"(sleep 1000). Output from it is no longer read; miniagent stops it when it "
            f"exits.]")
        assert result.details == {"leftRunning": [{"pid": pid, "command": "sleep 1000"}]}
        assert not result.is_error
    finally:
        os.kill(pid, 9)


def test_a_command_that_leaves_nothing_running_says_nothing_of_it(tmp_path):
    result = bash(tmp_path, "sleep 0.01 & wait; echo done")
    assert text_of(result) == "done\n" and result.details is None
