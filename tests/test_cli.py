"""The command line, run as a user runs it: python -m miniagent in a subprocess."""

import json
import os
import re
import subprocess
import sys

from helpers import ROOT, run_cli, run_cli_process, start_cli, wait_gone, write_script

def test_version_and_help_with_examples():
    assert re.match(r"miniagent \d+\.\d+\.\d+", run_cli("--version").stdout)
    help_text = run_cli("--help").stdout
    assert "examples:" in help_text and "--demo" in help_text and "--mode" in help_text
    assert "--max-tokens N" in help_text


def test_no_prompt_and_no_terminal_is_a_usage_error():
    result = run_cli()
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "no prompt" in result.stderr


def test_print_mode_prints_only_the_final_answer(tmp_path):
    script = write_script(tmp_path, [
        {"content": [{"type": "text", "text": "Looking."},
                     {"type": "toolCall", "name": "bash", "arguments": {"command": "echo hi"}}]},
        {"content": [{"type": "text", "text": "The command printed hi."}]}])
    result = run_cli("--provider", "scripted", "--script", script, "-p", "run", "echo",
                     cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The command printed hi.\n"


def test_print_mode_error_goes_to_stderr_with_exit_1(tmp_path):
    script = write_script(tmp_path, [{"content": [], "errorMessage": "401 Invalid API key"}])
    result = run_cli("--script", script, "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 1
    assert result.stdout == ""
    assert "401 Invalid API key" in result.stderr


def test_json_mode_prints_every_event_as_one_line_and_nothing_else(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "hello"}]}])
    result = run_cli("--script", script, "--mode", "json", "words", stdin="piped text",
                     cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    # As pi: the session header first, then the run's events.
    assert types[:2] == ["session", "agent_start"]
    assert types[-2:] == ["agent_end", "agent_settled"]
    assert events[0]["version"] == 3 and events[0]["cwd"] == str(tmp_path)
    assert "message_update" in types and "turn_end" in types
    user = next(e["message"] for e in events if e["type"] == "message_start")
    assert user["content"][0]["text"] == "piped text\n\nwords"


def test_demo_fixes_the_file_and_says_where_it_is():
    result = run_cli("--demo")
    assert result.returncode == 0, result.stderr
    assert "Hello, world!" in result.stdout
    where = re.search(r"copied to (\S+)", result.stderr).group(1)
    fixed = open(os.path.join(where, "hello.py")).read()
    assert '"Hello, " + name + "!"' in fixed
    assert os.path.join(where, "hello.py") in result.stderr
    assert "$ python3 hello.py" in result.stderr  # the steps are shown on stderr


def test_the_demo_copy_leaves_out_what_an_install_compiled(tmp_path, monkeypatch):
    """pip compiles the installed demo project's hello.py; the copy the demo's agent
    lists must hold only the project (a newcomer saw __pycache__ in the demo's ls)."""
    import argparse

    from miniagent import assemble

    shipped = tmp_path / "project"
    (shipped / "__pycache__").mkdir(parents=True)
    (shipped / "__pycache__" / "hello.cpython-311.pyc").write_bytes(b"compiled")
    (shipped / "hello.py").write_text("print('hi')\n")
    monkeypatch.setattr(assemble, "DEMO_PROJECT", str(shipped))
    copy = assemble.prepare_cwd(argparse.Namespace(demo=True, cwd=None))
    assert sorted(os.listdir(copy)) == ["hello.py"]


def test_bad_options_are_one_line_errors_with_exit_2(tmp_path):
    missing_dir = run_cli("--cwd", str(tmp_path / "nope"), "-p", "hi")
    assert missing_dir.returncode == 2 and "no such directory" in missing_dir.stderr
    missing_script = run_cli("--script", str(tmp_path / "none.json"), "-p", "hi")
    assert missing_script.returncode == 2 and "Cannot read script" in missing_script.stderr
    bad_tool = run_cli("--script", write_script(tmp_path, []), "--tools", "read,teleport", "hi")
    assert bad_tool.returncode == 2 and "teleport" in bad_tool.stderr


def test_no_stdin_at_all_still_works():
    closed = subprocess.run([sys.executable, "-m", "miniagent", "--demo"], cwd=ROOT,
                            stdin=None, capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=ROOT),
                            preexec_fn=lambda: os.close(0))
    assert closed.returncode == 0, closed.stderr


def test_sigterm_stops_the_run_and_the_commands_it_started(tmp_path):
    import signal

    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": "sleep 60 & echo child $!; sleep 60"}}]},
        {"content": [{"type": "text", "text": "never"}]}])
    proc = start_cli(["--script", script, "--mode", "json", "go"], str(tmp_path))
    try:
        for line in proc.stdout:
            event = json.loads(line)
            if event["type"] == "tool_execution_update":
                child = int(event["partialResult"]["content"][0]["text"].split()[1])
                break
        proc.send_signal(signal.SIGTERM)  # what `timeout` and `kill` send
        proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 143
    assert wait_gone(child)


