"""The background extension (issue 33, item 4): bash's `background: true` returns at
once with a job id, job_output reads what the job printed since the last read, job_stop
ends it, /ps and /stop in the REPL, what a foreground call left running becomes a job,
and no job outlives miniagent, whichever way it ends."""

import io
import json
import os
import signal
import threading
from contextlib import contextmanager

import pytest

from fake_server import FakeServer
from pty_driver import Terminal
from helpers import answer, call, is_alive, run_cli, wait_gone, write_script
from miniagent.extensions import BUNDLED, background

SERVER = "echo $$ > server.pid; exec python3 -m http.server 0 --bind 127.0.0.1"
LEFT = "sleep 1000 & echo $! > sleep.pid"  # a foreground call that leaves a child running


def tool_call(name, **arguments):
    return {"content": [call(name, **arguments)]}


def results(stdout):
    """{tool name: [result text, ...]} from a json-mode run's events."""
    found = {}
    for line in stdout.splitlines():
        event = json.loads(line)
        if event["type"] == "tool_execution_end":
            found.setdefault(event["toolName"], []).append(
                event["result"]["content"][0]["text"])
    return found


def run_script(tmp_path, turns, *args):
    return run_cli("--script", write_script(tmp_path, turns), "-e", "background", "--no-session",
                   "--mode", "json", *args, "-p", "go", cwd=str(tmp_path),
                   env={"PYTHONUNBUFFERED": "1"})  # the server prints at once, as on a tty


def pid_in(path):
    return int(path.read_text())


def test_a_server_started_in_the_background_is_read_and_stopped(tmp_path):
    turns = [tool_call("bash", command=SERVER, background=True),
             tool_call("job_output", id=1, wait_seconds=30),
             tool_call("job_stop", id="1"),  # "1" is taken as 1
             tool_call("job_output", id=1),
             answer("done")]
    # The server never ends: a bash that waited for it would hang run_cli (its bound fails).
    result = run_script(tmp_path, turns)
    assert result.returncode == 0, result.stderr
    said = results(result.stdout)
    pid = pid_in(tmp_path / "server.pid")
    assert said["bash"][0].startswith(f"Started job 1 (pid {pid}) in the background: {SERVER}")
    assert said["job_output"][0].startswith(f"[job 1: running, pid {pid}, ")
    assert "Serving HTTP on 127.0.0.1 port " in said["job_output"][0]
    assert said["job_stop"][0].startswith(f"[job 1: stopped, pid {pid}, ")
    assert said["job_stop"][0].endswith(f"s] {SERVER}")
    # the second read has only what came after the first (at most the end of its line)
    assert said["job_output"][1].startswith(f"[job 1: stopped, pid {pid}, ")
    assert "Serving HTTP" not in said["job_output"][1]
    assert wait_gone(pid)


def test_no_job_outlives_the_end_of_a_print_run_and_a_left_child_becomes_a_job(tmp_path):
    turns = [tool_call("bash", command=SERVER, background=True),
             tool_call("bash", command=LEFT),
             tool_call("job_output", id=2),
             answer("leaving them running")]
    result = run_script(tmp_path, turns)
    assert result.returncode == 0, result.stderr
    said = results(result.stdout)
    sleeper = pid_in(tmp_path / "sleep.pid")
    assert said["bash"][1].endswith(
        f"[Still running after the command ended: pid {sleeper} (sleep 1000). Output from "
        f"it is no longer read; miniagent stops it when it exits.]\n"
        f"(Now job 2: /ps lists it, job_stop stops it.)")
    assert said["job_output"][0].startswith(f"[job 2: running, pid {sleeper}, ")
    assert said["job_output"][0].endswith(
        "s] (output not captured: left running by a foreground bash call)")
    assert wait_gone(pid_in(tmp_path / "server.pid")) and wait_gone(sleeper)


def test_a_job_starts_with_the_settings_shell_and_through_the_sandbox(tmp_path, private_home,
                                                                       kernel):
    shell = tmp_path / "myshell"
    shell.write_text('#!/bin/sh\ntouch used-my-shell\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    (private_home / "settings.json").write_text(json.dumps({"shellPath": str(shell)}))
    turns = [tool_call("bash", command="echo $MINIAGENT_CONFINED $GIT_PAGER > env.txt; "
                                       "echo written", background=True),
             tool_call("job_output", id=1, wait_seconds=30), answer("ok")]
    said = results(run_script(tmp_path, turns, "--sandbox", "workspace").stdout)
    assert said["job_output"][0].endswith("\nwritten\n")
    # Through the launcher (the stand-in kernel marks it), the settings' shell, bash's
    # environment: as the bash tool starts a command.
    assert (tmp_path / "env.txt").read_text() == "1 cat\n"
    assert (tmp_path / "used-my-shell").exists()


def test_bash_has_background_only_while_the_extension_is_on(tmp_path):
    def bash_schema(*args):
        with FakeServer([answer("ok")]) as srv:
            result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", *args,
                             "--no-session", "-p", "hi", cwd=str(tmp_path))
            tools = {tool["function"]["name"]: tool["function"]
                     for tool in srv.requests[0]["body"]["tools"]}
        assert result.returncode == 0, result.stderr
        return tools

    plain = bash_schema()
    assert "background" not in plain["bash"]["parameters"]["properties"]
    assert "job_output" not in plain
    extended = bash_schema("-e", "background")
    assert extended["bash"]["parameters"]["properties"]["background"]["type"] == "boolean"
    assert {"job_output", "job_stop"} <= set(extended)
    assert "background" in BUNDLED


