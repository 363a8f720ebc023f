"""markdown: how to show Markdown in a terminal: one parser, then terminal lines.

Models answer in Markdown. Shown raw, `**5**` and code fences are noise; a terminal can
show most of it as it is meant: bold as bold, `code` in a colour, lists with bullets.
Two steps, as in any Markdown renderer:

    parse_blocks   the text as blocks, line by line: headings, paragraphs, list items,
                   fenced code, quotes, rules, and the blank lines between them
    parse_inline   one line as spans: text, `code`, **strong**, *emphasis*, [links](url)

and then a renderer. Here there are two: `render_markdown` makes terminal lines, and the
HTML export (subcommands/markdown.py) makes HTML of the same blocks and spans.

    # Plan                     Plan               (bold, underlined)
    - read **it**              • read it          ("it" bold)
    1. run `ls`                1. run ls          ("ls" cyan)
    ```sh                      ```sh              (dim: the fence is a frame line, so
    ls -la                       ls -la            the code stays code without colour,
    ```                        ```                 and its language shows)
    > note                     │ note             ("│" dim)
    [docs](https://d.example)  docs (https://d.example)
    | a | b |                  ┌───┬───┐          (a table: its columns aligned
    |---|---|                  │ a │ b │           and boxed, table.py)

Paragraph text is wrapped to the width, a list item's with a hanging indent; code is
never re-flowed: a line too long goes on below a dim "↪" (nothing is lost, and the
mark says the break is not in the code). A paragraph keeps its line breaks, as the export shows them. The text
comes with its control characters already made visible (the REPL's for_terminal);
ESC is shown as a symbol here too, so the only codes in the lines are Style's.

A streamed answer is rendered block by block as it arrives: markdown_stream.py, which
asks `line_kind` and `continues` the same questions parse_blocks does, one line at a
time.

A nested list's indent stops growing at half the width, so a list 3,000 levels deep
still shows its text (and costs no more per item than a flat one).

Left out: tables without leading pipes (kept as paragraph lines, as typed), headings underlined with "==="
(a "---" line is a rule), indented code blocks, nested quotes, a quote's inner blocks,
HTML, images, reference links, line breaks inside a span (each line is read alone).
"""

import re
from dataclasses import dataclass, field
from typing import List, Tuple

from .style import Style
from .table import draw_table, parse_table
from .width import cut, printable, text_width, wrap


@dataclass
class Block:
    """One block of a Markdown text.

    kind    "heading", "paragraph", "bullet", "numbered", "code", "quote", "rule", "table",
            "blank"
    lines   the text: a paragraph's, quote's (without "> ") or table's lines, a list item's text
            and its indented continuation lines, a code block's lines exactly as written
            (fences left out), a heading's one line (without the "#"s)
    level   a heading's level (1-6); a list item's nesting, two spaces of indent a level
    number  a numbered item's number as written ("3." or "3)")
    lang    a code block's language, from its opening fence ("" when none)
    closed  False for a code block whose closing fence never came
    """
    kind: str
    lines: List[str] = field(default_factory=list)
    level: int = 0
    number: str = ""
    lang: str = ""
    closed: bool = True


@dataclass
class Span:
    """A piece of one line. kind: "text", "code", "strong", "emphasis" or "link".

    text      the characters between the markers (a link's label as written)
    url       a link's target
    children  what strong, emphasis and a link's label hold, parsed in turn
    """
    kind: str
    text: str
    url: str = ""
    children: List["Span"] = field(default_factory=list)


FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+#.-]*)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(\S.*?)(?:\s+#+)?\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_QUOTE = re.compile(r"^\s{0,3}>\s?(.*)$")
_BULLET = re.compile(r"^(\s*)([-*+])\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)(\d{1,9}[.)])\s+(.*)$")
_TABLE = re.compile(r"^\s{0,3}\|")  # a table row starts with a pipe


def parse_blocks(text: str) -> List[Block]:
    """The blocks of a text. Blank lines before the first block are skipped; each run
    of blank lines after one is one "blank" block. Nothing is carried past a blank line,
    so the text after one parses the same read alone. Which lines a block holds is
    decided by `continues`, a line at a time, so a stream can ask as the lines arrive.

    Example: parse_blocks("# Hi\\n\\n- a") -> [heading "Hi", blank, bullet "a"]
    """
    lines = text.replace("\r\n", "\n").split("\n")
    blocks: List[Block] = []
    i = 0
    while i < len(lines):
        kind = line_kind(lines[i])
        if kind == "blank" and not blocks:
            i += 1
        elif kind == "blank":
            end = _run(lines, i, "blank")
            blocks.append(Block("blank"))
            i = end
        elif kind == "fence":
            i = _code_block(lines, i, blocks)
        elif kind == "heading":
            hashes, title = _HEADING.match(lines[i]).groups()
            blocks.append(Block("heading", [title], level=len(hashes)))
            i += 1
        elif kind == "rule":
            blocks.append(Block("rule"))
            i += 1
        elif kind == "table":
            end = _run(lines, i, "table")
            blocks.append(Block("table", lines[i:end]))
            i = end
        elif kind == "quote":
            end = _run(lines, i, "quote")
            quoted = [_QUOTE.match(line).group(1) for line in lines[i:end]]
            blocks.append(Block("quote", quoted))
            i = end
        elif kind in ("bullet", "numbered"):
            i = _list_item(lines, i, kind, blocks)
        else:
            end = _run(lines, i, "paragraph")
            blocks.append(Block("paragraph", lines[i:end]))
            i = end
    return blocks


