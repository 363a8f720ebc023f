"""The processes the agent starts, seen from outside: python -m miniagent in a subprocess.

What a user observes: a full temp folder does not kill a command's result, a runaway
regex does not outlive SIGTERM, and nothing the agent's commands started is left
running once the process has ended."""

import json
import os
import resource
import signal
import subprocess
import sys
import time

from helpers import ROOT, processes_below, run_cli_process, start_cli, wait_gone, write_script


def test_a_full_output_file_that_cannot_be_written_does_not_lose_the_result(tmp_path):
    # RLIMIT_FSIZE makes every write past 100 KB fail (EFBIG, as a full disk fails
    # with ENOSPC): the full-output file breaks midway, the command's result must not.
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": "seq 1 100000"}}]},
        {"content": [{"type": "text", "text": "done"}]}])

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(
        [sys.executable, "-m", "miniagent", "--script", script, "--no-session", "--mode",
         "json", "go"], cwd=str(tmp_path), env=env, capture_output=True, text=True,
        timeout=60, preexec_fn=small_files)
    assert result.returncode == 0, result.stderr
    end = next(json.loads(line) for line in result.stdout.splitlines()
               if json.loads(line)["type"] == "tool_execution_end")
    assert not end["isError"]
    text = end["result"]["content"][0]["text"]
    assert "\n100000" in text and "Errno" not in text.splitlines()[0]
    assert "full output could not be saved" in text.splitlines()[-1]


def test_sigterm_ends_a_runaway_grep_and_its_matcher(tmp_path):
    (tmp_path / "evil.txt").write_text("a" * 34 + "b\n")
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "grep", "arguments": {"pattern": "(a+)+$"}}]},
        {"content": [{"type": "text", "text": "never"}]}])
    env = dict(os.environ, PYTHONPATH=ROOT, MINIAGENT_GREP_TIMEOUT="600")
    proc = subprocess.Popen([sys.executable, "-m", "miniagent", "--script", script,
                             "--tools", "grep", "--mode", "json", "go"], cwd=str(tmp_path),
                            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if json.loads(line)["type"] == "tool_execution_start":
                break
        matchers = []
        deadline = time.monotonic() + 20
        while not matchers and time.monotonic() < deadline:
            matchers = processes_below(proc.pid, b"regex_child")
            time.sleep(0.02)  # polling /proc, bounded: no event to wait on
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=5)  # the match itself would run for hours
    finally:
        proc.kill()
    assert proc.returncode == 143
    assert matchers and all(wait_gone(pid) for pid in matchers)


# Three ways a command leaves a job running after it ends, each writing the job's pid.
BACKGROUND_JOBS = ("sleep 300 & echo $! >> {pids}; "
                   "setsid sleep 300 & echo $! >> {pids}; "
                   "nohup sleep 300 > /dev/null 2>&1 & echo $! >> {pids}; disown -a")


def started_pids(path):
    return [int(word) for word in path.read_text().split()] if path.exists() else []


def kill_leftovers(pids):
    """Test hygiene: whatever the test found alive must not outlive it either."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def test_background_jobs_serve_the_next_call_and_end_with_the_process(tmp_path):
    pids, status = tmp_path / "pids", tmp_path / "status"
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": BACKGROUND_JOBS.format(pids=pids)}}]},
        {"content": [{"type": "toolCall", "name": "bash", "arguments": {
            "command": f"for p in $(cat {pids}); do kill -0 $p && echo alive >> {status}; done"}}]},
        {"content": [{"type": "text", "text": "done"}]}])
    try:
        result = run_cli_process("--script", script, "--no-session", "-p", "go", cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert len(started_pids(pids)) == 3
        assert status.read_text().split() == ["alive"] * 3  # still there for the next call
        assert [pid for pid in started_pids(pids) if not wait_gone(pid)] == []
    finally:
        kill_leftovers(started_pids(pids))


def test_sigterm_ends_the_background_jobs_of_earlier_calls(tmp_path):
    pids = tmp_path / "pids"
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": BACKGROUND_JOBS.format(pids=pids)}}]},
        {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "sleep 60"}}]},
        {"content": [{"type": "text", "text": "never"}]}])
    proc = start_cli(["--script", script, "--no-session", "--mode", "json", "go"], str(tmp_path))
    try:
        starts = 0
        for line in proc.stdout:
            starts += json.loads(line)["type"] == "tool_execution_start"
            if starts == 2:  # the first call is over, its jobs run on
                break
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
        assert proc.returncode == 143
        assert len(started_pids(pids)) == 3
        assert [pid for pid in started_pids(pids) if not wait_gone(pid)] == []
    finally:
        proc.kill()
        kill_leftovers(started_pids(pids))


def test_a_background_job_of_an_rpc_bash_command_ends_with_the_process(tmp_path):
    pids = tmp_path / "pids"
    command = json.dumps({"id": "1", "type": "bash", "command": BACKGROUND_JOBS.format(pids=pids)})
    try:
        result = run_cli_process("--script", write_script(tmp_path, []), "--mode", "rpc",
                         "--no-session", stdin=command + "\n", cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout.splitlines()[0])["success"]
        assert len(started_pids(pids)) == 3
        assert [pid for pid in started_pids(pids) if not wait_gone(pid)] == []
    finally:
        kill_leftovers(started_pids(pids))
