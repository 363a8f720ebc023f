"""Fuzzy matching for edit: find text the model quoted almost right, change only that.

Models get invisible details wrong when they copy text into `oldText`: the file has
smart quotes and the model types plain ones, a line ends in trailing spaces or "\\r\\n"
the model dropped, a dash is an en dash, a space a no-break space. edit first looks for
`oldText` exactly; when it is not there, it compares both sides after normalising each
line:

    normalise("say \\u201chi\\u201d  \\r\\nok")  ->  'say "hi"\\nok'

  * Unicode NFKC: full-width "ＡＢＣ" is "ABC", "e" plus a combining accent is "é";
  * smart quotes become ' and ", dashes and the minus sign -, special spaces " ";
  * trailing whitespace is removed, and with it the "\\r" of a CRLF line ending.

The hard part is the way back. The match is found in the NORMALISED text, but the file
must be changed in the ORIGINAL, and nothing else in it may change (pi wrote the whole
file back normalised; we replace only the matched region). `NormalisedText` keeps both
and maps a span back:

    original "a  \\nb\\u2019c\\n"  ->  text "a\\nb'c\\n"
    span of "b'c" in text (2, 5)  ->  (4, 7), the span of "b\\u2019c" in the original

It can, because normalising never adds or removes a "\\n" (line k stays line k), and
within a line each base character with its combining marks (a "piece") is normalised on
its own, so we know which original characters produced each normalised one.

Left out: matching that ignores indentation or differing line breaks, and edit distance
("close enough"): a quote that is really different must fail, so the model reads again.
"""

import threading
import unicodedata
from bisect import bisect_right
from typing import List, Optional, Tuple

from ...core.tools import check_not_aborted

ABORT_CHECK_LINES = 4096
"""How many lines are normalised between two looks at the abort event: 4096 lines take
milliseconds, so even a 1 GB file stops promptly when the user aborts."""

# What a model types for the look-alikes it cannot tell apart.
_FOLD = str.maketrans({
    **{c: "'" for c in "\u2018\u2019\u201a\u201b"},           # smart single quotes
    **{c: '"' for c in "\u201c\u201d\u201e\u201f"},           # smart double quotes
    **{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-",  # dashes, minus
    **{c: " " for c in "\u00a0\u202f\u205f\u3000"},       # no-break, narrow, ideographic
    **{chr(c): " " for c in range(0x2002, 0x200b)},           # en space .. hair space
})


def normalise(text: str) -> str:
    """Each line normalised. Example: "say \\u201chi\\u201d  \\r\\nok" -> 'say "hi"\\nok'."""
    return "\n".join(normalise_line(line) for line in text.split("\n"))


def normalise_line(line: str) -> str:
    if line.isascii():
        return line.rstrip()  # NFKC and the folds change no ASCII character
    return "".join(normalise_piece(line[a:b]) for a, b in pieces(line)).rstrip()


def normalise_piece(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece).translate(_FOLD)


def pieces(line: str) -> List[Tuple[int, int]]:
    """Split a line into a base character plus its combining marks, e.g. "e\\u0301".

    Normalising piece by piece lets us say which original characters produced each
    normalised one. Example: "cafe\\u0301!" -> [(0, 1), (1, 2), (2, 3), (3, 5), (5, 6)].
    """
    starts = [i for i, ch in enumerate(line) if i == 0 or not unicodedata.combining(ch)]
    return list(zip(starts, starts[1:] + [len(line)]))


class NormalisedText:
    """A text normalised line by line, able to map a span back to the original.

    Example: original "a  \\nb\\u2019c\\n" -> text "a\\nb'c\\n"; the span of "b'c" in
    `text` (2, 5) maps back to (4, 7), the span of "b\\u2019c" in the original.
    """

    def __init__(self, original: str, abort: Optional[threading.Event] = None) -> None:
        self.lines = original.split("\n")
        self.normalised_lines: List[str] = []
        # In slices, with an abort check between them. An 80 MB file of plain ASCII
        # takes a fraction of a second, but one of accented text about 20 s (non-ASCII
        # lines go piece by piece), too long to ignore Ctrl-C. A list comprehension
        # per slice keeps nearly all the speed of one over the whole file.
        for first in range(0, len(self.lines), ABORT_CHECK_LINES):
            if abort is not None:
                check_not_aborted(abort)
            self.normalised_lines += [normalise_line(line) for line in
                                      self.lines[first:first + ABORT_CHECK_LINES]]
        self.text = "\n".join(self.normalised_lines)
        self.original_starts = line_starts(self.lines)
        self.normalised_starts = line_starts(self.normalised_lines)

    def to_original(self, start: int, end: int) -> Tuple[int, int]:
        return self._position(start, is_end=False), self._position(end, is_end=True)

    def _position(self, position: int, is_end: bool) -> int:
        # Normalising never adds or removes a "\n", so line k of the normalised text is
        # line k of the original: find the line, then map the column within it.
        number = bisect_right(self.normalised_starts, position) - 1
        column = position - self.normalised_starts[number]
        column = original_column(self.lines[number], self.normalised_lines[number],
                                 column, is_end)
        return self.original_starts[number] + column


def line_starts(lines: List[str]) -> List[int]:
    """Offset of each line in "\\n".join(lines). Example: ["ab", "c"] -> [0, 3]."""
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


def original_column(line: str, normalised: str, column: int, is_end: bool) -> int:
    """Map a column of `normalised` (= normalise_line(line)) to a column of `line`.

    A span that starts or ends inside what one piece produced (the "i" of "ﬁ" -> "fi")
    is widened to the whole piece. The end of the normalised line maps to the end of
    the original line's content, before its trailing whitespace and "\\r".
    """
    if column >= len(normalised):
        return len(line.rstrip())
    if line.isascii():
        return column  # normalising ASCII only strips the end, so columns do not move
    if is_end and column == 0:
        return 0
    # An end points just past the span's last character, a start at its first; find
    # the piece that produced that character by normalising the pieces in order.
    wanted = column - 1 if is_end else column
    produced = 0
    for a, b in pieces(line):
        produced += len(normalise_piece(line[a:b]))
        if produced > wanted:
            return b if is_end else a
    raise AssertionError("the pieces produce the whole normalised line")
