"""The REPL's screen (screen.py) in a pseudo-terminal, looked at through the screen
model (tests/vt_screen.py): what a window change and the working line leave on it."""

from fake_server import FakeServer
from pty_driver import Terminal
from helpers import text

CTRL_C, CTRL_D = "\x03", "\x04"
READY = "/help for commands"  # the greeting: the editor is live under it
PARAGRAPH = ("Narrowing the window while this paragraph streams must leave one copy of it "
             "on the screen and in the scrollback, drawn again for the new width, and no "
             "half of the rows it had before the window changed, whatever the terminal "
             "did with them. The rest arrives after the resize.")


def served(server):
    return ["--base-url", server.base_url + "/v1", "--model", "fake-model"]


def drawn_for(columns):
    """A wait: every row of the transcript drawn for `columns` (the last one never
    written), so none is a row the terminal split from a wider one."""
    return lambda vt: all(len(row) < columns for row in vt.transcript().split("\n"))


def test_a_narrower_window_mid_stream_leaves_no_stale_copy(tmp_path):
    turn = {"content": [text(PARAGRAPH)], "fault": {"hold_after_pieces": 30}}
    with FakeServer([turn]) as server, Terminal(
            served(server), env={"MINIAGENT_HOME": str(tmp_path / "home")},
            cwd=str(tmp_path), columns=120, rows=30, reflow=True) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("whatever the")  # three rows of the open paragraph, held
        term.resize(60, 30)  # the terminal splits each old row in two (as tmux does)
        term.wait_screen(drawn_for(60))  # everything drawn again, for 60 columns
        assert term.vt.transcript().count("Narrowing the window") == 1
        server.go_on.set()
        term.expect_screen("context ")
        transcript = term.vt.transcript()
        assert transcript.count("Narrowing the window") == 1
        assert transcript.count("arrives after") == 1
        assert transcript.count("go") >= 1 and "> go" in transcript.split("\n")
        term.send(CTRL_D)
        assert term.wait() == 0
