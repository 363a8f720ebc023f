"""The renderer against a VT100 screen model (tests/vt_screen.py): what a user sees
after each frame, and what each frame costs in bytes."""

from vt_screen import Screen

from miniagent.tui.markdown import render_markdown
from miniagent.tui.renderer import Block, Renderer, rows_of
from miniagent.tui.style import Style
from miniagent.tui.width import text_width


class Terminal:
    """A renderer wired to a screen model; `written` holds each frame's bytes."""

    def __init__(self, columns=40, rows=10, reflow=False):
        self.screen = Screen(columns, rows, reflow=reflow)
        self.written = []
        self.renderer = Renderer(self._write, lambda: (self.screen.columns, self.screen.rows))

    def _write(self, text):
        self.written.append(text)
        self.screen.feed(text)

    def frame(self, live, commits=(), cursor=None):
        self.renderer.commit(list(commits))
        self.renderer.set_live(live, cursor)
        self.renderer.paint()
        return self.written[-1]


def test_committed_lines_go_above_the_live_area_once_and_the_live_area_is_replaced():
    term = Terminal()
    term.frame(["⠋ waiting · 0s", "> "], cursor=(1, 2))
    term.frame(["⠙ waiting · 1s", "> "], commits=["first answer line"], cursor=(1, 2))
    term.frame(["⠹ running $ ls · 0s", "> hi"], commits=["second"], cursor=(1, 4))
    assert term.screen.transcript().split("\n") == [
        "first answer line", "second", "⠹ running $ ls · 0s", "> hi"]
    assert term.screen.cursor == (3, 4)
    assert term.screen.unknown == [] and term.screen.unpaired_frames == 0


def test_a_frame_rewrites_only_the_rows_that_changed():
    term = Terminal()
    live = [f"line {n} of the live area" for n in range(6)] + ["> typing"]
    term.frame(live, cursor=(6, 8))
    live[3] = "line 3 changed"
    written = term.frame(live, cursor=(6, 8))
    assert "line 3 changed" in written
    assert "line 2" not in written and "line 4" not in written and "typing" not in written
    assert term.screen.lines()[:7] == live
    assert term.frame(live, cursor=(6, 8)).count("line") == 0  # nothing changed: no text


def test_a_shrinking_live_area_leaves_no_rows_behind():
    term = Terminal()
    term.frame(["spinner", "    output 1", "    output 2", "> "], cursor=(3, 2))
    term.frame(["> "], commits=["  $ make", "    done"], cursor=(0, 2))
    term.frame(["> x"], cursor=(0, 3))
    assert term.screen.transcript().split("\n") == ["  $ make", "    done", "> x"]


def test_the_last_column_is_never_written_and_wide_characters_count_two():
    term = Terminal(columns=20)
    term.frame(["x" * 50, "日本語" * 10], commits=["y" * 45])
    rows = term.screen.lines()
    assert rows[0] == "y" * 19 and rows[1] == "y" * 19 and rows[2] == "y" * 7
    assert rows[3] == "x" * 19
    assert text_width(rows[4]) <= 19 and rows[4].startswith("日本語")
    assert all(term.screen.cell(row, 19).char in ("", " ") for row in range(5))


def test_a_width_change_repaints_the_whole_live_area():
    term = Terminal(columns=40, rows=10)
    live = ["status line that is fairly long here", "> some input"]
    term.frame(live, commits=["kept"], cursor=(1, 12))
    term.screen.resize(25, 10)  # xterm cuts the rows; the renderer must draw them again
    term.renderer.invalidate()
    term.frame(live, cursor=(1, 12))
    assert term.screen.transcript().split("\n") == ["kept", live[0][:24], "> some input"]
    assert term.screen.cursor == (2, 12)


