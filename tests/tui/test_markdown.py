"""Markdown as terminal lines: what a user sees for each kind of block (a streamed
answer: test_markdown_stream.py)."""

import re

from miniagent.tui.markdown import parse_blocks, parse_inline, render_markdown
from miniagent.tui.style import Style
from miniagent.tui.width import text_width

COLOUR, PLAIN = Style(True), Style(False)
SGR = re.compile(r"\x1b\[[0-9;]*m")

SAMPLE = """# Release notes for **v2**

The answer is **5**, and *only* 5: use `**kwargs` or 2*3*4 as [the docs](https://docs.example/a) say.
A second line of the same paragraph, long enough to be wrapped at most widths we try.

- a bullet that is long enough to wrap onto a second row in narrow terminals
  - a nested bullet with `code` in it
    - deeper still, 日本語のテキスト mixed in
1. first step
2. second step

```python
def main():
    print("a line of code that is far too long to fit in a narrow terminal, continued")
```

> a quote with **bold**
---
| a | b |
"""


def shown(lines):
    """What the user reads: the lines without their colour codes."""
    return [SGR.sub("", line) for line in lines]


def test_bold_is_shown_as_bold_and_no_markers_are_left_outside_code():
    lines = render_markdown("The answer is **5**.", 80, COLOUR)
    assert lines == ["The answer is \x1b[1m5\x1b[0m."]
    assert shown(render_markdown("**a** and __b__ and *c* and _d_", 80, COLOUR)) == [
        "a and b and c and d"]


def test_markers_inside_inline_code_are_kept_and_the_backticks_removed():
    lines = render_markdown("use `**kwargs` and `a*b*c` here", 80, COLOUR)
    assert lines == ["use \x1b[36m**kwargs\x1b[0m and \x1b[36ma*b*c\x1b[0m here"]


def test_a_star_inside_a_word_is_text():
    assert render_markdown("2*3*4 is 24, snake_case_name too", 80, COLOUR) == [
        "2*3*4 is 24, snake_case_name too"]


def test_styles_inside_styles_are_all_applied():
    assert render_markdown("**bold `code` and *both***", 80, COLOUR) == [
        "\x1b[1mbold \x1b[0m\x1b[1;36mcode\x1b[0m\x1b[1m and \x1b[0m\x1b[1;3mboth\x1b[0m"]


def test_code_block_lines_are_intact_indented_and_a_long_one_goes_on_below_a_mark():
    # Cut at the edge, the end of a long line was lost (found side by side with pi).
    long_line = "    print('a line far wider than the terminal it is shown in, all of it kept')"
    text = f"```python\ndef f():\n{long_line}\n    return **x**\n```"
    lines = shown(render_markdown(text, 30, COLOUR))
    assert lines == ["```python", "  def f():", "      print('a line far wider",
                     "↪  than the terminal it is sh", "↪ own in, all of it kept')",
                     "      return **x**", "```"]
    assert "".join(line[2:] for line in lines[2:5]) == long_line  # nothing lost or added


def test_an_unclosed_fence_runs_to_the_end_without_a_closing_frame():
    assert shown(render_markdown("Look:\n```\n*x*\n\nmore", 80, COLOUR)) == [
        "Look:", "```", "  *x*", "  ", "  more"]


def test_links_show_their_text_and_their_url():
    assert shown(render_markdown("see [the docs](https://d.example/x) now", 80, COLOUR)) == [
        "see the docs (https://d.example/x) now"]
    assert shown(render_markdown("[https://d.example](https://d.example)", 80, COLOUR)) == [
        "https://d.example"]


def test_nested_lists_keep_their_bullets_numbers_and_depth():
    text = "- a\n  - b\n    - c\n- d\n1. one\n   - under one\n10) ten"
    assert render_markdown(text, 80, PLAIN) == [
        "• a", "  • b", "    • c", "• d", "1. one", "  • under one", "10) ten"]


