"""The reliability pass: the faults a day of real use meets, each through the real command line.

Every test runs `python -m miniagent` in a subprocess against the local fake server
(tests/fake_server.py), injects one fault, and checks what a user is left with:

  * one clear line on stderr (the retry notices aside), quoted exactly, since the
    troubleshooting table in docs/troubleshooting.md quotes these same lines;
  * the session file intact: whole JSON lines, loadable by Session.open;
  * no process left behind: every run carries a unique marker in its command line, and
    no process with that marker outlives the run. After SIGKILL nothing can clean up;
    there the proof is that `-c` resumes the session.

The model is a provider of our own in the test's models.json ("fake", served by the
fake server), so no unknown-model warning gets in between. MINIAGENT_RETRY_BASE_DELAY
makes the retry waits (the harness's: the only retry layer) tiny.
"""

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from fake_server import FakeServer, status
from helpers import ROOT, run_cli
from miniagent.session.tree import Session

ANSWER = "All done: the answer arrived whole."
HELLO = {"content": [{"type": "text", "text": ANSWER}]}
STOPPED = ["Stopping... (Ctrl-C again quits at once)", "miniagent: stopped; the run was aborted."]
OVERLOADED = {"type": "overloaded_error", "message": "Overloaded"}  # Anthropic's body
NGINX_500 = ("<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n"
             "<center><h1>500 Internal Server Error</h1></center>\r\n<hr><center>nginx</center>\r\n"
             "</body>\r\n</html>\r\n")


# --- Running the command line --------------------------------------------------------------


