"""The VT100 screen model the terminal tests read (tests/vt_screen.py): what a user
would see after a stream of text and escape codes."""

import pytest

from vt_screen import Screen


def screen_after(*pieces, columns=10, rows=3):
    screen = Screen(columns, rows)
    for piece in pieces:
        screen.feed(piece)
    return screen


def test_text_lands_at_the_cursor_and_cr_lf_start_the_next_row():
    screen = screen_after("one\r\ntwo\r\nthree")
    assert screen.lines() == ["one", "two", "three"]
    assert screen.cursor == (2, 5)
    screen.feed("\rTH")
    assert screen.lines()[2] == "THree"


def test_a_bare_line_feed_keeps_the_column_and_bs_and_tab_move_the_cursor():
    screen = screen_after("ab\ncd", columns=20)
    assert screen.lines()[:2] == ["ab", "  cd"]
    screen.feed("\b\bX\tY")
    assert screen.lines()[1] == "  Xd    Y"
    assert screen.cursor == (1, 9)


def test_writing_the_last_column_wraps_only_at_the_next_character():
    screen = screen_after("012345678")
    assert screen.last_column_writes == 0
    screen.feed("9")
    assert screen.cursor == (0, 9)  # still on the last column, the wrap is pending
    assert screen.last_column_writes == 1
    screen.feed("\r\nnext")  # a full row then CR LF leaves no blank row between
    assert screen.lines() == ["0123456789", "next", ""]
    screen = screen_after("0123456789ab")
    assert screen.lines() == ["0123456789", "ab", ""]
    screen = screen_after("0123456789\x1b[1Dx")  # a cursor move ends the pending wrap
    assert screen.lines() == ["01234567x9", "", ""]


def test_the_bottom_row_scrolls_the_top_row_into_the_scrollback():
    screen = screen_after("1\r\n2\r\n3\r\n4\r\n5")
    assert screen.lines() == ["3", "4", "5"]
    assert screen.scrollback() == ["1", "2"]
    assert screen.transcript() == "1\n2\n3\n4\n5"
    screen.feed("\r\n")
    assert screen.transcript() == "1\n2\n3\n4\n5"  # the blank bottom row is dropped


def test_the_cursor_moves_stop_at_the_edges():
    screen = screen_after("\x1b[5B\x1b[20C*")
    assert screen.lines() == ["", "", "         *"]
    screen.feed("\x1b[9A\x1b[3G+\x1b[2;5H-\x1b[H\x1b[D\x1b[0A=")
    assert screen.lines() == ["= +", "    -", "         *"]


def test_erase_to_the_end_of_the_row_the_whole_row_and_the_screen():
    screen = screen_after("aaaa\r\nbbbb\r\ncccc", columns=5)
    screen.feed("\x1b[2;3H\x1b[K")
    assert screen.lines() == ["aaaa", "bb", "cccc"]
    screen.feed("\x1b[2K")
    assert screen.lines() == ["aaaa", "  ", "cccc"]  # the cursor stays at column 2
    screen.feed("\x1b[1;2H\x1b[J")
    assert screen.lines() == ["a", "", ""]
    screen.feed("\x1b[2J")
    assert screen.transcript() == "" and screen.cursor == (0, 1)


def test_a_wide_character_takes_two_cells_and_wraps_whole():
    screen = screen_after("日本語です", columns=7)
    assert screen.lines() == ["日本語", "です", ""]  # the 7th column stays empty
    assert screen.cursor == (1, 4)
    screen.feed("\x1b[1;3Hx")  # writing over a wide character's half blanks the other
    assert screen.lines()[0] == "日x 語"
    screen.feed("\x1b[3;1He\u0301!")  # a combining accent sits on the letter before it
    assert screen.lines()[2] == "e\u0301!"


def test_sgr_is_kept_per_cell_and_is_bold_finds_the_text():
    screen = screen_after("a \x1b[1mbold\x1b[22m b \x1b[1;31mred\x1b[0m", columns=40)
    assert screen.is_bold("bold") and not screen.is_bold("a bold")
    assert "".join(cell.char for cell in screen.styled(0)[9:12]) == "red"
    assert [cell.pen.fg for cell in screen.styled(0)[8:13]] == [None, "31", "31", "31", None]
    assert screen.cell(0, 0).pen == screen.cell(0, 9).pen._replace(bold=False, fg=None)
    screen.feed("\r\n\x1b[2;3;4;7mx\x1b[23;24;27my\x1b[38;5;208mz\x1b[39mw\x1b[0m")
    x, y, z, w = screen.styled(1)[:4]
    assert (x.pen.dim, x.pen.italic, x.pen.underline, x.pen.inverse) == (True,) * 4
    assert (y.pen.dim, y.pen.italic, y.pen.underline, y.pen.inverse) == (True,) + (False,) * 3
    assert (z.pen.fg, w.pen.fg) == ("38;5;208", None)
    assert screen.unknown == []