def test_a_narrower_window_that_reflows_leaves_no_stale_copy_of_the_live_area():
    term = Terminal(columns=60, rows=12, reflow=True)  # tmux, VTE: rows split, not cut
    paragraph = "the open paragraph of an answer, streamed word by word into the area"
    term.frame([paragraph, "> typed"], commits=["before", "x" * 70], cursor=(1, 7))
    term.screen.resize(30, 12)  # the old live area is now four rows, not two
    term.renderer.invalidate()
    term.frame([paragraph, "> typed"], cursor=(1, 7))
    assert term.screen.transcript().split("\n") == [
        "before", "x" * 29, "x" * 29, "x" * 12,  # committed lines, wrapped again
        paragraph[:29], "> typed"]  # the live area once, cut for the new width
    assert term.screen.cursor == (5, 7)


ANSWER = " ".join(f"alpha{n:02} beta gamma delta" for n in range(12)) + "\n\n- " + " ".join(
    f"item{n:02} word" for n in range(20))


def markdown_block(text):
    return Block(text, lambda source, width: render_markdown(source, width, Style(False)))


def test_a_block_is_rendered_again_from_its_source_a_plain_line_only_wrapped():
    block = markdown_block("- " + "word " * 20)
    assert rows_of(block, 30) == render_markdown("- " + "word " * 20, 30, Style(False))
    assert [row[:2] for row in rows_of(block, 30)] == ["• "] + ["  "] * 3  # hanging indent
    assert rows_of("x" * 70, 30) == ["x" * 30, "x" * 30, "x" * 10]


def test_a_narrower_window_renders_committed_blocks_again_from_their_source():
    term = Terminal(columns=120, rows=20, reflow=True)
    term.frame(["> "], commits=[markdown_block(ANSWER), "  $ ls"], cursor=(0, 2))
    assert term.screen.transcript().split("\n")[:-2] == render_markdown(
        ANSWER, 119, Style(False))  # as wide as the view makes it (columns - 1)
    term.screen.resize(60, 20)
    term.renderer.invalidate()
    term.frame(["> "], cursor=(0, 2))
    rows = term.screen.transcript().split("\n")
    assert rows == render_markdown(ANSWER, 59, Style(False)) + ["  $ ls", "> "]
    assert all(len(row) > 50 for row in rows[:5])  # not ragged: no row of one word
    item = rows.index("") + 1
    assert rows[item].startswith("• item00") and rows[item + 1].startswith("  word")


def test_a_wider_window_keeps_the_scrollback_and_repaints_the_live_area():
    term = Terminal(columns=30, rows=10, reflow=True)
    term.frame(["status", "> a"], commits=["kept"], cursor=(1, 3))
    written = term.frame(["status", "> a"], cursor=(1, 3))
    term.screen.resize(50, 10)
    term.renderer.invalidate()
    written = term.frame(["status", "> a"], cursor=(1, 3))
    assert "kept" not in written and "\x1b[3J" not in written
    assert term.screen.transcript().split("\n") == ["kept", "status", "> a"]


def test_a_live_area_taller_than_the_terminal_shows_its_last_rows_and_the_cursor():
    term = Terminal(columns=30, rows=5)
    live = [f"row {n}" for n in range(12)] + ["> end"]
    term.frame(live, cursor=(12, 5))
    assert term.screen.lines()[:4] == ["row 9", "row 10", "row 11", "> end"]  # rows - 1
    assert term.screen.cursor == (3, 5)


def test_styles_reach_the_screen_and_leave_go_below_the_area():
    term = Terminal()
    style = Style(True)
    term.frame(["plain " + style.apply("bold", "bold"), "> "], cursor=(1, 2))
    assert term.screen.is_bold("bold") and not term.screen.is_bold("plain")
    term.renderer.leave()
    assert term.screen.cursor == (2, 0)  # the shell's prompt starts on a fresh row
    assert term.screen.cursor_visible


def test_a_bell_rings_once_after_the_frame_it_was_asked_for():
    term = Terminal()
    term.frame(["⠋ waiting · 0s", "> "], cursor=(1, 2))
    term.renderer.ring()
    term.renderer.ring()  # asked twice before the frame: one bell
    written = term.frame(["done", "> "], cursor=(1, 2))
    term.frame(["done", "> "], cursor=(1, 2))
    assert written.endswith("\x1b[?2026l\x07")  # after the frame, outside its codes
    assert term.screen.bells == 1 and term.screen.lines()[:2] == ["done", "> "]