def test_an_unknown_job_is_one_line_saying_which_there_are(tmp_path):
    turns = [tool_call("job_stop", id=7), answer("ok")]
    said = results(run_script(tmp_path, turns).stdout)
    assert said["job_stop"] == ["No job 7 (jobs: none yet). /ps lists them."]


class Pipe:
    """A finished job's stand-in: its output already written, then the end of the pipe."""

    def __init__(self, data):
        self.stdout = io.BufferedReader(io.BytesIO(data))
        self.pid, self.returncode = 99, 0

    def running(self):
        return False


def test_a_job_keeps_a_bounded_tail_in_memory_and_every_byte_in_its_log():
    data = b"".join(b"%06d\n" % i for i in range(30000))  # 210 KB, 4 times the buffer
    job = background.Job(1, "seq", Pipe(data))
    job.wait_for_output(30, threading.Event())  # some output, or its end
    while job.reading:  # the pump's thread is still copying
        job.wait_for_output(1, threading.Event())
    try:
        text = job.take_new_output()
        assert len(job.buffer) == background.BUFFER_BYTES
        assert text.startswith(f"[{len(data) - background.BUFFER_BYTES} earlier bytes are "
                               f"no longer in memory; the log has every byte: {job.log_path}]")
        assert text.endswith("029999\n") and job.last_line() == "029999"
        with open(job.log_path, "rb") as log:
            assert log.read() == data
        assert oct(os.stat(job.log_path).st_mode & 0o777) == "0o600"
        assert job.take_new_output() == ""  # nothing new since
        assert job.state() == "exited 0"
    finally:
        os.remove(job.log_path)


# --- In the REPL (a pty): /ps, /stop, and every way out ----------------------------------

@contextmanager
def repl_with_jobs(tmp_path):
    """The REPL after one prompt that started a server job and left a `sleep` running."""
    turns = [tool_call("bash", command=SERVER, background=True),
             tool_call("bash", command=LEFT), answer("Both running.")]
    args = ["--provider", "scripted", "--script", write_script(tmp_path, turns),
            "-e", "background", "--no-session"]
    env = {"MINIAGENT_HOME": str(tmp_path / "home")}
    with Terminal(args, env=env, cwd=str(tmp_path)) as term:
        term.expect_screen("/help for commands")
        term.send("go\r")
        term.expect_screen("Both running.")
        term.expect_screen("context unknown")  # the footer: the run is over, /ps works
        yield term


@pytest.mark.parametrize("way_out", ["/quit", "ctrl-d", "SIGTERM", "SIGHUP"])
def test_ps_shows_the_jobs_and_none_is_alive_after_any_way_out(tmp_path, way_out):
    with repl_with_jobs(tmp_path) as term:
        server, sleeper = pid_in(tmp_path / "server.pid"), pid_in(tmp_path / "sleep.pid")
        term.send("/ps\r")
        term.expect_screen("output not captured")
        screen = term.screen()
        assert any(row.startswith("job 1  running  ") and
                   row.endswith(f"  pid {server}  echo $$ > server.pid; exec python3 -m "
                                f"http.server 0 --bind 127.0.0.1") for row in screen)
        assert any(row.startswith("job 2  running  ") and
                   row.endswith(f"  pid {sleeper}  sleep 1000") for row in screen)
        if way_out == "/quit":
            term.send("/stop 1\r")
            term.expect_screen("job 1 stopped (was running)")
            assert wait_gone(server) and is_alive(sleeper)
            term.send("/quit\r")
        elif way_out == "ctrl-d":
            term.send("\x04")
        else:
            term.process.send_signal(getattr(signal, way_out))
        term.wait()
    assert wait_gone(server) and wait_gone(sleeper)


def test_stop_without_an_id_says_how():
    jobs = background.Jobs(api=None)
    assert jobs.stop_command("  ") == "Usage: /stop ID (/ps lists the jobs)"
    assert jobs.stop_command("3") == "No job 3 (jobs: none yet). /ps lists them."
    assert jobs.ps("") == "No background jobs."
