"""Sessions through the command line, as a user meets them: on by default, -c, --session,
--fork, resuming pi's files, crashes, torn lines, and the subcommands."""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys

from fake_server import FakeServer
from helpers import FIXTURES, ROOT, answer, run_cli, write_script

PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"


def session_files(home):
    return sorted(glob.glob(os.path.join(str(home), "sessions", "*", "*.jsonl")))


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_a_run_writes_a_session_in_the_cwd_folder_and_c_continues_it(tmp_path, private_home):
    first = run_cli("--script", write_script(tmp_path, [answer("one")]), "-p", "hello",
                    cwd=str(tmp_path))
    assert first.returncode == 0, first.stderr
    [path] = session_files(private_home)
    slug = "--" + str(tmp_path).strip("/").replace("/", "-") + "--"
    assert os.path.basename(os.path.dirname(path)) == slug
    entries = lines_of(path)
    assert entries[0]["type"] == "session" and entries[0]["version"] == 3
    assert [e["type"] for e in entries[1:3]] == ["model_change", "thinking_level_change"]
    again = run_cli("--script", write_script(tmp_path, [answer("two")]), "-c", "-p", "more",
                    cwd=str(tmp_path))
    assert again.returncode == 0 and again.stdout.strip() == "two"
    assert session_files(private_home) == [path]  # appended, not a new file
    messages = [e["message"] for e in lines_of(path) if e["type"] == "message"]
    # the first request recorded the prompt and tools (pi 1.6's system entry); the same
    # setup resumed records nothing more
    assert [m["role"] for m in messages].count("system") == 1
    texts = [m["content"][0]["text"] for m in messages if m["role"] != "system"]
    assert texts == ["hello", "one", "more", "two"]


