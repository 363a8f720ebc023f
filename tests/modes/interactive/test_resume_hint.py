"""The REPL's last line, how to come back to the session: in a terminal, and as lines."""

import json
from types import SimpleNamespace

from pty_driver import Terminal
from helpers import text, write_script

from miniagent.modes.interactive.resume_hint import resume_hint

READY = "/help for commands"
HINT = "Continue this session: miniagent --session "


def scripted(tmp_path, turns):
    return ["--provider", "scripted", "--script", write_script(tmp_path, turns)]


def repl(tmp_path, *args):
    return Terminal(list(args), env={"MINIAGENT_HOME": str(tmp_path / "home")},
                    cwd=str(tmp_path))


def session_id(tmp_path):
    header = next((tmp_path / "home" / "sessions").rglob("*.jsonl")).read_text().split("\n")[0]
    return json.loads(header)["id"]


def test_quit_and_ctrl_d_say_how_to_come_back_once_there_is_a_session(tmp_path):
    turns = [{"content": [text("Hi.")]}, {"content": [text("Again.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("\x04")  # Ctrl-D before any reply: no file, nothing to come back to
        assert term.wait() == 0
        assert "Continue this session" not in term.vt.transcript()
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("hi\r")
        term.expect_screen("context ")
        term.send("/quit\r")
        assert term.wait() == 0
        hint = f"{HINT}{session_id(tmp_path)} (or miniagent -c)"
        term.wait_screen(lambda vt: hint in vt.transcript().split("\n"))
    with repl(tmp_path, *scripted(tmp_path, turns), "--session", session_id(tmp_path)) as term:
        term.expect_screen("> hi")  # the hint's command brings the session back
        term.send("\x04")
        assert term.wait() == 0
        term.wait_screen(lambda vt: hint in vt.transcript().split("\n"))


def test_a_session_kept_elsewhere_is_named_by_its_path_and_an_unwritten_one_not_at_all(
        tmp_path):
    elsewhere = str(tmp_path / "my sessions" / "a.jsonl")
    written = SimpleNamespace(path=elsewhere, id="0193a0cb-e000")
    assert resume_hint(written, str(tmp_path)) == (
        f"Continue this session: miniagent --session '{elsewhere}'")  # no -c: not here
    assert resume_hint(SimpleNamespace(path=None, id="0193a0cb"), str(tmp_path)) is None