def test_a_list_3000_levels_deep_keeps_its_text_on_one_row_and_half_the_width():
    # Its indent once grew without end: the text got one column a row, under thousands
    # of spaces cut away at the edge.
    text = "".join("  " * level + f"- level {level}\n" for level in range(3000))
    lines = render_markdown(text, 41, PLAIN)
    assert len(lines) == 3000
    assert lines[:3] == ["• level 0", "  • level 1", "    • level 2"]
    assert lines[-1] == " " * 20 + "• level 2999"  # the indent stops at half the row


def test_markers_nested_thousands_deep_are_shown_not_a_crash():
    # Each pair of markers was read inside the one around it, until Python's recursion
    # limit raised in the middle of an answer.
    for marker in ("_", "*"):
        lines = render_markdown(marker * 3000 + "word" + marker * 3000, 80, PLAIN)
        assert "word" in "".join(lines) and len(lines) > 50  # the rest kept as text


def test_a_wrapped_item_hangs_under_its_text():
    text = "- one two three four five six\n  continued\n1. seven eight nine ten"
    assert render_markdown(text, 15, PLAIN) == [
        "• one two", "  three four", "  five six", "  continued", "1. seven eight", "   nine ten"]


def test_paragraphs_wrap_and_keep_their_line_breaks():
    assert render_markdown("one two three four\nfive\n\nsix", 11, PLAIN) == [
        "one two", "three four", "five", "", "six"]


def test_headings_quotes_and_rules():
    lines = render_markdown("# Top\n## Sub\n> said **so**\n---", 12, COLOUR)
    assert lines == ["\x1b[1;4mTop\x1b[0m", "\x1b[1mSub\x1b[0m",
                     "\x1b[2m│ \x1b[0msaid \x1b[1mso\x1b[0m", "\x1b[2m" + "─" * 11 + "\x1b[0m"]


def test_without_colour_the_lines_are_plain_text():
    lines = render_markdown(SAMPLE, 60, PLAIN)
    assert not any("\x1b" in line or "**" in line.replace("**kwargs", "") for line in lines)
    assert lines == shown(render_markdown(SAMPLE, 60, COLOUR))
    assert "The answer is 5, and only 5: use **kwargs or 2*3*4 as the" in lines


def test_no_line_is_wider_than_the_width_minus_one():
    for width in range(10, 121):
        for style in (COLOUR, PLAIN):
            lines = render_markdown(SAMPLE, width, style)
            assert max(text_width(line) for line in lines) <= width - 1, width


def test_an_escape_in_the_text_is_shown_not_sent():
    lines = render_markdown("red \x1b[31m text\n```\n\x1b]0;title\x07\n```", 80, COLOUR)
    assert all("\x1b" not in SGR.sub("", line) for line in lines)
    assert "\u241b[31m" in lines[0]


def test_blocks_and_spans_as_the_renderers_see_them():
    blocks = parse_blocks("\n\n# Hi #\n\n\n3. x\n   more\n~~~sh\nls\n~~~\n> q\n* * *\ntext")
    assert [(b.kind, b.lines, b.level, b.number) for b in blocks] == [
        ("heading", ["Hi"], 1, ""), ("blank", [], 0, ""), ("numbered", ["x", "more"], 0, "3."),
        ("code", ["ls"], 0, ""), ("quote", ["q"], 0, ""), ("rule", [], 0, ""),
        ("paragraph", ["text"], 0, "")]
    assert blocks[3].lang == "sh" and blocks[3].closed
    spans = parse_inline("a `b` [c **d**](u) *e*")
    assert [(s.kind, s.text, s.url) for s in spans] == [
        ("text", "a ", ""), ("code", "b", ""), ("text", " ", ""), ("link", "c **d**", "u"),
        ("text", " ", ""), ("emphasis", "e", "")]
    assert [(s.kind, s.text) for s in spans[3].children] == [("text", "c "), ("strong", "d")]