class Run:
    """One run of the command line against a fake server: its files and its marker."""

    def __init__(self, tmp_path, srv, **env):
        self.folder = tmp_path
        self.session = str(tmp_path / "session.jsonl")
        self.marker = f"reliability-{uuid.uuid4().hex[:12]}"  # in every command we start
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        provider = {"baseUrl": srv.base_url + "/v1", "api": "openai-completions",
                    "models": [{"id": "fake-model"}]}
        (home / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        self.overrides = {"MINIAGENT_HOME": str(home), "MINIAGENT_RETRY_BASE_DELAY": "0.01", **env}
        self.env = dict(os.environ, PYTHONPATH=ROOT, **self.overrides)
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            self.env.pop(key, None)

    def command(self, *args):
        return [sys.executable, "-m", "miniagent", "--provider", "fake", *args,
                f"Answer the question ({self.marker})"]

    def run(self, *args):
        """Run to the end in print mode (-p) with the session file, in this process; a
        hang fails the test (helpers.Hung)."""
        return run_cli(*self.command("--session", self.session, "-p", *args)[3:],
                       cwd=str(self.folder), env=self.overrides)

    def run_limited(self, limit):
        """The same in a process of its own, with `limit` run in it first (a resource
        limit belongs to a process)."""
        return subprocess.run(self.command("--session", self.session, "-p"),
                              capture_output=True, text=True, cwd=str(self.folder),
                              env=self.env, timeout=60, preexec_fn=limit)

    def start(self, *args):
        """Start a JSON-mode run, for the tests that signal it at a chosen moment."""
        return subprocess.Popen(self.command("--session", self.session, "--mode", "json", *args),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=str(self.folder),
                                env=self.env)

    def left_behind(self):
        """PIDs of processes still running with this run's marker in their command line,
        waiting (bounded) for a killed process group to finish dying."""
        deadline = time.monotonic() + 5
        while True:
            found = subprocess.run(["pgrep", "-f", self.marker], capture_output=True,
                                   text=True).stdout.split()
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def wait_for_event(proc, event_type):
    """Read the JSON lines until one of this type arrives (the run is then at that point)."""
    for line in proc.stdout:
        if json.loads(line)["type"] == event_type:
            return
    raise AssertionError(f"the run ended before a {event_type} event: {proc.stderr.read()}")


def stop_with(proc, signum):
    proc.send_signal(signum)
    try:
        return proc.communicate(timeout=15)
    finally:
        proc.kill()


def user_lines(stderr):
    """What the user is told, without the retry notices (each "  retrying in ...")."""
    return [line for line in stderr.splitlines() if line.strip() and not is_notice(line)]


def notices(stderr):
    return [line.strip() for line in stderr.splitlines() if is_notice(line)]


def is_notice(line):
    return line.startswith("  retrying in ")


def counted(notice):
    """The counter and the error of a retry notice: "retrying in 0.0081 s (2 of 3): 503
    busy" -> (2, "503 busy"); the seconds are jittered."""
    found = re.fullmatch(r"retrying in [0-9.e-]+ s \((\d) of 3\): (.*)", notice)
    assert found, notice
    return int(found.group(1)), found.group(2)


def loaded(path, warnings=()):
    """The session file: every line whole JSON (bar the expected warnings), and it opens."""
    session = Session.open(path)
    assert session.warnings == list(warnings)
    first_line = Path(path).read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(first_line)["type"] == "session"
    return session


def roles(session):
    """Each message of the file as role or "assistant:stopReason" (the system entry, a
    record of the prompt, left out)."""
    found = []
    for entry in session.entries:
        if entry["type"] == "message" and entry["message"]["role"] != "system":
            message = entry["message"]
            found.append(f"assistant:{message['stopReason']}" if message["role"] == "assistant"
                         else message["role"])
    return found


def test_a_good_run_for_comparison(tmp_path):
    with FakeServer([HELLO]) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    assert (result.returncode, result.stdout, result.stderr) == (0, ANSWER + "\n", "")
    assert roles(loaded(run.session)) == ["user", "assistant:stop"]
    assert run.left_behind() == []


# --- Faults from the server ----------------------------------------------------------------


def test_connection_dropped_mid_stream_is_retried_then_named(tmp_path):
    dropped = {"content": HELLO["content"], "fault": {"reset_after_bytes": 300}}
    with FakeServer([dropped] * 4) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    line = "connection lost while streaming: connection reset by the server"
    assert result.returncode == 1 and result.stdout == ""
    assert [counted(notice) for notice in notices(result.stderr)] == [(1, line), (2, line), (3, line)]
    assert user_lines(result.stderr) == [f"miniagent: {line}"]
    assert roles(loaded(run.session)) == ["user"] + ["assistant:error"] * 4
    assert run.left_behind() == []


def test_429_with_retry_after_waits_as_asked_until_the_budget_is_spent(tmp_path):
    limited = status(429, {"retry-after": "0.1"}, {"error": {"message": "Rate limit reached"}})
    with FakeServer([limited] * 12) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
        requests = len(srv.requests)
    line = "429 Rate limit reached (the server asks to wait 0.1 s)"
    assert result.returncode == 1 and requests == 4  # the first try and 3 retries
    assert notices(result.stderr) == [f"retrying in 0.1 s ({n} of 3): {line}" for n in (1, 2, 3)]
    assert user_lines(result.stderr) == [f"miniagent: {line}"]
    assert roles(loaded(run.session)) == ["user"] + ["assistant:error"] * 4
    assert run.left_behind() == []


@pytest.mark.parametrize("reply, shown", [
    (status(429, body={"error": {"message": "Rate limit reached"}}), "429 Rate limit reached"),
    (status(529, body={"type": "error", "error": OVERLOADED}), "529 Overloaded (overloaded_error)"),
    (status(500, {"Content-Type": "text/html"}, NGINX_500), "500 Internal Server Error"),
], ids=["429-without-retry-after", "529", "500-html-page"])
def test_a_failed_request_is_retried_after_a_backoff_and_the_answer_arrives(tmp_path, reply, shown):
    with FakeServer([reply, HELLO]) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    assert result.returncode == 0 and result.stdout == ANSWER + "\n"
    (notice,) = notices(result.stderr)
    assert counted(notice) == (1, shown)
    assert user_lines(result.stderr) == []  # no HTML, no traceback
    # The failed reply stays in the session file, out of the model's context.
    assert roles(loaded(run.session)) == ["user", "assistant:error", "assistant:stop"]
    assert run.left_behind() == []


def test_a_malformed_chunk_ends_the_run_with_the_chunk_quoted(tmp_path):
    with FakeServer([{"content": HELLO["content"], "fault": {"malformed": True}}]) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    assert result.returncode == 1 and notices(result.stderr) == []
    assert user_lines(result.stderr) == [
        'miniagent: the server sent a malformed chunk: {"choices": [{"delta": {"content": "x']
    assert roles(loaded(run.session)) == ["user", "assistant:error"]
    assert run.left_behind() == []


def test_an_in_band_error_event_is_retried_then_named(tmp_path):
    error = {"type": "server_error", "message": "The server had an error processing your request."}
    with FakeServer([{"content": HELLO["content"], "fault": {"in_band_error": error}}] * 4) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    line = "The server had an error processing your request. (server_error)"
    assert result.returncode == 1 and len(notices(result.stderr)) == 3
    assert user_lines(result.stderr) == [f"miniagent: {line}"]
    assert roles(loaded(run.session)) == ["user"] + ["assistant:error"] * 4
    assert run.left_behind() == []


def test_a_stream_cut_before_its_finish_is_retried_then_named(tmp_path):
    cut = {"content": HELLO["content"], "fault": {"truncate": "before_finish"}}
    with FakeServer([cut] * 4) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    line = "stream ended before the response was complete (no finish_reason)"
    assert result.returncode == 1
    assert counted(notices(result.stderr)[0]) == (1, line)
    assert user_lines(result.stderr) == [f"miniagent: {line}"]
    assert roles(loaded(run.session)) == ["user"] + ["assistant:error"] * 4
    assert run.left_behind() == []


def test_a_finished_stream_without_its_done_marker_is_complete(tmp_path):
    # Servers often omit [DONE]; after a finish_reason the answer is whole.
    with FakeServer([{"content": HELLO["content"], "fault": {"no_done": True}}]) as srv:
        run = Run(tmp_path, srv)
        result = run.run()
    assert (result.returncode, result.stdout, result.stderr) == (0, ANSWER + "\n", "")
    assert roles(loaded(run.session)) == ["user", "assistant:stop"]


def test_a_stall_past_the_read_timeout_is_retried__needs_MINIAGENT_READ_TIMEOUT(tmp_path):
    # Fails while MINIAGENT_READ_TIMEOUT is not read (the 600 s default applies): the
    # stall then simply ends after its 5 s and no timeout is ever seen.
    stalled = {"content": HELLO["content"], "fault": {"stall_seconds": 5, "stall_after_bytes": 300}}
    with FakeServer([stalled, HELLO]) as srv:
        run = Run(tmp_path, srv, MINIAGENT_READ_TIMEOUT="0.3")
        result = run.run()
    shown = notices(result.stderr)
    assert len(shown) == 1 and "timed out" in shown[0], f"no timeout seen: {result.stderr!r}"
    assert counted(shown[0])[0] == 1
    assert result.returncode == 0 and result.stdout == ANSWER + "\n"
    assert user_lines(result.stderr) == []
    assert roles(loaded(run.session)) == ["user", "assistant:error", "assistant:stop"]


# --- Faults on our side: signals, the session file ------------------------------------------


def test_sigkill_mid_run_then_continue_resumes_the_session(tmp_path):
    turns = [{"content": [{"type": "toolCall", "name": "bash",
                           "arguments": {"command": "echo first step done"}}]},
             {"content": HELLO["content"], "fault": {"stall_seconds": 60, "before_headers": True}}]
    sessions = str(tmp_path / "sessions")
    with FakeServer(turns) as srv:
        run = Run(tmp_path, srv)
        proc = subprocess.Popen(run.command("--session-dir", sessions, "-p"), cwd=str(tmp_path),
                                env=run.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert srv.wait_for_requests(2)  # the tool ran; the run waits for the model's next reply
        stop_with(proc, signal.SIGKILL)
    with FakeServer([HELLO]) as srv:
        resumed = Run(tmp_path, srv)
        result = subprocess.run(resumed.command("--session-dir", sessions, "-c", "-p"),
                                capture_output=True, text=True, cwd=str(tmp_path),
                                env=resumed.env, timeout=60)
        sent = srv.requests[0]["body"]["messages"]
    assert result.returncode == 0 and result.stdout == ANSWER + "\n" and result.stderr == ""
    assert "first step done" in json.dumps(sent)  # the killed run's tool result came back
    (path,) = [os.path.join(sessions, name) for name in os.listdir(sessions)]
    assert roles(loaded(path)) == ["user", "assistant:toolUse", "toolResult", "user",
                                   "assistant:stop"]


def test_a_torn_last_line_is_skipped_with_a_warning_and_the_session_goes_on(tmp_path):
    with FakeServer([HELLO, HELLO]) as srv:
        run = Run(tmp_path, srv)
        assert run.run().returncode == 0
        with open(run.session, "a") as f:
            f.write('{"type":"message","id":"torn1","mess')  # a crash in mid-write
        torn_at = len(Path(run.session).read_text().splitlines())
        result = run.run()
    warning = f"{run.session}:{torn_at}: skipped a malformed line"
    assert result.returncode == 0 and result.stdout == ANSWER + "\n"
    assert user_lines(result.stderr) == [f"miniagent: warning: {warning}"]
    session = loaded(run.session, warnings=[warning])
    assert roles(session) == ["user", "assistant:stop"] * 2
    lines = Path(run.session).read_text().splitlines()
    assert lines[torn_at - 1] == '{"type":"message","id":"torn1","mess'  # alone on its line


def test_disk_full_on_session_append_stops_the_run_with_one_line(tmp_path):
    with FakeServer([HELLO, HELLO]) as srv:
        run = Run(tmp_path, srv)
        assert run.run().returncode == 0
        size = os.path.getsize(run.session)

        def small_disk():  # runs in the child: the file may grow by 50 bytes only
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk sends no signal
            resource.setrlimit(resource.RLIMIT_FSIZE, (size + 50, size + 50))
        result = run.run_limited(small_disk)
    assert result.returncode == 1 and result.stdout == ""
    assert user_lines(result.stderr) == [
        f"miniagent: cannot write session {run.session}: File too large; the run was "
        "stopped, and the file keeps every entry before this one"]
    assert os.path.getsize(run.session) == size  # nothing half-written
    assert roles(loaded(run.session)) == ["user", "assistant:stop"]  # the first run, whole
    assert run.left_behind() == []


@pytest.mark.parametrize("turns, moment, last", [
    ([{"content": HELLO["content"], "fault": {"stall_seconds": 60, "before_headers": True}}],
     None, "assistant:aborted"),
    ([{"content": HELLO["content"], "fault": {"stall_seconds": 60, "stall_after_bytes": 300}}],
     "message_update", "assistant:aborted"),
    ([status(429, {"retry-after": "30"}, {"error": {"message": "Rate limit reached"}})],
     "auto_retry_start", "assistant:error"),
    ([status(503, body="busy")] * 3, "auto_retry_start", "assistant:error"),
], ids=["waiting-for-the-first-byte", "while-streaming", "retry-after-wait", "backoff-wait"])
def test_ctrl_c_stops_the_run_and_keeps_the_session(tmp_path, turns, moment, last):
    with FakeServer(turns) as srv:
        run = Run(tmp_path, srv, MINIAGENT_RETRY_BASE_DELAY="30")
        proc = run.start()
        if moment:
            wait_for_event(proc, moment)
        else:
            assert srv.wait_for_requests(1)  # the request is sent; no byte of the answer yet
        _, err = stop_with(proc, signal.SIGINT)
    assert proc.returncode == 130
    assert user_lines(err) == STOPPED
    assert roles(loaded(run.session)) == ["user", last]
    assert run.left_behind() == []


def test_ctrl_c_while_a_tool_runs_kills_its_commands(tmp_path):
    with FakeServer([]) as srv:
        run = Run(tmp_path, srv)
        # "started" comes from the sleeper itself, so the update proves it is running
        command = (f"python3 -c 'import time; print(\"started\", flush=True); time.sleep(60)' "
                   f"{run.marker}")
        srv.turns = [{"content": [{"type": "toolCall", "name": "bash",
                                   "arguments": {"command": command}}]}, HELLO]
        proc = run.start()
        wait_for_event(proc, "tool_execution_update")  # "started": the command runs
        running = subprocess.run(["pgrep", "-f", f"time.sleep\\(60\\).*{run.marker}"],
                                 capture_output=True, text=True).stdout.split()
        _, err = stop_with(proc, signal.SIGINT)
    assert running  # the command was there to be killed
    assert proc.returncode == 130
    assert user_lines(err) == STOPPED
    assert roles(loaded(run.session)) == ["user", "assistant:toolUse", "toolResult",
                                          "assistant:aborted"]
    assert run.left_behind() == []