def test_a_closed_stdout_stops_the_run_quietly(tmp_path):
    marker = tmp_path / "marker"
    script = write_script(tmp_path, [
        {"content": [{"type": "text", "text": "first"},
                     {"type": "toolCall", "name": "bash",
                      "arguments": {"command": f"sleep 5; touch {marker}"}}]},
        {"content": [{"type": "text", "text": "done"}]}])
    proc = start_cli(["--script", script, "--mode", "json", "go"], str(tmp_path))
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 141
    assert "Traceback" not in err
    assert not marker.exists()  # the tool was stopped, not left to run its 5 s


def test_unencodable_model_text_does_not_break_print_or_json_mode(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "bad \ud83d end"}]}])
    printed = run_cli_process("--script", script, "-p", "go", cwd=str(tmp_path))
    assert printed.returncode == 0 and printed.stdout == "bad  end\n"
    lines = run_cli_process("--script", script, "--mode", "json", "go", cwd=str(tmp_path)).stdout
    assert json.loads(lines.splitlines()[-1])["type"] == "agent_settled"


def test_json_mode_on_a_strict_stdout_escapes_lone_surrogates_and_ends_with_agent_end(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "bad \ud83d end"}]},
                                     {"content": [{"type": "text", "text": "again"}]}])
    strict = {"PYTHONIOENCODING": "utf-8", "MINIAGENT_HOME": str(tmp_path / "home")}
    # A real process: its stdout encodes strictly, a StringIO would not.
    # A prompt byte that is not UTF-8 reaches Python as a lone surrogate ("\udcff").
    prompt = os.fsdecode(b"caf\xc3\xa9 \xff")
    first = run_cli_process("--script", script, "--mode", "json", prompt, cwd=str(tmp_path),
                            env=strict)
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert "Traceback" not in first.stderr, first.stderr
    assert [r["type"] for r in records[-2:]] == ["agent_end", "agent_settled"]
    assert records[-2]["messages"][0]["content"][0]["text"] == "caf\u00e9 \udcff"
    assert b"caf\xc3\xa9 \\udcff" in first.stdout.encode("utf-8", "surrogateescape")
    # Resumed, the recorded surrogate is in the history again: still one JSON line each.
    again = run_cli_process("--script", script, "--mode", "json", "-c", "more",
                            cwd=str(tmp_path), env=strict)
    assert json.loads(again.stdout.splitlines()[-1])["type"] == "agent_settled", again.stderr


def test_thinking_on_a_model_that_does_not_reason_is_a_warning(tmp_path):
    from fake_server import FakeServer

    with FakeServer([{"content": [{"type": "text", "text": "ok"}]}]) as srv:
        result = run_cli("--provider", "openai", "--model", "gpt-4.1", "--api-key", "k",
                         "--base-url", srv.base_url + "/v1", "--thinking", "high", "-p", "hi",
                         cwd=str(tmp_path))
        body = srv.requests[0]["body"]
    assert "gpt-4.1 does not reason; --thinking high is ignored" in result.stderr
    assert result.stdout == "ok\n" and "reasoning_effort" not in body


def test_stdout_that_cannot_be_written_is_one_line_and_exit_1(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "answer"}]}])
    env = dict(os.environ, PYTHONPATH=ROOT, MINIAGENT_HOME=str(tmp_path / "home"))
    for mode in (["-p"], ["--mode", "json"]):
        with open("/dev/full", "w") as full:
            result = subprocess.run([sys.executable, "-m", "miniagent", "--script", script,
                                     *mode, "go"], stdout=full, stderr=subprocess.PIPE,
                                    text=True, cwd=str(tmp_path), env=env, timeout=60)
        assert result.returncode == 1
        assert result.stderr.strip() == "miniagent: cannot write to stdout: No space left on device"


def test_closed_stdout_at_start_is_refused(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "answer"}]}])
    result = subprocess.run([sys.executable, "-m", "miniagent", "--script", script, "-p", "go"],
                            stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), timeout=60,
                            env=dict(os.environ, PYTHONPATH=ROOT),
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 2 and "stdout is closed" in result.stderr


def test_print_mode_answer_details(tmp_path):
    script = write_script(tmp_path, [{"content": [{"type": "text", "text": "first"},
                                                  {"type": "text", "text": "second"}],
                                      "stopReason": "length"}])
    result = run_cli("--script", script, "-p", "go", cwd=str(tmp_path))
    assert result.returncode == 0
    assert result.stdout == "first\nsecond\n"  # one text block per line
    assert "cut off by the model's output token limit" in result.stderr
    error = write_script(tmp_path, [{"content": [], "errorMessage": "400 line one\nline two"}])
    failed = run_cli("--script", error, "-p", "go", cwd=str(tmp_path))
    assert failed.stderr == "miniagent: 400 line one line two\n"


def test_the_step_display_shows_control_characters_instead_of_obeying_them(tmp_path):
    (tmp_path / "evil.txt").write_text("title\x1b]0;PWNED\x07 \x1b[2J\n")
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "read", "arguments": {"path": "evil.txt"}}]},
        {"content": [{"type": "text", "text": "done"}]}])
    result = run_cli("--script", script, "go", cwd=str(tmp_path))
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "title\u241b]0;PWNED\u2407 \u241b[2J" in result.stderr
