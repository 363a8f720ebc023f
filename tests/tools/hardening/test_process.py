"""process: how bash runs a command (docs/decisions.md D10): the shell and its environment, the
process group a timeout or an abort kills, background jobs, the live-output pump and the
bounded output sink. Driven through the bash tool, as a model would."""

import os
import shutil
import signal
import threading
import time

import pytest

from miniagent.core.tools import ToolError
from miniagent.tools.hardening import process as process_module
from miniagent.tools.bash import final_text
from helpers import run_bash as bash, first_text as text_of


def is_running(pid):
    """True while `pid` exists and is not a zombie (a killed child nobody reaped yet)."""
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def gone_within(pid, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not is_running(pid):
            return True
        time.sleep(0.01)
    return False


# --- The shell and its environment --------------------------------------------------

def test_shell_is_bash_else_sh(monkeypatch):
    assert process_module.find_shell() == "/bin/bash"  # the test machines have bash
    monkeypatch.setattr(os.path, "exists", lambda path: False)
    monkeypatch.setattr(shutil, "which", lambda name: "/bin/sh" if name == "sh" else None)
    assert process_module.find_shell() == "/bin/sh"


def test_missing_shell_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(process_module, "find_shell", lambda: "/no/such/shell")
    with pytest.raises(ToolError) as info:
        bash(tmp_path, "echo hi")
    assert "/no/such/shell" in str(info.value) and "No such file" in str(info.value)


def test_stdout_and_stderr_are_merged(tmp_path):
    assert text_of(bash(tmp_path, "echo out; echo err >&2; echo out2")) == "out\nerr\nout2\n"


def test_runs_in_cwd_with_pagers_off_and_empty_stdin(tmp_path):
    assert text_of(bash(tmp_path, "pwd")) == f"{tmp_path}\n"
    assert text_of(bash(tmp_path, 'echo "$PAGER $GIT_PAGER"')) == "cat cat\n"
    assert text_of(bash(tmp_path, "cat")) == "(no output)"


def test_editors_and_credential_prompts_are_off(tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", "vim")  # the user's own settings are overridden
    assert text_of(bash(tmp_path, 'echo "$GIT_EDITOR $GIT_SEQUENCE_EDITOR $EDITOR $VISUAL '
                                  '$GIT_TERMINAL_PROMPT"')) == "true true true true 0\n"


def test_git_commit_without_a_message_returns_instead_of_waiting(tmp_path, monkeypatch):
    # The user's editor waits for a terminal the command does not have; `sleep 60 #`
    # stands in for it (the "#" swallows the file name git appends). Before editors
    # were set to `true`, this call hit its timeout.
    for name in ("GIT_EDITOR", "EDITOR", "VISUAL"):
        monkeypatch.setenv(name, "sleep 60 #")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)  # no core.editor from this machine
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    command = ("git init -q && git -c user.name=t -c user.email=t@example.com "
               "commit --allow-empty")
    with pytest.raises(ToolError) as info:
        bash(tmp_path, command, timeout=10)
    assert "empty commit message" in str(info.value)
    assert "timed out" not in str(info.value)


# --- Stopping: the process group, background jobs --------------------------------------

def test_timeout_kills_grandchildren(tmp_path):
    # The grandchild writes its pid, then the shell waits; the timeout must kill both.
    command = ("sh -c 'echo $$ > child.pid; exec sleep 60' & "
               "while [ ! -s child.pid ]; do sleep 0.01; done; sleep 60")
    with pytest.raises(ToolError, match="timed out"):
        bash(tmp_path, command, timeout=0.5)
    pid = int((tmp_path / "child.pid").read_text())
    assert gone_within(pid, 5)


def test_abort_stops_a_running_command_and_its_children(tmp_path):
    abort = threading.Event()

    def on_update(partial):
        if "started" in text_of(partial):
            abort.set()  # the command is running: abort it from "another" caller

    command = "sleep 60 & echo $! > child.pid; echo started; sleep 60"
    started = time.monotonic()
    with pytest.raises(ToolError, match="Command aborted"):
        bash(tmp_path, command, abort=abort, on_update=on_update)
    assert time.monotonic() - started < 5
    assert gone_within(int((tmp_path / "child.pid").read_text()), 5)


def test_abort_also_kills_what_left_the_process_group(tmp_path):
    # `setsid` puts the job in a session of its own, out of reach of killpg; it is still
    # the shell's descendant while the call runs, and that is how it is found.
    abort = threading.Event()

    def on_update(partial):
        if "started" in text_of(partial):
            abort.set()

    command = ("setsid sleep 300 & echo $! > escaped.pid; nohup sleep 300 > /dev/null 2>&1 & "
               "echo $! > nohup.pid; echo started; sleep 60")
    try:
        with pytest.raises(ToolError, match="Command aborted"):
            bash(tmp_path, command, abort=abort, on_update=on_update)
        assert gone_within(int((tmp_path / "escaped.pid").read_text()), 5)
        assert gone_within(int((tmp_path / "nohup.pid").read_text()), 5)
    finally:
        for name in ("escaped.pid", "nohup.pid"):
            try:
                os.kill(int((tmp_path / name).read_text()), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def test_background_job_does_not_keep_the_call_waiting(tmp_path):
    started = time.monotonic()
    result = bash(tmp_path, "sleep 30 & echo $! > bg.pid; echo done")
    try:
        assert text_of(result).startswith("done\n\n[Still running after the command ended")
        assert time.monotonic() - started < 5
    finally:
        os.kill(int((tmp_path / "bg.pid").read_text()), signal.SIGKILL)


# --- The pump and the sink ----------------------------------------------------------------

def test_live_updates_are_throttled(tmp_path):
    updates = []
    started = time.monotonic()
    bash(tmp_path, "for i in $(seq 1 300); do echo $i; sleep 0.001; done",
         on_update=updates.append)
    elapsed = time.monotonic() - started
    assert 1 <= len(updates) <= elapsed / 0.1 + 1
    assert all(not u.is_error for u in updates)


def test_output_before_a_quiet_spell_is_shown_live(tmp_path):
    # "second" arrives right after the update that showed "first" (too soon for another
    # one), then the command is silent: the update owed for it must still come.
    abort = threading.Event()

    def on_update(partial):
        if "second" in text_of(partial):
            abort.set()
        elif "first" in text_of(partial):
            (tmp_path / "go").touch()

    command = "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second; sleep 30"
    with pytest.raises(ToolError, match="Command aborted"):
        bash(tmp_path, command, abort=abort, on_update=on_update)


def test_output_sink_memory_is_bounded():
    # 8 MB through the sink: memory holds the last ROLLING_BYTES, the temp file all of it.
    sink = process_module.OutputSink()
    try:
        chunk = b"".join(b"%07d\n" % i for i in range(8192))  # 64 KB
        for _ in range(128):
            sink.write(chunk)
            assert len(sink.tail) <= process_module.ROLLING_BYTES
        text, details = final_text(sink)
        assert sink.total_bytes == 128 * len(chunk) == os.path.getsize(details["fullOutputPath"])
        assert text.endswith(f"of {128 * 8192 + 1}. Full output: {sink.path}]")
    finally:
        sink.close()
        os.remove(sink.path)