def line_kind(line: str) -> str:
    """What a line starts: a rule is tested before a bullet ("* * *" is a rule)."""
    if not line.strip():
        return "blank"
    for kind, pattern in (("fence", FENCE), ("heading", _HEADING), ("rule", _RULE),
                          ("quote", _QUOTE), ("table", _TABLE), ("bullet", _BULLET),
                          ("numbered", _NUMBERED)):
        if pattern.match(line):
            return kind
    return "text"


def continues(kind: str, line: str) -> bool:
    """Does `line` belong to the block of this kind just above it? A heading and a rule
    are one line each; a code block's lines are decided by its fences instead.

    Example: continues("bullet", "  more") -> True; continues("paragraph", "- a") -> False
    """
    following = line_kind(line)
    if kind in ("bullet", "numbered"):
        return following == "text" and line[:1].isspace()
    return following == {"blank": "blank", "quote": "quote", "table": "table",
                         "paragraph": "text"}.get(kind)


def _run(lines: List[str], i: int, kind: str) -> int:
    """The index of the first line after line i that does not continue its block."""
    i += 1
    while i < len(lines) and continues(kind, lines[i]):
        i += 1
    return i


def _code_block(lines: List[str], i: int, blocks: List[Block]) -> int:
    """A fenced block up to its closing fence (the same character, at least as many,
    nothing else on the line) or to the end of the text; returns the next index."""
    marker, lang = FENCE.match(lines[i]).groups()
    end = i + 1
    while end < len(lines) and not closes_fence(lines[end], marker):
        end += 1
    blocks.append(Block("code", lines[i + 1:end], lang=lang, closed=end < len(lines)))
    return end + 1


def closes_fence(line: str, marker: str) -> bool:
    fence = line.strip()
    return len(fence) >= len(marker) and fence == marker[0] * len(fence)


def _list_item(lines: List[str], i: int, kind: str, blocks: List[Block]) -> int:
    """One item, with the indented plain lines that continue it."""
    pattern = _BULLET if kind == "bullet" else _NUMBERED
    indent, marker, first = pattern.match(lines[i]).groups()
    end = _run(lines, i, kind)
    rest = [line.strip() for line in lines[i + 1:end]]
    level = len(indent.expandtabs(4)) // 2
    number = marker if kind == "numbered" else ""
    blocks.append(Block(kind, [first] + rest, level=level, number=number))
    return end


# Leftmost match wins; at one place, a code span before a link before strong before
# emphasis. A `*` with a letter or digit before it opens nothing, so 2*3*4 stays text.
_INLINE = re.compile(
    r"(?P<ticks>`+)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
    r"|\[(?P<label>[^\]\n]+)\]\((?P<url>[^)\s]+)\)"
    r"|\*\*(?=\S)(?P<strong>.+?)(?<=\S)\*\*(?!\*)"
    r"|(?<!\w)__(?=\S)(?P<strong2>.+?)(?<=\S)__(?!\w)"
    r"|(?<![\w*])\*(?=\S)(?P<em>.+?)(?<![\s*])\*(?![\w*])"
    r"|(?<!\w)_(?=\S)(?P<em2>.+?)(?<=\S)_(?!\w)")


# Spans inside spans this deep are kept as text: "_" * 3000 around a word would
# otherwise be read 1,500 levels deep (Python's recursion stops at 1,000).
MAX_NESTING = 10


def parse_inline(text: str, depth: int = 0) -> List[Span]:
    """One line as spans. Nothing inside a code span is markup.

    Example: parse_inline("run `a**b` **now**") ->
             [text "run ", code "a**b", text " ", strong "now" (children: text "now")]
    """
    if depth >= MAX_NESTING:
        return [Span("text", text)]
    spans: List[Span] = []
    last = 0
    for match in _INLINE.finditer(text):
        if match.start() > last:
            spans.append(Span("text", text[last:match.start()]))
        spans.append(_span(match, depth + 1))
        last = match.end()
    if last < len(text):
        spans.append(Span("text", text[last:]))
    return spans


