"""A streamed answer: committed block by block, ending up exactly as the one-shot
rendering, with work that grows as fast as the text and no faster."""

import random
import re
import time

from miniagent.tui import markdown, markdown_stream
from miniagent.tui.markdown import render_markdown
from miniagent.tui.markdown_stream import MarkdownStream
from miniagent.tui.style import Style

COLOUR, PLAIN = Style(True), Style(False)
SGR = re.compile(r"\x1b\[[0-9;]*m")

# Every kind of block, most of them with no blank line between them: each ends only
# where the next begins.
SAMPLE = """# Notes on **v2**
The answer is **5**, and *only* 5: use `**kwargs` as [the docs](https://docs.example/a) say.
A second line of the same paragraph, long enough to be wrapped at most widths we try.
- a bullet that is long enough to wrap onto a second row in narrow terminals
  continued here
  - a nested bullet with `code` in it
1. first step
2) second step
> a quote with **bold**
> and a second line
---
```python
def main():

    print("a line of code that is far too long to fit in a narrow terminal")
```
after the fence
~~~
unclosed
"""


def shown(lines):
    """What the user reads: the lines without their colour codes."""
    return [SGR.sub("", line) for line in lines]


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
        stream.live(width, rows=3)
    return committed, stream.finish(width)


def test_a_streamed_answer_ends_up_as_the_one_shot_rendering():
    texts = [SAMPLE, "Intro\n\n\n\n```\ncode\n```\nafter\n\n- a\n\n  - b\n\n", "\n\nlate start\n",
             "Intro\n| a | 日本 |\n|:-:|--:|\n| **1** | 2 |\n| 3 |\nafter\n| not | a table |\n",
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


def test_a_block_is_committed_once_the_next_one_has_begun():
    stream = MarkdownStream(PLAIN)
    stream.feed("# Plan\nIntro:\n- a\n  more\n- b")
    # "- b" is still being written: until its line ends, the item above may go on.
    assert stream.take_committed(80) == ["Plan", "Intro:"]
    assert stream.live(80) == ["• a", "  more", "• b"]
    stream.feed("\n")
    assert stream.take_committed(80) == ["• a", "  more"]
    assert stream.live(80, rows=5) == ["• b"]
    assert stream.finish(80) == ["• b"]


def table(rows):
    return "| a | b |\n|---|---|\n" + "".join(f"| row {n} | value {n} |\n" for n in range(rows))


def deep_list(levels):
    return "".join("  " * level + f"- level {level}\n" for level in range(levels))


def characters_read(text, monkeypatch):
    """The characters of lines Markdown is asked the kind of while `text` streams in
    word by word, each word committed and drawn (ten rows of live area), per
    character of the text: the parsing work, which the drawing's follows."""
    read, line_kind = [], markdown.line_kind

    def counting(line):
        read.append(len(line))
        return line_kind(line)

    monkeypatch.setattr(markdown, "line_kind", counting)
    monkeypatch.setattr(markdown_stream, "line_kind", counting)
    stream = MarkdownStream(COLOUR)
    for word in re.findall(r"\s*\S+|\s+", text):
        stream.feed(word)
        stream.take_committed(80)
        stream.live(80, rows=10)
    stream.finish(80)
    monkeypatch.undo()
    return sum(read) / len(text)


def test_streaming_work_grows_as_the_text_does_not_faster(monkeypatch):
    # A table is one paragraph that never ends; a deep list is one block per line and no
    # blank line between them. Once, every line that ended had all the text not yet
    # committed parsed again: twice the text, four times the work.
    for make, size in ((table, 500), (deep_list, 150)):
        small = characters_read(make(size), monkeypatch)
        large = characters_read(make(2 * size), monkeypatch)
        assert large < 1.25 * small, make.__name__


def test_a_20000_row_table_streams_in_seconds():
    # It took minutes: each line that ended parsed the whole table so far again.
    text = table(20_000)
    stream = MarkdownStream(COLOUR)
    committed = []
    started = time.monotonic()
    for number, word in enumerate(re.findall(r"\s*\S+|\s+", text)):
        stream.feed(word)
        committed += stream.take_committed(100)
        if number % 100 == 0:  # the REPL draws a frame now and then, not at every delta
            stream.live(100, rows=40)
    assert shown(stream.live(100, rows=3)) == ["│ row 19998 │ value 19998 │",
                                                "│ row 19999 │ value 19999 │",
                                                "└───────────┴─────────────┘"]
    final = stream.finish(100)
    assert time.monotonic() - started < 20
    assert committed + final == render_markdown(text, 100, COLOUR)


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
    rows = MarkdownStream(PLAIN)
    rows.feed(table(2000))
    preview = rows.live(60, rows=6)  # the header kept on top: still drawn boxed
    assert preview[-2:] == ["│ row 1999 │ value 1999 │", "└──────────┴────────────┘"]
    assert all(line.startswith("│") for line in preview[:-1])
