"""edit: change a file by replacing exact pieces of text, several at once.

The model sends a path and `edits`, a list of {oldText, newText} pairs. Each oldText must
be found exactly once in the file as it is now (the ORIGINAL file: edits do not see each
other's results), the matched pieces must not overlap, and then all of them are replaced
in one write. Either every edit lands or none does.

    file:  "a = 1\\nb = 2\\nc = 3\\n"
    edits: [{"oldText": "a = 1", "newText": "a = 10"},
            {"oldText": "c = 3", "newText": "c = 30"}]
    file:  "a = 10\\nb = 2\\nc = 30\\n"       result: "Edited ...: replaced 2 blocks ..."

Why replace text instead of line numbers: the model quotes what it wants to change, so a
stale line number can never change the wrong line, and a quote that is not in the file
fails loudly with a message that tells the model to read the file again.

Matching, in two steps:
  1. Exact: `oldText` as a substring of the file.
  2. Normalised, when the exact text is not there: models often get invisible details
     wrong. Both sides are compared after normalising each line: Unicode NFKC, smart
     quotes to ' and ", dashes to -, special spaces to " ", trailing whitespace (and so
     "\\r" line endings) removed. Only the matched region is replaced: positions in the
     normalised text are mapped back to the original, so every other byte of the file
     stays exactly as it was.

Uniqueness is judged in the normalised text too ("x  \\nx\\n" holds "x\\n" twice once the
trailing spaces are ignored), as in pi: when in doubt, ask the model for more context.

The file's byte order mark and line endings are kept: newText is written with the
file's line ending (CRLF if the first line ends with "\\r\\n"). Bytes that are not valid
UTF-8 survive untouched (decoded with surrogateescape, encoded back the same way).
The result's details hold a line-numbered diff (see diff.py; undecodable bytes shown as
U+FFFD there) and the first changed line. A pipe or a device is refused before it is
opened (paths.refuse_special_file): opening a pipe would wait forever.

A per-file lock (paths.path_lock) makes two parallel edits of one file take turns, so
both land. Reading the file first is not enforced.

Left out: creating files (that is write's job), regular expressions, replace-all.
"""

import json
import threading
import unicodedata
from bisect import bisect_right
from typing import Any, Dict, List, Optional, Tuple

from . import Tool, ToolContext, ToolError, ToolResult, text_result
from .diff import generate_diff
from .paths import (ABORT_CHECK_LINES, check_not_aborted, describe_os_error, path_lock,
                    refuse_special_file, resolve_path)
from .truncate import printable

BOM = b"\xef\xbb\xbf"

DESCRIPTION = (
    "Edit a file by replacing exact text. Give one or more edits, each an oldText to find "
    "and the newText to put in its place. Every oldText must match exactly one place in "
    "the file as it is before this call (copy it from the file, with its whitespace and "
    "line breaks) and must not overlap another edit's oldText; all edits are applied "
    "together. Include just enough surrounding lines to make each oldText unique. To "
    "change two nearby places, use one edit that covers both.")

PARAMETERS = {
    "type": "object",
    "required": ["path", "edits"],
    "properties": {
        "path": {"type": "string",
                 "description": "File to edit, absolute or relative to the working directory"},
        "edits": {
            "type": "array",
            "description": "Replacements, each matched against the original file",
            "items": {
                "type": "object",
                "required": ["oldText", "newText"],
                "properties": {
                    "oldText": {"type": "string",
                                "description": "Text to replace; must occur exactly once"},
                    "newText": {"type": "string", "description": "Text to put in its place"},
                },
            },
        },
    },
}


def create_tool() -> Tool:
    return Tool("edit", DESCRIPTION, PARAMETERS, execute, prepare_arguments=prepare_arguments)


def prepare_arguments(args: Any) -> Any:
    """Repair two shapes models send, before validation.

    {"path": p, "oldText": a, "newText": b}    -> {"path": p, "edits": [{"oldText": a, "newText": b}]}
    {"path": p, "edits": "[{\\"oldText\\": ...}]"} -> {"path": p, "edits": [{"oldText": ...}]}
    """
    if not isinstance(args, dict):
        return args
    args = dict(args)
    if isinstance(args.get("edits"), str):
        try:
            parsed = json.loads(args["edits"])
        except ValueError:
            parsed = args["edits"]  # leave it: validation will say edits must be an array
        args["edits"] = [parsed] if isinstance(parsed, dict) else parsed
    if "oldText" in args or "newText" in args:
        legacy = {key: args.pop(key) for key in ("oldText", "newText") if key in args}
        edits = args.get("edits")
        args["edits"] = (edits if isinstance(edits, list) else []) + [legacy]
    return args


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    path = resolve_path(args["path"], ctx.cwd)
    edits = args["edits"]
    if not edits:
        raise ToolError("edits is empty: give at least one {oldText, newText} pair.")
    with path_lock(path):
        refuse_special_file(path, "edit")
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as exc:
            raise describe_os_error(exc, path) from exc
        bom = BOM if raw.startswith(BOM) else b""
        original = raw[len(bom):].decode("utf-8", errors="surrogateescape")
        updated = apply_edits(original, edits, path, ctx.abort)
        try:
            with open(path, "wb") as f:
                f.write(bom + updated.encode("utf-8", errors="surrogateescape"))
        except OSError as exc:
            raise describe_os_error(exc, path) from exc
    diff, first_changed = generate_diff(printable(original), printable(updated))
    blocks = "1 block" if len(edits) == 1 else f"{len(edits)} blocks"
    return text_result(f"Edited {path}: replaced {blocks} of text.",
                       {"diff": diff, "firstChangedLine": first_changed})


