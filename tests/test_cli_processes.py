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

from miniagent.tools.reaper import descendants
from test_cli import ROOT, wait_gone, write_script


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


def children_running(pid, marker):
    """The descendants of `pid` whose command line holds `marker`."""
    found = []
    for child in descendants(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if marker in f.read():
                    found.append(child)
        except OSError:
            pass
    return found


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
            matchers = children_running(proc.pid, b"regex_child")
            time.sleep(0.02)  # polling /proc, bounded: no event to wait on
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=5)  # the match itself would run for hours
    finally:
        proc.kill()
    assert proc.returncode == 143
    assert matchers and all(wait_gone(pid) for pid in matchers)
