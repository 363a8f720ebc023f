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
     wrong (smart quotes, dashes, trailing spaces, "\\r\\n"), so both sides are compared
     with those ironed out, and the match is mapped back to the original so that only
     the matched region changes (fuzzy.py).

Uniqueness is judged in the normalised text too ("x  \\nx\\n" holds "x\\n" twice once the
trailing spaces are ignored), as in pi: when in doubt, ask the model for more context.

The file's byte order mark and line endings are kept: newText is written with the
file's line ending (CRLF if the first line ends with "\\r\\n"). Bytes that are not valid
UTF-8 survive untouched (decoded with surrogateescape, encoded back the same way).
The result's details hold a line-numbered diff (see diff.py; undecodable bytes shown as
U+FFFD there) and the first changed line. A pipe or a device is refused before it is
opened (paths.refuse_special_file): opening a pipe would wait forever. A file over
10 MB is refused before it is loaded (paths.refuse_oversized), with a bash way out.

edit declares the file it reads and writes (`paths`), so two edits of one file in a batch
of parallel calls run one after the other, in the order of the calls (toolcalls.py), and
both land. Reading the file first is not enforced. Two shapes of arguments models send
instead of `edits: [...]` are repaired before validation (edit_args.py).

Left out: creating files (that is write's job), regular expressions, replace-all.
"""

import json
import shlex
import threading
from typing import Dict, List, Optional, Tuple

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .hardening.diff import generate_diff
from .hardening.edit_args import prepare_arguments
from .hardening.fuzzy import NormalisedText, normalise
from .hardening.paths import describe_os_error, refuse_oversized, refuse_special_file, resolve_path
from .hardening.truncate import printable

BOM = b"\xef\xbb\xbf"
MAX_EDIT_BYTES = 10 * 1024 * 1024
"""edit holds a file several times over (bytes, text, its normalised copy, the result:
a 10 MB file peaks near 170 MB), so bigger files are changed with bash instead."""
TOO_BIG_TO_EDIT = ("are not loaded into memory to be edited. Change it with bash instead, "
                   "for example `sed -i 's/OLD/NEW/' {path}` (read shows any part of it).")

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
    return Tool("edit", DESCRIPTION, PARAMETERS, execute, prepare_arguments=prepare_arguments,
                paths=paths)


def paths(args: Dict, cwd: str):
    """edit reads its file and writes it back."""
    path = resolve_path(args["path"], cwd)
    return [path], [path]


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    path = resolve_path(args["path"], ctx.cwd)
    edits = args["edits"]
    if not edits:
        raise ToolError("edits is empty: give at least one {oldText, newText} pair.")
    refuse_special_file(path, "edit")
    try:
        with open(path, "rb") as f:
            refuse_oversized(f, path, MAX_EDIT_BYTES, "file", TOO_BIG_TO_EDIT.format(
                path=shlex.quote(path)))
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


def locate(original: str, normalised: NormalisedText, old_text: str, name: str,
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
