"""The bell when a run ends or a question waits: off by default, on when asked for,
rung where a user looks (the screen model counts the bells), never into a pipe."""

import json

from fake_server import FakeServer
from pty_driver import Terminal
from helpers import call, run_cli, text, write_script

from miniagent.modes.interactive.notify import wants_notifications
from miniagent.project.settings import Settings

READY = "/help for commands"


def repl(tmp_path, *args, env=None):
    return Terminal(list(args), env={"MINIAGENT_HOME": str(tmp_path / "home"), **(env or {})},
                    cwd=str(tmp_path))


def confirm_run(term):
    """A run that asks a --confirm question, answered yes, then ends; typed on after."""
    term.expect_screen(READY)
    term.send("go\r")
    term.expect_screen("Run it? [y]es, [n]o, [a]lways")
    bells_at_question = term.vt.bells
    term.send("y\r")
    term.expect_screen("Done.")
    term.expect_screen("context ")
    term.send("x")  # a later frame: a bell of the run's end would be in by now
    term.wait_screen(lambda vt: "> x" in vt.lines())
    return bells_at_question


def test_the_bell_rings_when_a_question_waits_and_a_run_ends_only_when_asked_for(tmp_path):
    turns = [{"content": [call("write", path="a.txt", content="one\n")]},
             {"content": [text("Done.")]}]
    args = ["--provider", "scripted", "--script", write_script(tmp_path, turns), "--confirm"]
    with repl(tmp_path, *args) as term:  # by default: silent
        assert confirm_run(term) == 0
        assert term.vt.bells == 0
        term.send("\x15\x04")  # Ctrl-U, Ctrl-D
        assert term.wait() == 0
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"notify": True}))
    with repl(tmp_path, *args) as term:
        term.wait_screen(lambda vt: READY in vt.transcript())
        term.send("go\r")
        term.expect_screen("Run it? [y]es, [n]o, [a]lways")
        term.wait_screen(lambda vt: vt.bells == 1)  # the question waits for the user
        term.send("y\r")
        term.expect_screen("Done.")
        term.wait_screen(lambda vt: vt.bells == 2)  # the run is over
        assert term.vt.unknown == [] and term.vt.unpaired_frames == 0
        term.send("\x04")
        assert term.wait() == 0


def test_a_run_the_user_stopped_rings_no_bell(tmp_path):
    turn = {"content": [text("Hello from a stream that never ends")],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([turn]) as server, repl(
            tmp_path, "--base-url", server.base_url + "/v1", "--model", "fake-model",
            env={"MINIAGENT_NOTIFY": "1"}) as term:
        term.expect_screen(READY)
        term.send("hi\r")
        term.expect_screen("Hello fr")
        term.send("\x1b")  # Esc: whoever stopped it is looking
        term.expect_screen("(stopped)")
        term.expect_screen("context ")
        term.send("x")
        term.wait_screen(lambda vt: "> x" in vt.lines())
        assert term.vt.bells == 0
        term.send("\x15\x04")
        assert term.wait() == 0


def test_the_bell_is_never_written_where_stdout_is_not_a_terminal(tmp_path):
    script = write_script(tmp_path, [{"content": [text("Done.")]}])
    result = run_cli("--provider", "scripted", "--script", script, "-p", "hi",
                     env={"MINIAGENT_NOTIFY": "1"})
    assert result.returncode == 0 and "Done." in result.stdout
    assert "\a" not in result.stdout + result.stderr


def test_the_environment_decides_when_set_the_settings_otherwise():
    on = Settings(notify=True)
    assert wants_notifications(None, {"MINIAGENT_NOTIFY": "1"})
    assert not wants_notifications(on, {"MINIAGENT_NOTIFY": "0"})
    assert wants_notifications(on, {})
    assert not wants_notifications(Settings(), {}) and not wants_notifications(None, {})
