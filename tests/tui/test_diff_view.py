"""A diff as the user sees it: removed lines red, added green, headers set apart, long
lines cut, long diffs folded with a count."""


from miniagent.tools.hardening.diff import generate_diff
from miniagent.tui.diff_view import diff_stats, render_diff, word_marks
from miniagent.tui.style import Style
from miniagent.tui.width import text_width

COLOUR, PLAIN = Style(True), Style(False)
RED, GREEN, CYAN, DIM, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[2m", "\x1b[1m", "\x1b[0m"


def test_the_edit_tools_diff_is_coloured_by_sign():
    old = "".join(f"l{n}\n" for n in range(1, 13))
    diff, _ = generate_diff(old, old.replace("l7\n", "X\n"))
    lines = render_diff(diff, 80, COLOUR)
    assert lines[0] == f"{DIM}    ...{RESET}"
    assert f"{RED}- 7 l7{RESET}" in lines and f"{GREEN}+ 7 X{RESET}" in lines
    assert "  6 l6" in lines and "  8 l8" in lines  # context, plain
    assert render_diff(diff, 80, PLAIN) == diff.split("\n")


def test_a_unified_diff_has_its_headers_set_apart():
    diff = ("diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n"
            " keep\n--- was a dashed line\n+new\n\\ No newline at end of file\n")
    assert render_diff(diff, 80, COLOUR) == [
        f"{DIM}diff --git a/app.py b/app.py{RESET}", f"{BOLD}--- a/app.py{RESET}",
        f"{BOLD}+++ b/app.py{RESET}", f"{CYAN}@@ -1,3 +1,3 @@{RESET}", " keep",
        f"{RED}--- was a dashed line{RESET}", f"{GREEN}+new{RESET}",
        f"{DIM}\\ No newline at end of file{RESET}"]
    assert diff_stats(diff) == (1, 1)


def test_long_lines_are_cut_not_wrapped():
    diff = "-1 " + "x" * 200 + "\n+1 " + "日本" * 60 + "\t\x1b[2J"
    for width in (10, 33, 80):
        lines = render_diff(diff, width, COLOUR)
        assert len(lines) == 2 and all(text_width(line) <= width - 1 for line in lines)
    tabbed = render_diff("+1 \tx\x1b[2J", 80, PLAIN)
    assert tabbed == ["+1  x\u241b[2J"]  # the tab as spaces, ESC shown, not sent


def test_a_long_diff_is_folded_to_its_first_lines_and_a_count():
    diff = "\n".join(f"+{n} line {n}" for n in range(1, 11))
    lines = render_diff(diff, 80, COLOUR, max_lines=4)
    assert lines[:4] == [f"{GREEN}+{n} line {n}{RESET}" for n in range(1, 5)]
    assert lines[4:] == [f"{DIM}… 6 more lines{RESET}"]
    assert render_diff(diff, 80, PLAIN, max_lines=9, hint=" (press o)")[-1] == \
        "… 1 more line (press o)"
    assert len(render_diff(diff, 80, PLAIN, max_lines=10)) == 10  # all shown: no count


def test_stats_count_added_and_removed_lines():
    diff, _ = generate_diff("a\nb\nc\n", "a\nB\nC\nd\n")
    assert diff_stats(diff) == (3, 2)
    assert diff_stats("") == (0, 0) and render_diff("", 80, COLOUR) == []


INVERSE_RED, INVERSE_GREEN = "\x1b[31;7m", "\x1b[32;7m"


def test_the_changed_words_inside_a_changed_line_are_marked():
    diff, _ = generate_diff("total = price * count\n", "total = cost * count\n")
    removed, added = render_diff(diff, 80, COLOUR)
    assert f"{INVERSE_RED}price{RESET}" in removed and f"{INVERSE_GREEN}cost{RESET}" in added
    assert "total" not in removed.split(INVERSE_RED)[1]  # the unchanged words are not marked
    assert render_diff(diff, 80, PLAIN) == ["-1 total = price * count", "+1 total = cost * count"]


def test_pairs_are_marked_in_order_and_rewrites_or_uneven_runs_are_not():
    diff = "-1 a = 1\n-2 b = 2\n+1 a = 10\n+2 b = 20\n 3 keep\n-4 one two\n+4 three four five"
    lines = render_diff(diff, 80, COLOUR)
    assert [line.count(";7m") for line in lines] == [1, 1, 1, 1, 0, 0, 0]
    uneven = render_diff("-1 x = 1\n+1 x = 2\n+2 y = 3", 80, COLOUR)
    assert not any(";7m" in line for line in uneven)
    assert word_marks(["-1 a = 1", "+1 a = 2"], ["removed", "added"]) == {
        0: [("-1 ", False), ("a = ", False), ("1", True)],
        1: [("+1 ", False), ("a = ", False), ("2", True)]}


def test_a_marked_line_is_still_cut_at_the_edge():
    diff = "-1 name = " + "x" * 100 + " old\n+1 name = " + "x" * 100 + " new"
    for width in (10, 40):
        assert all(text_width(line) <= width - 1 for line in render_diff(diff, width, COLOUR))
