"""Markdown tables as a user sees them: aligned, boxed, wide characters counted as two
columns, a table too wide for the terminal wrapped inside its columns."""

import re

from miniagent.tui.markdown import parse_blocks, render_markdown
from miniagent.tui.style import Style
from miniagent.tui.table import _fit, _pad, parse_table, split_row
from miniagent.tui.width import text_width

COLOUR, PLAIN = Style(True), Style(False)
SGR = re.compile(r"\x1b\[[0-9;]*m")

TABLE = """| Name | Size | Note |
|------|-----:|:---:|
| 日本語 | 3 | ok |
| b | 12 | **fine** |"""


def test_a_table_is_boxed_its_columns_aligned_and_wide_characters_count_twice():
    assert render_markdown(TABLE, 80, PLAIN) == [
        "┌────────┬──────┬──────┐",
        "│ Name   │ Size │ Note │",
        "├────────┼──────┼──────┤",
        "│ 日本語 │    3 │  ok  │",
        "│ b      │   12 │ fine │",
        "└────────┴──────┴──────┘"]


def test_the_header_is_bold_and_cells_keep_their_inline_styles():
    lines = render_markdown(TABLE, 80, COLOUR)
    assert "\x1b[1mName\x1b[0m" in lines[1] and "\x1b[1mfine\x1b[0m" in lines[4]
    assert [SGR.sub("", line) for line in lines] == render_markdown(TABLE, 80, PLAIN)


def test_a_table_wider_than_the_terminal_wraps_inside_its_widest_column():
    text = "| id | what |\n|---|---|\n| 1 | " + "word " * 20 + "|"
    lines = render_markdown(text, 30, PLAIN)
    assert all(text_width(line) == 29 for line in lines)  # the box is the room, exactly
    assert lines[3] == "│ 1  │ word word word word  │"
    assert lines[-1] == "└────┴" + "─" * 22 + "┘"
    assert sum(line.count("word") for line in lines) == 20


def test_lines_with_pipes_but_no_delimiter_row_stay_as_typed():
    assert render_markdown("| not | a table |\n| just | pipes |", 80, PLAIN) == [
        "| not | a table |", "| just | pipes |"]


def test_a_table_is_one_block_between_a_paragraph_and_what_follows():
    blocks = parse_blocks("Intro\n| a |\n|---|\n| 1 |\nafter")
    assert [(b.kind, b.lines) for b in blocks] == [
        ("paragraph", ["Intro"]), ("table", ["| a |", "|---|", "| 1 |"]),
        ("paragraph", ["after"])]


def test_cells_are_split_at_unescaped_pipes_and_rows_padded_or_cut():
    assert split_row("| a | b \\| c |") == ["a", "b | c"]
    assert parse_table(["| a | b |", "|---|--:|", "| 1 |", "| 1 | 2 | 3 |"]) == (
        [["a", "b"], ["1", ""], ["1", "2"]], ["left", "right"])
    assert parse_table(["| a | b |", "|---|"]) is None  # the delimiter row must match


def test_columns_are_fitted_widest_first_and_padded_by_their_alignment():
    assert _fit([3, 20, 30], 33) == [3, 15, 15]
    assert _fit([3, 4], 2) == [1, 1]
    assert _pad("ab", 5, "right") == "   ab" and _pad("ab", 5, "center") == " ab  "
