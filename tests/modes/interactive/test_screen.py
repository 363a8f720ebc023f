"""The REPL's screen (screen.py) in a pseudo-terminal, looked at through the screen
model (tests/vt_screen.py): what a window change and the working line leave on it."""

from fake_server import FakeServer, status
from pty_driver import Terminal
from helpers import call, text, write_script

CTRL_C, CTRL_D = "\x03", "\x04"
READY = "/help for commands"  # the greeting: the editor is live under it
PARAGRAPH = ("Narrowing the window while this paragraph streams must leave one copy of it "
             "on the screen and in the scrollback, drawn again for the new width, and no "
             "half of the rows it had before the window changed, whatever the terminal "
             "did with them. The rest arrives after the resize.")


def served(server):
    return ["--base-url", server.base_url + "/v1", "--model", "fake-model"]


def repl(tmp_path, *args, env=None, **size):
    """The REPL in a terminal, in tmp_path, with its own MINIAGENT_HOME."""
    return Terminal(list(args), env={"MINIAGENT_HOME": str(tmp_path / "home"), **(env or {})},
                    cwd=str(tmp_path), **size)


def status_row(vt):
    """The status line on screen (a spinner frame first), or None."""
    return next((row[2:] for row in vt.lines() if row[:1] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" and row), None)


def drawn_for(columns):
    """A wait: every row of the transcript drawn for `columns` (the last one never
    written), so none is a row the terminal split from a wider one."""
    return lambda vt: all(len(row) < columns for row in vt.transcript().split("\n"))


def test_a_narrower_window_mid_stream_leaves_no_stale_copy(tmp_path):
    turn = {"content": [text(PARAGRAPH)], "fault": {"hold_after_pieces": 30}}
    with FakeServer([turn]) as server, repl(tmp_path, *served(server), columns=120, rows=30,
                                            reflow=True) as term:
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


def test_a_narrower_window_after_the_answer_renders_it_again_for_the_new_width(tmp_path):
    answer = " ".join(f"alpha{n:02} beta gamma delta" for n in range(12)) + "\n\n- " + \
        " ".join(f"item{n:02} word" for n in range(20))
    with FakeServer([{"content": [text(answer)]}]) as server, \
            repl(tmp_path, *served(server), columns=120, rows=30, reflow=True) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("context ")  # the answer is finished, in the scrollback
        term.resize(60, 30)
        # the redraw may arrive in several reads: wait for all of it, the footer last
        term.wait_screen(lambda vt: drawn_for(60)(vt) and "alpha00" in vt.transcript()
                         and "context " in vt.transcript())
        rows = term.vt.transcript().split("\n")
        first = next(i for i, row in enumerate(rows) if row.startswith("alpha00"))
        paragraph = rows[first:rows.index("", first)]
        assert len(paragraph) == 6 and all(len(row) > 50 for row in paragraph[:-1])
        item = rows.index("", first) + 1  # a list item: its rows under its text
        assert rows[item].startswith("• item00")
        assert [row[:2] for row in rows[item + 1:item + 5]] == ["  "] * 4
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_working_line_shows_while_the_answer_streams(tmp_path):
    turn = {"content": [text("Streaming on and on, the rest held back.")],
            "fault": {"hold_after_pieces": 3}}
    with FakeServer([turn]) as server, repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("Streaming on and")
        term.wait_screen(lambda vt: (status_row(vt) or "").startswith("working · "))
        server.go_on.set()
        term.expect_screen("context ")
        term.wait_screen(lambda vt: status_row(vt) is None)  # the run is over: no line
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_confirm_question_stills_the_screen_nothing_says_running(tmp_path):
    turns = [{"content": [call("bash", command="touch made")]}, {"content": [text("Done.")]}]
    script = write_script(tmp_path, turns)
    with repl(tmp_path, "--provider", "scripted", "--script", script, "--confirm") as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("bash wants to run:")
        term.wait_screen(lambda vt: any("[y]es" in row for row in vt.lines()))
        assert status_row(term.vt) is None  # no spinner, no "running $ touch · 14s"
        term.send("y\r")
        term.expect_screen("Done.")
        term.expect_screen("context ")
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_retry_wait_counts_down_and_ctrl_c_during_it_says_it_stopped(tmp_path):
    with FakeServer([status(503, body="busy")] * 2) as server, repl(
            tmp_path, *served(server), env={"MINIAGENT_RETRY_BASE_DELAY": "60"}) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("retrying in")  # the notice, with the error
        term.wait_screen(lambda vt: (status_row(vt) or "").startswith("retrying in "))
        assert status_row(term.vt).endswith("s (1 of 3)")  # a countdown, not a clock
        term.ctrl_c()
        term.expect_screen("(stopped before the retry)")
        term.expect_screen("context ")
        assert len(server.requests) == 1
        term.send(CTRL_D)
        assert term.wait() == 0


def test_the_not_in_the_registry_warning_comes_on_the_first_start_only(tmp_path):
    with FakeServer([]) as server:  # asked only which models it serves: none said
        for start, warned in ((1, True), (2, False)):
            with repl(tmp_path, *served(server)) as term:
                shown = term.expect_screen(READY)
                assert ("is not in the registry" in shown) is warned, start
                term.send(CTRL_D)
                assert term.wait() == 0
