"""The pty driver's screen (tests/pty_driver.py), on small scripts instead of miniagent:
what expect_screen finds after repaints, and what a resize does."""

import pytest

from pty_driver import Terminal

# A line-by-line program: a prompt, and for each line typed an answer and the next
# prompt in one write; a status line repainted in place on "work".
PROMPTS = r"""
import os, sys
os.write(1, b"ready\r\n> ")
for line in sys.stdin:
    if line.strip() == "work":
        for step in range(1, 4):
            os.write(1, b"\r\x1b[2Kworking %d" % step)
        os.write(1, b"\r\x1b[2K")
    os.write(1, b"answer " + line.strip().encode() + b"\r\n> ")
"""

# A live area as the REPL's renderer draws one: a streaming row above the prompt,
# redrawn in place at each key, then committed above a status row.
LIVE = r"""
import os, tty
tty.setcbreak(0)  # one key at a time, no echo
for frame in (b"Hel\r\n> ",
              b"\x1b[1A\r\x1b[2KHello\r\n\x1b[2K> ",
              b"\x1b[1A\r\x1b[2KHello\r\n\x1b[2Kstatus\r\n\x1b[2K> "):
    os.write(1, frame)
    os.read(0, 1)
"""

# Says its window size at the start and on every SIGWINCH.
SIZES = r"""
import os, signal, sys
def say_size(*_):
    size = os.get_terminal_size(0)
    os.write(1, b"size %dx%d\r\n" % (size.columns, size.lines))
signal.signal(signal.SIGWINCH, say_size)
say_size()
sys.stdin.readline()
"""


def program(script, **size):
    return Terminal(["-c", script], program=[], **size)


def test_expect_screen_waits_for_a_new_occurrence_and_finds_what_came_in_the_same_write():
    with program(PROMPTS) as term:
        term.expect_screen("> ")
        term.send("one\r")
        term.expect_screen("answer one")
        term.expect_screen("> ")  # written with the answer: found though already there
        assert term.visible()[:4] == ["ready", "> one", "answer one", "> "]
        with pytest.raises(AssertionError, match="did not appear on the screen"):
            term.expect_screen("> ", timeout=0.1)  # no third prompt yet
        term.send("two\r")
        term.expect_screen("> ")
        assert term.screen()[-1] == "> "
        term.send("\x04")
        assert term.wait() == 0


def test_the_screen_shows_a_repainted_line_once_where_the_byte_stream_has_each_paint():
    with program(PROMPTS, rows=3) as term:
        term.expect_screen("> ")
        term.send("work\r")
        term.expect_screen("answer work")
        assert "working 3" in term.plain()
        assert not any("working" in line for line in term.screen())
        assert term.screen() == ["ready", "> work", "answer work", "> "]
        assert term.vt.scrollback() == ["ready"]  # three rows: the first scrolled off
        assert term.vt.unknown == []
        term.send("\x04")
        assert term.wait() == 0


def test_a_text_the_live_area_only_moves_is_not_found_again():
    with program(LIVE) as term:
        term.expect_screen("Hel")
        term.send("n")
        term.expect_screen("Hello")  # drawn over "Hel": one more "Hello" than before
        term.send("n")
        term.expect_screen("status")
        assert term.visible()[:3] == ["Hello", "status", "> "]
        with pytest.raises(AssertionError, match="did not appear on the screen"):
            term.expect_screen("Hello", timeout=0.1)  # committed, but the same one
        term.send("n")
        assert term.wait() == 0


def test_resize_tells_the_child_and_resizes_the_screen():
    with program(SIZES, columns=80, rows=6) as term:
        term.expect_screen("size 80x6")
        term.resize(60, 4)
        term.expect_screen("size 60x4")
        term.wait_screen(lambda vt: vt.cursor == (2, 0))
        assert term.visible() == ["size 80x6", "size 60x4", "", ""]
        assert (term.vt.columns, term.vt.rows) == (60, 4)
        with pytest.raises(AssertionError, match="did not get there"):
            term.wait_screen(lambda vt: vt.rows == 5, timeout=0.1)
        term.send("\r")
        assert term.wait() == 0
