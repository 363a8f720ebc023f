"""The picker: keys in, the rows shown and the one chosen out."""

from miniagent.tui.keys import Key
from miniagent.tui.menu import scrolled_top
from miniagent.tui.picker import MAX_ROWS, Picker
from miniagent.tui.style import Style
from miniagent.tui.width import text_width

PLAIN = Style(False)
ROWS = ["2 min ago  the x509 certificate error", "yesterday  tabs or spaces",
        "last week  renew the Certificates"]


def press(picker, *keys):
    """Feed keys; a plain string types its characters."""
    for key in keys:
        for one in ([Key("char", char) for char in key] if isinstance(key, str) else [key]):
            picker.handle(one)


def test_the_title_the_filter_line_the_rows_and_the_counts():
    lines, row, column = Picker(PLAIN, "Resume which session?", ROWS).render(60)
    assert lines == ["Resume which session?", "filter: ",
                     "> 2 min ago  the x509 certificate error",
                     "  yesterday  tabs or spaces",
                     "  last week  renew the Certificates",
                     "  3 of 3 · ↑↓ move · Enter picks · Esc cancels"]
    assert (row, column) == (1, 8)  # where the next typed letter goes


def test_typing_keeps_the_rows_holding_every_word_in_any_case():
    picker = Picker(PLAIN, "Pick", ROWS)
    press(picker, "CERT")
    lines, _, column = picker.render(60)
    assert lines[1:] == ["filter: CERT", "> 2 min ago  the x509 certificate error",
                         "  last week  renew the Certificates",
                         "  2 of 3 · ↑↓ move · Enter picks · Esc cancels"]
    assert column == 12
    press(picker, " renew")
    assert picker.render(60)[0][2:4] == ["> last week  renew the Certificates",
                                         "  1 of 3 · ↑↓ move · Enter picks · Esc cancels"]
    press(picker, Key("enter"))
    assert picker.done and picker.chosen == 2  # an index into the rows given


def test_nothing_matching_says_so_and_enter_picks_nothing():
    picker = Picker(PLAIN, "Pick", ROWS)
    press(picker, "zebra", Key("enter"))
    assert not picker.done
    assert picker.render(60)[0][2:] == [
        "  nothing matches 'zebra' · Backspace widens · Esc cancels"]
    press(picker, *[Key("backspace")] * 5, Key("down"), Key("enter"))
    assert picker.chosen == 1


def test_arrows_go_round_and_esc_or_ctrl_c_cancels():
    picker = Picker(PLAIN, "Pick", ROWS)
    press(picker, Key("up"))
    assert picker.render(60)[0][4] == "> last week  renew the Certificates"
    press(picker, Key("down"), Key("enter"))
    assert picker.chosen == 0
    for cancel in (Key("escape"), Key("c", ctrl=True)):
        picker = Picker(PLAIN, "Pick", ROWS)
        press(picker, cancel)
        assert picker.done and picker.chosen is None


def test_a_long_list_shows_a_window_that_scrolls_and_starts_at_the_selected_row():
    rows = [f"entry {number}" for number in range(30)]
    picker = Picker(PLAIN, "Go to which entry?", rows, selected=25)
    lines = picker.render(40)[0]
    assert len(lines) == 2 + MAX_ROWS + 1
    assert lines[2] == "  entry 16" and lines[-2] == "> entry 25"
    press(picker, Key("pageup"))
    assert picker.render(40)[0][2] == "> entry 15"  # the window moved with it
    press(picker, Key("pagedown"), Key("pagedown"), Key("pagedown"))
    assert picker.render(40)[0][-2] == "> entry 29"  # Page Down stops at the end


def test_rows_are_cut_to_the_width_and_the_selected_one_is_marked_without_colour():
    picker = Picker(Style(True), "Pick one of these long rows", ["x" * 50, "y"])
    lines = picker.render(20)[0]
    assert all(text_width(line) <= 19 for line in lines)
    assert lines[2].startswith("\x1b[7;1m> xxx")  # inverse and bold, and marked ">"


def test_scrolled_top_keeps_the_window_until_the_selection_leaves_it():
    assert scrolled_top(3, 0, 8) == 0
    assert scrolled_top(9, 0, 8) == 2
    assert scrolled_top(1, 2, 8) == 1