def apply_edits(original: str, edits: List[Dict[str, str]], path: str,
                abort: Optional[threading.Event] = None) -> str:
    """The new text of the file, or a ToolError naming the edit that cannot be applied.

    `abort` is checked while the file is normalised, the one step whose time grows with
    the number of lines (slowest for non-ASCII text): nothing has been written yet, so
    stopping there leaves the file as it was.
    """
    line_ending = "\r\n" if uses_crlf(original) else "\n"
    normalised = NormalisedText(original, abort)
    regions = []  # (start, end, edit number) in the original text
    for number, edit in enumerate(edits):
        start, end = locate(original, normalised, edit["oldText"],
                            label(number, len(edits)), path)
        regions.append((start, end, number))
    regions.sort()  # in file order, only neighbours can overlap
    for (_, end, first), (start, _, second) in zip(regions, regions[1:]):
        if start < end:
            raise ToolError(
                f"edits[{first}] ({quote(edits[first]['oldText'])}) and edits[{second}] "
                f"({quote(edits[second]['oldText'])}) overlap in {path}. Every edit is "
                f"matched against the original file, so edits must not overlap: merge "
                f"them into one edit.")
    updated = original
    for start, end, number in reversed(regions):  # from the end, so offsets stay valid
        new_text = with_line_ending(edits[number]["newText"], line_ending)
        updated = updated[:start] + new_text + updated[end:]
    if updated == original:
        raise ToolError(f"No changes made to {path}: the new text is identical to the text "
                        f"it replaces. Check that newText holds the change you intended.")
    return updated


def locate(original: str, normalised: "NormalisedText", old_text: str, name: str,
           path: str) -> Tuple[int, int]:
    """(start, end) of the one place `old_text` matches in `original`."""
    if not old_text:
        raise ToolError(f"{name} is empty. To insert text, put a neighbouring line in "
                        f"oldText and repeat it in newText next to the new lines.")
    exact = original.count(old_text)
    target = normalise(old_text)
    fuzzy = normalised.text.count(target) if target else 0
    # Unique as typed but not once whitespace and quotes are ignored still counts as
    # ambiguous (as in pi): the model may have meant the other place.
    count = max(exact, fuzzy)
    if count == 0:
        raise ToolError(
            f"Could not find {name} ({quote(old_text)}) in {path}. It must match the file "
            f"exactly, including indentation and line breaks. Read the file again and "
            f"copy the text from it.")
    if count > 1:
        raise ToolError(
            f"{name} ({quote(old_text)}) matches {count} places in {path}, but must "
            f"match exactly one. Include more of the surrounding lines to make it unique.")
    if exact == 1:
        start = original.find(old_text)
        return start, start + len(old_text)
    start = normalised.text.find(target)
    return normalised.to_original(start, start + len(target))


def label(number: int, count: int) -> str:
    return "oldText" if count == 1 else f"edits[{number}].oldText"


def quote(text: str, limit: int = 80) -> str:
    """Show the model which text we mean, shortened: 'def f():\\n    ret…'."""
    short = text if len(text) <= limit else text[:limit] + "…"
    return json.dumps(short, ensure_ascii=False)


def uses_crlf(text: str) -> bool:
    """The file's line ending is judged by its first line, as in pi."""
    first = text.find("\n")
    return first > 0 and text[first - 1] == "\r"


def with_line_ending(text: str, line_ending: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", line_ending)


# --- Normalised matching --------------------------------------------------------------------

_FOLD = str.maketrans({
    **{c: "'" for c in "\u2018\u2019\u201a\u201b"},           # smart single quotes
    **{c: '"' for c in "\u201c\u201d\u201e\u201f"},           # smart double quotes
    **{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-",  # dashes, minus
    **{c: " " for c in "\u00a0\u202f\u205f\u3000"},
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
