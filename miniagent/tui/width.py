"""width: how many columns a piece of text takes on a terminal.

A terminal is a grid of cells, and a program that draws on it must know where each
line ends: a line one column too wide wraps, and every cursor move after it lands one
row off. Counting characters is not enough:

    "abc"          3 columns    one cell each
    "日本"          4 columns    East Asian wide characters take two cells
    "e\\u0301"      1 column     a combining accent sits on the letter before it
    "\\x1b[1mhi"    2 columns    a colour code takes no cell at all

`char_width` reads the first two from the Unicode database (`east_asian_width` "W" and
"F" are two cells; combining marks, zero-width joiners and variation selectors none).
This is an approximation, and it says where: emoji sequences joined by U+200D are
counted as the sum of their parts (a terminal usually draws one glyph), "ambiguous"
characters count as one cell (as most Western terminals set them), and what a given
terminal's font really does is not known to us.

`cut` and `wrap` keep the colour codes intact: a line cut inside a bold word ends
with a reset, and a wrapped line opens the next row in the style it left off.
`printable` readies text from a model or a file for them: a tab has no width of its
own (it jumps to a tab stop), so it becomes spaces, and ESC is shown, never sent.
"""

import re
import unicodedata
from functools import lru_cache
from typing import List, Optional, Tuple

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # a CSI sequence: colour codes, mainly
RESET = "\x1b[0m"


@lru_cache(maxsize=4096)
def char_width(char: str) -> int:
    """Example: char_width("a") -> 1, char_width("日") -> 2, char_width("\\u0301") -> 0."""
    if char.isascii():
        return 1 if char.isprintable() else 0
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Example: text_width("\\x1b[1m日本\\x1b[0m!") -> 5."""
    if "\x1b" in text:
        text = ESCAPE.sub("", text)
    if text.isascii():
        return len(text)
    return sum(map(char_width, text))


def cut(text: str, width: int) -> str:
    """The longest start of `text` that fits in `width` columns, colour codes kept
    (and closed with a reset when the cut fell inside a style)."""
    if text.isascii() and "\x1b" not in text:
        return text[:max(0, width)]
    if text_width(text) <= width:  # most rows fit: measuring is cheaper than cutting
        return text
    out, used, styled = [], 0, False
    for match in _pieces(text):
        piece = match.group()
        if piece.startswith("\x1b"):
            out.append(piece)
            styled = piece != RESET
            continue
        size = char_width(piece)
        if used + size > width:
            return "".join(out) + (RESET if styled else "")
        out.append(piece)
        used += size
    return "".join(out)


def wrap(text: str, width: int) -> List[str]:
    """`text` as rows of at most `width` columns: broken at spaces where it can, inside
    a word where it must; each "\\n" starts a new row. Styles carry over a break.

    Example: wrap("one two three", 8) -> ["one two", "three"]
    """
    width = max(1, width)
    rows: List[str] = []
    for line in text.split("\n"):
        rows.extend(_wrap_line(line, width))
    return rows


def wrap_spans(line: str, room: int, cursor: Optional[int]) -> List[Tuple[int, int]]:
    """The line cut into rows of at most `room` cells, as (start, end) character spans,
    as the editor lays out what is typed (cut at any character, not at spaces as `wrap`
    does: the cursor must keep its place); a row more, empty, when the cursor is at the
    end of a full last row.

    Example: wrap_spans("ab日c", 3, None) -> [(0, 2), (2, 4)]  ("日" takes 2 cells)
    """
    spans, start, used = [], 0, 0
    for index, char in enumerate(line):
        size = text_width(char)
        if used + size > room and index > start:
            spans.append((start, index))
            start, used = index, 0
        used += size
    spans.append((start, len(line)))
    if cursor == len(line) and used >= room:
        spans.append((len(line), len(line)))
    return spans


def _wrap_line(line: str, width: int) -> List[str]:
    if text_width(line) <= width:
        return [line]
    rows: List[str] = []
    active = ""  # the colour codes in force at the current point
    row: List[str] = []
    used = 0
    last_space = -1  # index in `row` after the last space, where a break may go
    for match in _pieces(line):
        piece = match.group()
        if piece.startswith("\x1b"):
            row.append(piece)
            active = "" if piece == RESET else active + piece
            continue
        size = char_width(piece)
        if used + size > width and piece == " ":  # the break falls on a space: drop it
            row, used, last_space = _break(rows, row, len(row), active)
            continue
        if used + size > width:
            row, used, last_space = _break(rows, row, last_space, active)
        row.append(piece)
        used += size
        if piece == " ":
            last_space = len(row)
    rows.append("".join(row))
    return rows


def _break(rows: List[str], row: List[str], last_space: int, active: str):
    """End the current row (at its last space when there is one) and start the next with
    the styles in force; returns the new row, its width and its break point."""
    keep, carry = (row[:last_space], row[last_space:]) if last_space > 0 else (row, [])
    rows.append("".join(keep).rstrip(" ") + (RESET if active else ""))
    new_row = ([active] if active else []) + carry
    return new_row, text_width("".join(carry)), -1


def _pieces(text: str):
    """The text as escape sequences and single characters, in order."""
    return _PIECE.finditer(text)


_PIECE = re.compile(ESCAPE.pattern + r"|.", re.DOTALL)


def printable(text: str) -> str:
    """Text whose width is what `text_width` says it is, as a component draws it: a tab
    as spaces (to the next multiple of 4 from the start of `text`: a terminal's own tab
    stops count from the screen's edge, which a component does not know), and ESC as
    the symbol for ESC, so text from a model or a file never starts a code of its own.

    Example: printable("a\\tb\\x1b[2J") -> "a   b\u241b[2J"
    """
    return text.expandtabs(4).replace("\x1b", "\u241b")