def test_is_bold_looks_at_the_newest_occurrence_and_fails_on_a_missing_text():
    screen = screen_after("\x1b[1mfive\x1b[0m\r\n" * 4 + "five", columns=10)
    assert "five" in screen.scrollback()[0]
    assert not screen.is_bold("five")
    with pytest.raises(LookupError):
        screen.is_bold("six")


def test_sequences_and_utf8_split_across_feeds_are_put_together():
    screen = screen_after(b"\xe6\x97", b"\xa5 \x1b[", b"1", b"m", b"B\x1b", b"[0m.", columns=20)
    assert screen.lines()[0] == "日 B."
    assert screen.is_bold("B") and not screen.is_bold(".")


def test_modes_are_recorded_and_titles_ignored():
    screen = screen_after("\x1b]0;title\x07\x1b]2;also\x1b\\", "\x1b[?2004h\x1b[?25l",
                          "\x1b[?2026hframe\x1b[?2026l\x1b[?2026l")
    assert screen.lines()[0] == "frame"
    assert screen.bracketed_paste and not screen.cursor_visible
    assert (screen.frames, screen.unpaired_frames, screen.in_frame) == (1, 1, False)
    screen.feed("\x1b[?2004l\x1b[?25h")
    assert not screen.bracketed_paste and screen.cursor_visible


def test_a_code_the_model_does_not_know_is_recorded_not_guessed():
    screen = screen_after("\x1b[1J\x1b[1K\x1b[?1049h\x1b[48;5;1m\x1b=\x0ea", columns=20)
    assert screen.unknown == ["\x1b[1J", "\x1b[1K", "\x1b[?1049h", "\x1b[48;5;1m", "\x1b=", "\x0e"]
    assert screen.lines()[0] == "a"


def test_a_bell_is_counted_and_a_title_ending_in_bel_is_no_bell():
    screen = screen_after("\x1b]0;title\x07", "a\x07b")
    assert (screen.bells, screen.lines()[0], screen.unknown) == (1, "ab", [])


def test_a_narrower_window_cuts_rows_and_keeps_the_cursor_row_on_screen():
    screen = screen_after("1\r\n2\r\n3\r\n4\r\n> typed", columns=10, rows=5)
    screen.resize(5, 3)
    assert screen.lines() == ["3", "4", "> typ"]
    assert screen.scrollback() == ["1", "2"]
    assert screen.cursor == (2, 4)
    screen.resize(12, 4)  # no reflow: what was cut stays cut; a row is added below
    assert screen.lines() == ["3", "4", "> typ", ""]
    screen.feed("\x1b[H\x1b[2B\x1b[12G+")
    assert screen.lines()[2] == "> typ      +"


def test_a_reflowing_screen_splits_wide_rows_on_a_narrower_window():
    screen = Screen(10, 4, reflow=True)
    screen.feed("old\r\n012345678\r\nab日本語\r\n> x")
    screen.resize(4, 4)
    assert screen.scrollback() == ["old", "0123", "4567"]
    assert screen.lines() == ["8", "ab日", "本語", "> x"]  # a wide one starts a row
    assert screen.cursor == (3, 3)
    screen.feed("\x1b[2J\x1b[H\x1b[3J")  # the screen, then the scrollback, erased
    assert screen.transcript() == "" and screen.cursor == (0, 0)


def test_a_shorter_window_drops_rows_below_the_cursor_first():
    screen = screen_after("top\r\nprompt", columns=10, rows=4)
    screen.resize(10, 2)
    assert screen.lines() == ["top", "prompt"] and screen.scrollback() == []


def test_the_space_before_the_cursor_is_kept_others_are_stripped():
    screen = screen_after("> ", columns=10)
    assert screen.lines()[0] == "> "
    screen.feed("x   \r\n")
    assert screen.lines()[0] == "> x"
