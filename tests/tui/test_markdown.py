"""Markdown as terminal lines: what a user sees for each kind of block, and a streamed
answer that ends up exactly as the one-shot rendering."""

import random
import re

from miniagent.tui import markdown
from miniagent.tui.markdown import MarkdownStream, parse_blocks, parse_inline, render_markdown
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
    print("a line of code that is far too long to fit in a narrow terminal, never wrapped")
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


def test_code_block_lines_are_intact_indented_and_never_wrapped():
    long_line = "    print('a line far wider than the terminal it is shown in, cut at the edge')"
    text = f"```python\ndef f():\n{long_line}\n    return **x**\n```"
    lines = shown(render_markdown(text, 30, COLOUR))
    assert lines == ["```python", "  def f():", ("  " + long_line)[:29], "      return **x**", "```"]


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


def stream_in_pieces(text, width, seed):
    """The text fed in random-size pieces, committed after each one, then finished."""
    rng = random.Random(seed)
    stream = MarkdownStream(COLOUR)
    committed = []
    at = 0
    while at < len(text):
        size = rng.randint(1, 12)
        stream.feed(text[at:at + size])
        at += size
        committed += stream.take_committed(width)
        stream.live(width)
    return committed, stream.finish(width)


def test_a_streamed_answer_ends_up_as_the_one_shot_rendering():
    texts = [SAMPLE, "Intro\n\n\n\n```\ncode\n```\nafter\n\n- a\n\n  - b\n\n", "\n\nlate start\n",
             "x\r\n\r\ny\r\n```\r\nz\r\n```\r\nw"]
    for text in texts:
        for seed in range(12):
            width = 20 + seed * 3
            committed, final = stream_in_pieces(text, width, seed)
            assert committed + final == render_markdown(text, width, COLOUR), (text, seed)


def test_nothing_is_committed_inside_an_open_fence_even_at_blank_lines():
    stream = MarkdownStream(PLAIN)
    stream.feed("Intro\n\n```\nfirst\n\nsecond\n\n")
    assert stream.take_committed(80) == ["Intro", ""]
    stream.feed("third\n\n\nfourth\n")
    assert stream.take_committed(80) == []
    assert stream.live(80) == ["```", "  first", "  ", "  second", "  ", "  third", "  ", "  ",
                               "  fourth", "  "]
    stream.feed("```\nAfter")
    assert stream.take_committed(80)[-2:] == ["  fourth", "```"]
    assert stream.live(80) == ["After"]
    assert stream.finish(80) == ["After"]


def test_only_the_unfinished_tail_is_parsed_again(monkeypatch):
    parsed = []

    def recording(text):
        parsed.append(len(text))
        return parse_blocks(text)

    monkeypatch.setattr(markdown, "parse_blocks", recording)
    stream = MarkdownStream(COLOUR)
    for number in range(300):
        for word in re.findall(r"\S+\s*", f"Paragraph **{number}** has a few words.\n\n"):
            stream.feed(word)
            stream.take_committed(80)
            stream.live(80)
    assert max(parsed) < 60  # one paragraph and a bit, however many came before
    assert shown(stream.live(80)) == ["Paragraph 299 has a few words."]


def test_a_long_open_block_is_previewed_from_its_end_and_committed_whole():
    stream = MarkdownStream(PLAIN)
    words = " ".join(f"w{n}" for n in range(3000))
    stream.feed(words)
    preview = stream.live(60, rows=10)
    assert len(preview) == 10 and preview[-1].endswith("w2999")
    code = "```python\n" + "".join(f"x_{n} = {n}\n" for n in range(2000))
    fence = MarkdownStream(PLAIN)
    fence.feed(code)
    preview = fence.live(60, rows=5)
    assert preview == ["  x_1996 = 1996", "  x_1997 = 1997", "  x_1998 = 1998",
                       "  x_1999 = 1999", "  "]  # still drawn as code, the next line open
    assert stream.finish(60) == render_markdown(words, 60, PLAIN)
