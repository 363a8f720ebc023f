"""table: a Markdown table drawn as a box, its columns aligned on the terminal's grid.

Models answer comparisons in tables (GitHub's Markdown). Typed, a table lines up only
when every cell happens to have the same length; drawn, each column is as wide as its
widest cell, measured in columns (width.py: "日本" takes four), and framed:

    | Name | Size |            ┌──────┬──────┐
    |------|-----:|            │ Name │ Size │    (the header bold)
    | 日本 | 3 |        ->     ├──────┼──────┤
    | b    | 12 |              │ 日本 │    3 │    ("-----:" aligns right,
                               │ b    │   12 │     ":---:" centres)
                               └──────┴──────┘

A table is a run of lines that start with "|" whose second line is the delimiter row
("|---|:--:|"), with as many cells as the header; anything else stays lines as typed.
A row with fewer cells is padded, one with more is cut (as GitHub does). A cell is
split at "|" unless a backslash escapes it ("\\|" is a pipe in the cell).

A table wider than the room gives its widest columns less (each keeps what it needs
when it is narrower than the others' share), and their cells wrap inside them. With
no room for a column each, the rows are cut at the edge like any other line.

This module parses and draws; markdown.py styles each cell (bold, code...) first, so a
cell here is a string with colour codes in it, measured by width.py.

Left out: the GitHub rule that a table may start without leading pipes, and a body
row that ends the table by having no pipe at all (every row here starts with one).
"""

import re
from typing import List, Optional, Tuple

from .style import Style
from .width import text_width, wrap

_DELIMITER_CELL = re.compile(r"^:?-+:?$")
_SPLIT = re.compile(r"(?<!\\)\|")


def split_row(line: str) -> List[str]:
    """The cells of one row, stripped: the outer pipes dropped, "\\|" kept as "|".

    Example: split_row("| a | b \\\\| c |") -> ["a", "b | c"]
    """
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [cell.strip().replace("\\|", "|") for cell in _SPLIT.split(text)]


def parse_table(lines: List[str]) -> Optional[Tuple[List[List[str]], List[str]]]:
    """(rows, alignments) of a table, the header row first, every row as many cells as
    the header; None when the lines are no table (no delimiter row under the first).
    An alignment is "left", "right" or "center".

    Example: parse_table(["| a | b |", "|---|--:|", "| 1 |"]) ->
             ([["a", "b"], ["1", ""]], ["left", "right"])
    """
    if len(lines) < 2:
        return None
    header, delimiter = split_row(lines[0]), split_row(lines[1])
    if len(header) != len(delimiter) or not all(_DELIMITER_CELL.match(cell)
                                                for cell in delimiter):
        return None
    aligns = [_alignment(cell) for cell in delimiter]
    rows = [header]
    for line in lines[2:]:
        cells = split_row(line)[:len(header)]
        rows.append(cells + [""] * (len(header) - len(cells)))
    return rows, aligns


def _alignment(cell: str) -> str:
    if cell.startswith(":") and cell.endswith(":"):
        return "center"
    return "right" if cell.endswith(":") else "left"


def draw_table(rows: List[List[str]], aligns: List[str], room: int,
               style: Style) -> List[str]:
    """The table in a box at most `room` columns wide (when a column each fits), the
    first row the header, under it a rule. Cells come styled already."""
    widths = _fit([max(1, *(text_width(row[i]) for row in rows)) for i in range(len(aligns))],
                  room - 3 * len(aligns) - 1)  # "│ " before each cell, " │" after the last
    lines = [_border(widths, "┌┬┐", style)]
    for index, row in enumerate(rows):
        lines += _row_lines(row, widths, aligns, style)
        if index == 0:
            lines.append(_border(widths, "├┼┤", style))
    return lines + [_border(widths, "└┴┘", style)]


def _border(widths: List[int], corners: str, style: Style) -> str:
    """A frame row: the left corner, a join between columns, the right corner."""
    left, join, right = corners
    return style.apply(left + join.join("─" * (width + 2) for width in widths) + right, "dim")


def _fit(widths: List[int], room: int) -> List[int]:
    """Column widths that add up to at most `room`: the widest are given less first (a
    cap all columns share), so a narrow column keeps all it needs.

    Example: _fit([3, 20, 30], 33) -> [3, 15, 15]
    """
    if sum(widths) <= room:
        return widths
    if room < len(widths):
        return [1] * len(widths)  # no room for the table: its rows are cut at the edge
    cap = room // len(widths)
    while sum(min(width, cap + 1) for width in widths) <= room:
        cap += 1
    return [min(width, cap) for width in widths]


def _row_lines(row: List[str], widths: List[int], aligns: List[str],
               style: Style) -> List[str]:
    """One row as terminal lines: each cell wrapped to its column, the row as tall as its
    tallest cell."""
    wrapped = [wrap(cell, width) for cell, width in zip(row, widths)]
    bar = style.apply("│", "dim")
    lines = []
    for line in range(max(len(cell) for cell in wrapped)):
        parts = [_pad(cell[line] if line < len(cell) else "", width, align)
                 for cell, width, align in zip(wrapped, widths, aligns)]
        lines.append(bar + " " + f" {bar} ".join(parts) + " " + bar)
    return lines


def _pad(text: str, width: int, align: str) -> str:
    """Example: _pad("ab", 5, "right") -> "   ab"; _pad("ab", 5, "center") -> " ab  "."""
    room = max(0, width - text_width(text))
    if align == "right":
        return " " * room + text
    if align == "center":
        return " " * (room // 2) + text + " " * (room - room // 2)
    return text + " " * room
