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

A line changed in a few words shows which: when a run of removed lines is followed by
as many added ones, each removed line is compared with its added one, word by word
(difflib), and the words that differ are marked (inverse video) on both:

    -7 total = price * count        "price" marked in red
    +7 total = cost * count         "cost" marked in green

A pair that keeps less than half its words is a rewrite, not an edit: its lines are
shown whole, unmarked (every word marked would say nothing). Without colour there are
no marks (the signs still say which lines changed).

A line is cut at the edge, never wrapped: a wrapped line would start with a character
that is not its sign. A long diff can be folded to its first lines and a count.

The text is the contract: this module imports nothing of the tool that made it. One
ambiguity is settled by a look at the neighbour: "--- x" is a file header only when a
"+++ " line follows it (otherwise it is the removed line "-- x").
"""

import re
from difflib import SequenceMatcher
from typing import Dict, List, Optional, Tuple

from .style import Style
from .width import cut, printable

_SKIPPED = re.compile(r"^ +\.\.\.$")  # pi's marker for unchanged lines left out
_SIGNED = re.compile(r"^([-+](?: *\d+ )?)(.*)$", re.DOTALL)  # the sign, pi's line number
_WORD = re.compile(r"\w+|\s+|[^\w\s]")  # a word, a run of spaces, or one other character
MARK_AT_LEAST = 0.5  # of a pair's words kept, for its changed words to be marked
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
    lines = [printable(line) for line in lines]  # the kinds read first: a tab is no sign
    shown = len(lines) if max_lines is None else min(len(lines), max(0, max_lines))
    marks = word_marks(lines, kinds) if style.colour else {}
    out = [_styled(line, marks.get(index), _STYLES[kind], room, style)
           for index, (line, kind) in enumerate(zip(lines[:shown], kinds[:shown]))]
    hidden = len(lines) - shown
    if hidden:
        more = f"… {hidden} more line{'s' if hidden != 1 else ''}{hint}"
        out.append(style.apply(cut(more, room), "dim"))
    return out


def _styled(line: str, pieces: Optional[List[Tuple[str, bool]]], names: Tuple[str, ...],
            room: int, style: Style) -> str:
    """One line in its kind's style, its changed words (`pieces` marked True) inverse."""
    if pieces is None:
        return style.apply(cut(line, room), *names)
    return cut("".join(style.apply(text, *names, *(("inverse",) if changed else ()))
                       for text, changed in pieces), room)


def word_marks(lines: List[str], kinds: List[str]) -> Dict[int, List[Tuple[str, bool]]]:
    """The lines whose changed words are marked, by index: each as (text, changed) pieces.
    A run of removed lines followed by as many added ones pairs them in order.

    Example: word_marks(["-1 a = 1", "+1 a = 2"], ["removed", "added"]) ->
             {0: [("-1 ", False), ("a = ", False), ("1", True)],
              1: [("+1 ", False), ("a = ", False), ("2", True)]}
    """
    marks: Dict[int, List[Tuple[str, bool]]] = {}
    start = 0
    while start < len(lines):
        removed_end = _run_end(kinds, start, "removed")
        added_end = _run_end(kinds, removed_end, "added")
        if removed_end > start and added_end - removed_end == removed_end - start:
            for old, new in zip(range(start, removed_end), range(removed_end, added_end)):
                pair = _changed_words(lines[old], lines[new])
                if pair is not None:
                    marks[old], marks[new] = pair
        start = max(added_end, start + 1)
    return marks


def _run_end(kinds: List[str], start: int, kind: str) -> int:
    while start < len(kinds) and kinds[start] == kind:
        start += 1
    return start


def _changed_words(old: str, new: str):
    """The two lines as pieces, the words that differ marked; None for a rewrite."""
    (old_sign, old_text), (new_sign, new_text) = (_SIGNED.match(old).groups(),
                                                  _SIGNED.match(new).groups())
    a, b = _WORD.findall(old_text), _WORD.findall(new_text)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < MARK_AT_LEAST:
        return None
    old_pieces, new_pieces = [(old_sign, False)], [(new_sign, False)]
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        old_pieces.append(("".join(a[i1:i2]), tag != "equal"))
        new_pieces.append(("".join(b[j1:j2]), tag != "equal"))
    return ([piece for piece in old_pieces if piece[0]],
            [piece for piece in new_pieces if piece[0]])


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
