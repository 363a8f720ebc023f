"""A diff as the user sees it: removed lines red, added green, headers set apart, long
lines cut, long diffs folded with a count."""


from miniagent.tools.hardening.diff import generate_diff
from miniagent.tui.diff_view import diff_stats, render_diff
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
