"""The workshop subcommands through the command line: export a session as HTML, turn a
recorded session into a script, replay it offline with the real tools."""

import glob
import json
import os
import shutil

from helpers import FIXTURES, run_cli, write_script

PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"


def test_export_writes_html_beside_the_session_and_prints_the_path(tmp_path):
    copy = tmp_path / "pi.jsonl"
    shutil.copy(PI_V1, copy)
    result = run_cli("export", str(copy))
    assert result.returncode == 0, result.stderr
    written = result.stdout.strip()
    assert written == str(tmp_path / "pi.html")
    page = open(written, encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>") and "<script src" not in page


def test_export_of_a_header_only_session_and_of_a_missing_file(tmp_path):
    header = tmp_path / "empty.jsonl"
    header.write_text(json.dumps({"type": "session", "version": 3, "id": "x",
                                  "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}) + "\n")
    out = tmp_path / "out.html"
    result = run_cli("export", str(header), "-o", str(out))
    assert result.returncode == 0 and out.exists()
    missing = run_cli("export", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and "nope.jsonl" in missing.stderr
    assert missing.stderr.count("\n") == 1


def test_a_recorded_session_replays_offline_with_the_same_tool_calls(tmp_path, private_home):
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("print('helo')\n")
    turns = [
        {"content": [{"type": "text", "text": "Looking."},
                     {"type": "toolCall", "name": "read", "arguments": {"path": "app.py"}}]},
        {"content": [{"type": "toolCall", "name": "edit", "arguments": {
            "path": "app.py", "edits": [{"oldText": "helo", "newText": "hello"}]}}]},
        {"content": [{"type": "text", "text": "Fixed the typo."}]},
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": "python3 app.py"}}]},
        {"content": [{"type": "text", "text": "It prints hello."}]},
    ]
    recorded_copy = tmp_path / "pristine"
    shutil.copytree(project, recorded_copy)
    first = write_script(tmp_path, turns[:3])
    assert run_cli("--script", first, "-p", "fix the typo", cwd=str(project)).returncode == 0
    second = write_script(tmp_path, turns[3:])
    assert run_cli("--script", second, "-c", "-p", "run it", cwd=str(project)).returncode == 0
    [session] = glob.glob(os.path.join(str(private_home), "sessions", "*", "*.jsonl"))
    converted = run_cli("script", session)
    assert converted.returncode == 0, converted.stderr
    replay = converted.stdout.strip()
    assert replay == session[:-len(".jsonl")] + ".script.json"
    data = json.load(open(replay))
    assert data["prompts"] == ["fix the typo", "run it"]

    result = run_cli("--provider", "scripted", "--script", replay, "--mode", "json",
                     "--no-session", cwd=str(recorded_copy))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    calls = [e["toolName"] for e in events if e["type"] == "tool_execution_start"]
    assert calls == ["read", "edit", "bash"]
    last = [e for e in events if e["type"] == "agent_end"][-1]["messages"][-1]
    assert last["content"][0]["text"] == "It prints hello."
    assert (recorded_copy / "app.py").read_text() == "print('hello')\n"


def test_export_and_script_refuse_a_link_planted_at_their_default_path(tmp_path):
    received = tmp_path / "received"
    received.mkdir()
    session = received / "pi.jsonl"
    shutil.copy(PI_V1, session)
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("alias ls='ls --color'\n")
    for command, suffix in (("export", ".html"), ("script", ".script.json")):
        planted = received / ("pi" + suffix)
        planted.symlink_to(bashrc)
        result = run_cli(command, str(session), cwd=str(tmp_path))
        assert result.returncode == 1, result.stderr
        assert result.stderr == (f"miniagent {command}: not writing {planted}: it is a "
                                 f"symbolic link (remove it, or name the output file with -o)\n")
        assert bashrc.read_text() == "alias ls='ls --color'\n" and planted.is_symlink()
        planted.unlink()
        # Nothing there: a new plain file.
        assert run_cli(command, str(session), cwd=str(tmp_path)).returncode == 0
        assert planted.is_file() and not planted.is_symlink()


def test_an_output_path_the_user_names_is_written_even_through_a_link(tmp_path):
    session = tmp_path / "pi.jsonl"
    shutil.copy(PI_V1, session)
    page = tmp_path / "pages" / "today.html"
    page.parent.mkdir()
    link = tmp_path / "latest.html"
    link.symlink_to(page)  # the user's own link, named with -o: written as given
    result = run_cli("export", str(session), "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
