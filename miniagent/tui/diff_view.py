"""diff_view: how a diff is read, and shown in colour.

A diff says how to turn one text into another, one line at a time. The first character
of each line says what happened to it:

    -7 old line        removed: it was line 7 of the old text          (red)
    +7 new line        added: it is line 7 of the new text             (green)
     8 same line       context: unchanged, shown to place the change   (plain)
       ...             unchanged lines left out                        (dim)

That is the text the edit tool puts in its result (tools/hardening/diff.py, pi's
format: a sign, the line number, the line). The unified format `git diff` prints is read
too: the same signs, no numbers, and headers:

    --- a/app.py       the old file, then the new one                  (bold)
    +++ b/app.py
    @@ -7,3 +7,3 @@    a hunk: where the lines below start, old and new (cyan)

A line is cut at the edge, never wrapped: a wrapped line would start with a character
that is not its sign. A long diff can be folded to its first lines and a count.

The text is the contract: this module imports nothing of the tool that made it. One
ambiguity is settled by a look at the neighbour: "--- x" is a file header only when a
"+++ " line follows it (otherwise it is the removed line "-- x").
"""

import re
from typing import List, Optional, Tuple

from .style import Style
from .width import cut, printable

_SKIPPED = re.compile(r"^ +\.\.\.$")  # pi's marker for unchanged lines left out
_STYLES = {"removed": ("red",), "added": ("green",), "hunk": ("cyan",), "file": ("bold",),
          "skipped": ("dim",), "other": ("dim",), "context": ()}


def render_diff(text: str, width: int, style: Style, max_lines: Optional[int] = None,
                hint: str = "") -> List[str]:
    """The diff as coloured lines, each cut to width - 1 columns; with `max_lines`, the
    first max_lines lines and a line that says how many more there are (and `hint`,
    the caller's way to see them: " (Ctrl+O shows them)").

    Example: render_diff("-1 a\\n+1 b", 80, Style(True)) ->
             ["\\x1b[31m-1 a\\x1b[0m", "\\x1b[32m+1 b\\x1b[0m"]
    """
    room = max(1, width - 1)
    lines = _lines(text)
    kinds = _line_kinds(lines)
    shown = len(lines) if max_lines is None else min(len(lines), max(0, max_lines))
    out = [style.apply(cut(printable(line), room), *_STYLES[kind])
           for line, kind in zip(lines[:shown], kinds[:shown])]
    hidden = len(lines) - shown
    if hidden:
        more = f"… {hidden} more line{'s' if hidden != 1 else ''}{hint}"
        out.append(style.apply(cut(more, room), "dim"))
    return out


def diff_stats(text: str) -> Tuple[int, int]:
    """(lines added, lines removed), for a header such as "+3 -1".

    Example: diff_stats("-1 a\\n+1 b\\n+2 c") -> (2, 1)
    """
    kinds = _line_kinds(_lines(text))
    return kinds.count("added"), kinds.count("removed")


def _line_kinds(lines: List[str]) -> List[str]:
    """What each line is: "removed", "added", "context", "skipped", "hunk", "file" or
    "other" (`diff --git`, `index`, "\\ No newline at end of file": shown dim)."""
    kinds = []
    for index, line in enumerate(lines):
        before = lines[index - 1] if index else ""
        after = lines[index + 1] if index + 1 < len(lines) else ""
        kinds.append(_kind(line, before, after))
    return kinds


def _kind(line: str, before: str, after: str) -> str:
    if (line.startswith("--- ") and after.startswith("+++ ")) or (
            line.startswith("+++ ") and before.startswith("--- ")):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if _SKIPPED.match(line):
        return "skipped"
    if line.startswith("-"):
        return "removed"
    if line.startswith("+"):
        return "added"
    if line.startswith(" ") or not line:
        return "context"
    return "other"


def _lines(text: str) -> List[str]:
    """The diff's lines; a final line break ends the last line, it starts no new one."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