def test_no_session_writes_nothing(tmp_path, private_home):
    result = run_cli("--script", write_script(tmp_path, [answer("x")]), "--no-session",
                     "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 0 and session_files(private_home) == []


def test_c_with_no_earlier_session_starts_a_new_one_with_a_note(tmp_path, private_home):
    result = run_cli("--script", write_script(tmp_path, [answer("x")]), "-c", "-p", "hi",
                     cwd=str(tmp_path))
    assert result.returncode == 0 and "no earlier session" in result.stderr
    assert len(session_files(private_home)) == 1


def test_session_by_id_prefix_and_unknown_id(tmp_path, private_home):
    run_cli("--script", write_script(tmp_path, [answer("x")]), "-p", "hi", cwd=str(tmp_path))
    [path] = session_files(private_home)
    session_id = lines_of(path)[0]["id"]
    result = run_cli("--script", write_script(tmp_path, [answer("y")]),
                     "--session", session_id[:6], "-p", "again", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert len(lines_of(path)) > 5 and session_files(private_home) == [path]
    missing = run_cli("--script", write_script(tmp_path, [answer("y")]),
                      "--session", "ffffffffff", "-p", "again", cwd=str(tmp_path))
    assert missing.returncode == 1 and "ffffffffff" in missing.stderr
    assert missing.stderr.count("\n") == 1


def test_session_file_is_created_when_missing(tmp_path):
    target = tmp_path / "mine.jsonl"
    result = run_cli("--script", write_script(tmp_path, [answer("x")]), "--session",
                     str(target), "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 0 and lines_of(target)[0]["type"] == "session"


def test_a_file_that_is_not_a_session_is_an_error_and_left_untouched(tmp_path):
    target = tmp_path / "notes.jsonl"
    target.write_text("this is not a session\n")
    result = run_cli("--script", write_script(tmp_path, [answer("x")]), "--session",
                     str(target), "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 1 and str(target) in result.stderr
    assert target.read_text() == "this is not a session\n"


def test_resume_without_a_terminal_is_a_usage_error(tmp_path):
    result = run_cli("--script", write_script(tmp_path, [answer("x")]), "-r", "-p", "hi",
                     cwd=str(tmp_path))
    assert result.returncode == 2 and "terminal" in result.stderr


def test_fork_at_an_entry_copies_the_path_up_to_it(tmp_path, private_home):
    run_cli("--script", write_script(tmp_path, [answer("one")]), "-p", "first",
            cwd=str(tmp_path))
    run_cli("--script", write_script(tmp_path, [answer("two")]), "-c", "-p", "second",
            cwd=str(tmp_path))
    [source] = session_files(private_home)
    before = open(source, "rb").read()
    entries = lines_of(source)
    one = next(e for e in entries if e["type"] == "message"
               and e["message"]["role"] == "assistant"
               and e["message"]["content"][0]["text"] == "one")
    result = run_cli("--script", write_script(tmp_path, [answer("three")]),
                     "--fork", f"{source}:{one['id']}", "-p", "other", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    [fork] = [p for p in session_files(private_home) if p != source]
    forked = lines_of(fork)
    assert forked[0]["parentSession"] == source
    texts = [e["message"]["content"][0]["text"] for e in forked
             if e["type"] == "message" and e["message"]["role"] != "system"]
    assert texts == ["first", "one", "other", "three"]
    assert open(source, "rb").read() == before


def test_resuming_a_pi_v1_file_continues_in_a_new_v3_file(tmp_path, private_home):
    copy = tmp_path / "pi.jsonl"
    shutil.copy(PI_V1, copy)
    original = copy.read_bytes()
    # pi's last reply used more of the window than the reserve leaves, so the next
    # prompt compacts first. The cut falls inside a long turn: one summary of the
    # history, one of the turn's start (run in parallel, in either order), then the answer.
    turns = [answer("## Goal\nFinish the port."), answer("## Goal\nFinish the port."),
             answer("carrying on")]
    result = run_cli("--script", write_script(tmp_path, turns),
                     "--session", str(copy), "-p", "next", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert copy.read_bytes() == original
    [new] = session_files(private_home)
    entries = lines_of(new)
    assert entries[0]["version"] == 3 and entries[0]["parentSession"] == str(copy)
    assert entries[-1]["message"]["content"][0]["text"] == "carrying on"
    assert len(entries) > 1000  # the migrated entries stand alone in the new file
    assert entries[-3]["type"] == "compaction"
    assert entries[-3]["summary"].startswith("## Goal\nFinish the port.")


def test_a_torn_last_line_warns_and_later_entries_are_whole(tmp_path, private_home):
    run_cli("--script", write_script(tmp_path, [answer("one")]), "-p", "first",
            cwd=str(tmp_path))
    [path] = session_files(private_home)
    with open(path, "a") as f:
        f.write('{"type":"message","id":"abc')  # a crash in the middle of a write
    torn = open(path, "rb").read()
    result = run_cli("--script", write_script(tmp_path, [answer("two")]), "-c", "-p", "more",
                     cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "warning" in result.stderr and path in result.stderr
    after = open(path, "rb").read()
    assert after.startswith(torn + b"\n")
    for line in after[len(torn) + 1:].decode().splitlines():
        json.loads(line)  # every appended line is whole


def test_sigkill_during_a_tool_call_then_c_sends_a_valid_request(tmp_path, private_home):
    slow = {"content": [{"type": "toolCall", "name": "bash",
                         "arguments": {"command": "echo started; sleep 31.7"}}]}
    with FakeServer([slow, answer("after the crash")]) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "miniagent", "--base-url", srv.base_url + "/v1",
             "--model", "m", "--mode", "json", "run it"], cwd=str(tmp_path),
            env=dict(os.environ, PYTHONPATH=ROOT), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            for line in proc.stdout:
                if json.loads(line)["type"] == "tool_execution_update":
                    break  # the command is running
            proc.kill()
            proc.wait(timeout=10)
        finally:
            proc.kill()
        subprocess.run(["pkill", "-f", "^sleep 31.7"], check=False)  # SIGKILL left it behind
        resumed = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "-c", "-p",
                          "go on", cwd=str(tmp_path))
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout.strip() == "after the crash"
        messages = srv.requests[-1]["body"]["messages"]
    roles = [m["role"] for m in messages]
    assert roles[-4:] == ["user", "assistant", "tool", "user"]
    assert messages[-2]["content"] == "No result provided"
    assert messages[-2]["tool_call_id"] == messages[-3]["tool_calls"][0]["id"]


def test_a_retried_failure_is_kept_in_the_file_but_not_sent_again(tmp_path, private_home):
    turns = [{"content": [{"type": "text", "text": "half an answ"}],
              "fault": {"reset_after_bytes": 400}}, answer("whole answer")]
    with FakeServer(turns) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "-p", "hi",
                         cwd=str(tmp_path), env={"MINIAGENT_RETRY_BASE_DELAY": "0.01"})
        assert result.returncode == 0 and result.stdout.strip() == "whole answer"
        retried = srv.requests[-1]["body"]["messages"]
    assert [m["role"] for m in retried] == ["system", "user"]
    [path] = session_files(private_home)
    assistants = [e["message"] for e in lines_of(path)
                  if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert [m["stopReason"] for m in assistants] == ["error", "stop"]


def test_the_api_key_is_in_no_file_miniagent_writes(tmp_path, private_home):
    key = "sk-test-very-secret-key-0123456789"
    turns = [{"content": [{"type": "toolCall", "name": "bash",
                           "arguments": {"command": "env > env.txt"}}]}, answer("done")]
    with FakeServer(turns) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--api-key", key,
                         "-p", "hi", cwd=str(tmp_path))
        assert srv.requests[0]["headers"]["authorization"] == f"Bearer {key}"
    assert result.returncode == 0, result.stderr
    for folder in (tmp_path, private_home):
        for dirpath, _, names in os.walk(str(folder)):
            for name in names:
                with open(os.path.join(dirpath, name), "rb") as f:
                    assert key.encode() not in f.read(), os.path.join(dirpath, name)


def test_sessions_lists_this_cwd_and_stats_reads_pi_files(tmp_path, private_home):
    run_cli("--script", write_script(tmp_path, [answer("x")]), "-p", "find the bug",
            cwd=str(tmp_path))
    listing = run_cli("sessions", cwd=str(tmp_path))
    assert listing.returncode == 0 and "find the bug" in listing.stdout
    stats = run_cli("stats", str(PI_V1), "--json")
    assert stats.returncode == 0, stats.stderr
    expected = {}
    for entry in lines_of(PI_V1):
        message = entry.get("message") or {}
        if message.get("role") == "assistant":
            for block in message.get("content") or []:
                if block.get("type") == "toolCall":
                    expected[block["name"]] = expected.get(block["name"], 0) + 1
    assert json.loads(stats.stdout)["total"]["toolCalls"] == expected
    broken = run_cli("stats", str(PI_V1), str(tmp_path / "missing.jsonl"))
    assert broken.returncode == 1 and "missing.jsonl" in broken.stderr
    assert "bash " in broken.stdout  # the readable file is still reported


def test_stats_is_a_subcommand_only_as_the_first_word(tmp_path):
    result = run_cli("--script", write_script(tmp_path, [answer("ok")]), "-p", "--",
                     "stats", "of", "this", cwd=str(tmp_path))
    assert result.returncode == 0 and result.stdout.strip() == "ok"


def test_second_stop_signal_quits_at_once_and_kills_the_command(tmp_path):
    slow = [{"content": [{"type": "toolCall", "name": "bash",
                          "arguments": {"command": "echo started; exec sleep 41.3"}}]}]
    proc = subprocess.Popen(
        [sys.executable, "-m", "miniagent", "--script", write_script(tmp_path, slow),
         "--mode", "json", "go"], cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=ROOT),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pid_of_sleep = None
    try:
        for line in proc.stdout:
            if json.loads(line)["type"] == "tool_execution_update":
                break
        children = subprocess.run(["pgrep", "-f", "^sleep 41.3"],
                                  capture_output=True, text=True).stdout.split()
        pid_of_sleep = int(children[0]) if children else None
        proc.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)  # at once: the second quits immediately
        proc.wait(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 143
    assert pid_of_sleep is not None
    assert not os.path.exists(f"/proc/{pid_of_sleep}") or \
        open(f"/proc/{pid_of_sleep}/stat").read().split()[2] == "Z"


def test_a_new_base_url_is_recorded_so_c_goes_on_with_it(tmp_path, private_home):
    with FakeServer([answer("from A")]) as a, FakeServer([answer("from B"),
                                                          answer("B again")]) as b:
        run_cli("--base-url", a.base_url + "/v1", "--model", "m", "-p", "one", cwd=str(tmp_path))
        run_cli("--base-url", b.base_url + "/v1", "--model", "m", "-c", "-p", "two",
                cwd=str(tmp_path))
        third = run_cli("-c", "-p", "three", cwd=str(tmp_path))
        assert third.returncode == 0 and third.stdout.strip() == "B again", third.stderr
        assert len(a.requests) == 1 and len(b.requests) == 2


def test_listings_show_control_characters_from_session_files_not_obey_them(tmp_path,
                                                                          private_home):
    hostile = "\x1b]0;PWNED\x07\x1b[31mred\u202e"
    turns = [{"content": [{"type": "toolCall", "name": "bash",
                           "arguments": {"command": "true"}}]}, answer("x")]
    run_cli("--script", write_script(tmp_path, turns), "-p", hostile, cwd=str(tmp_path))
    [path] = session_files(private_home)
    listing = run_cli("sessions", cwd=str(tmp_path)).stdout
    figures = run_cli("stats", path).stdout
    assert "\x1b" not in listing and "\u202e" not in listing and "␛]0;PWNED" in listing
    assert "\x1b" not in figures


def test_a_subcommand_whose_reader_leaves_exits_141_without_a_traceback(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "miniagent", "stats", str(PI_V1), "--json"],
                            env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before a byte was written
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141 and b"Traceback" not in err


def test_conflicting_session_flags_are_one_line_usage_errors(tmp_path):
    for args in (["--no-session", "-c"], ["--session", "x.jsonl", "--fork", "y.jsonl"],
                 ["--session", ""], ["--bogus"]):
        result = run_cli(*args, "-p", "hi", cwd=str(tmp_path))
        assert result.returncode == 2 and result.stderr.count("\n") == 1, (args, result.stderr)
        assert "--help" in result.stderr