def _span(match: "re.Match[str]", depth: int) -> Span:
    if match.group("code") is not None:
        code = match.group("code")
        return Span("code", code.strip() or code)  # "`` `x` ``" is the code "`x`"
    if match.group("label") is not None:
        label = match.group("label")
        return Span("link", label, match.group("url"), parse_inline(label, depth))
    strong = match.group("strong") or match.group("strong2")
    if strong:
        return Span("strong", strong, children=parse_inline(strong, depth))
    emphasis = match.group("em") or match.group("em2")
    return Span("emphasis", emphasis, children=parse_inline(emphasis, depth))


def render_markdown(text: str, width: int, style: Style) -> List[str]:
    """The text as terminal lines, each at most width - 1 columns wide.

    Example: render_markdown("**5** files", 80, Style(True)) -> ["\\x1b[1m5\\x1b[0m files"]
    """
    blocks = parse_blocks(text)
    if blocks and blocks[-1].kind == "blank":
        blocks.pop()  # an answer that ends in "\\n\\n" ends there, not one row lower
    return render_blocks(blocks, width, style)


def render_blocks(blocks: List[Block], width: int, style: Style) -> List[str]:
    room = max(1, width - 1)  # the renderer never writes the last column
    lines: List[str] = []
    for block in blocks:
        lines += _render_block(block, room, style)
    # The last word on the width: code is cut here, and so is an indent too deep for a
    # very narrow terminal.
    return [cut(line, room) for line in lines]


def _render_block(block: Block, room: int, style: Style) -> List[str]:
    if block.kind == "blank":
        return [""]
    if block.kind == "rule":
        return [style.apply("─" * room, "dim")]
    if block.kind == "code":
        body = [row for line in block.lines for row in _code_rows(printable(line), room, style)]
        closing = [style.apply("```", "dim")] if block.closed else []
        return [style.apply("```" + block.lang, "dim")] + body + closing
    if block.kind == "heading":
        names = ("bold", "underline") if block.level == 1 else ("bold",)
        return _wrapped(block.lines, room, style, "", "", names)
    if block.kind == "quote":
        bar = style.apply("│ ", "dim")
        return _wrapped(block.lines, room, style, bar, bar)
    if block.kind == "table":
        return _table(block.lines, room, style)
    if block.kind in ("bullet", "numbered"):
        depth = min(block.level, room // 4)  # the indent takes at most half the row
        marker = "  " * depth + (block.number if block.kind == "numbered" else "•") + " "
        return _wrapped(block.lines, room, style, marker, " " * text_width(marker))
    return _wrapped(block.lines, room, style, "", "")


def _code_rows(line: str, room: int, style: Style) -> List[str]:
    """One code line, indented, in rows of the width: the rest of a line too long goes
    on the next row after a dim "↪ ".

    Example (room 12): "print('hello world')" -> ["  print('hel", "↪ lo world')"]
    """
    rows, prefix, rest = [], "  ", line
    while True:
        piece = cut(rest, room - 2)  # both prefixes take two columns
        if len(piece) == len(rest) or not piece:  # the end, or no room for a character
            return rows + [prefix + rest]
        rows.append(prefix + piece)
        rest, prefix = rest[len(piece):], style.apply("↪ ", "dim")


def _table(lines: List[str], room: int, style: Style) -> List[str]:
    """A table drawn in a box, each cell's spans styled (the header's bold too); lines
    with no delimiter row under the first are no table, and stay as typed."""
    table = parse_table(lines)
    if table is None:
        return _wrapped(lines, room, style, "", "")
    rows, aligns = table
    styled = [[_inline(cell, style, ("bold",) if index == 0 else ()) for cell in row]
              for index, row in enumerate(rows)]
    return draw_table(styled, aligns, room, style)


def _wrapped(lines: List[str], room: int, style: Style, first: str, rest: str,
             names: Tuple[str, ...] = ()) -> List[str]:
    """Each line's spans, wrapped to the room the prefixes leave: `first` opens the
    first row, `rest` every later one (spaces for a hanging indent, or a frame)."""
    rows: List[str] = []
    for line in lines:
        rows += wrap(_inline(line, style, names), max(1, room - text_width(first)))
    return [(rest if index else first) + row for index, row in enumerate(rows)]


def _inline(text: str, style: Style, names: Tuple[str, ...]) -> str:
    return "".join(_styled(span, style, names) for span in parse_inline(text))


def _styled(span: Span, style: Style, names: Tuple[str, ...]) -> str:
    """A span in the styles it is inside plus its own. Each piece of text gets all of
    them in one code: a style closed inside another ends with a reset, and would end
    the outer one too."""
    if span.kind == "text":
        return style.apply(printable(span.text), *names)
    if span.kind == "code":
        return style.apply(printable(span.text), *names, "cyan")
    if span.kind == "link" and span.text == span.url:
        return style.apply(printable(span.url), *names, "blue")
    if span.kind == "link":
        label = "".join(_styled(child, style, names) for child in span.children)
        return f"{label} ({style.apply(printable(span.url), *names, 'blue')})"
    own = "bold" if span.kind == "strong" else "italic"
    names += (own,) if own not in names else ()
    return "".join(_styled(child, style, names) for child in span.children)
