"""edit: change a file by replacing exact pieces of text, several at once.

The model sends a path and `edits`, {oldText, newText} pairs: each oldText must occur
exactly once in the file as it was before the call, none may overlap; all land at once.

    file:  "a = 1\\nb = 2\\nc = 3\\n"
    edits: [{"oldText": "a = 1", "newText": "a = 10"},
            {"oldText": "c = 3", "newText": "c = 30"}]
    file:  "a = 10\\nb = 2\\nc = 30\\n"       result: "Edited ...: replaced 2 blocks ..."

Why quote text, not line numbers: a stale line number changes the wrong line, while a
quote that is not in the file fails loudly and the model reads the file again. A byte
order mark, CRLF line ends (newText takes them) and bytes that are not UTF-8 stay.

The seams, plain here and hardened in the product's tools/edit.py: `files` (write's, plus
`load`), `match` (where each oldText is; the product also looks with smart quotes, dashes
and trailing spaces ironed out) and `diff` (the change as the result's details show it).
Left out: creating files (write's job), regular expressions, replace-all.
"""

import difflib
import json
from typing import Callable, Dict, List, Optional, Tuple

from .tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .write import WriteFiles

BOM = b"\xef\xbb\xbf"

DESCRIPTION = (
    "Edit a file by replacing exact text. Give one or more edits, each an oldText to find "
    "and the newText to put in its place. Every oldText must match exactly one place in "
    "the file as it is before this call (copy it from the file, with its whitespace and "
    "line breaks) and must not overlap another edit's oldText; all edits are applied "
    "together. Include just enough surrounding lines to make each oldText unique. To "
    "change two nearby places, use one edit that covers both.")

ONE_EDIT = {"type": "object", "required": ["oldText", "newText"], "properties": {
    "oldText": {"type": "string", "description": "Text to replace; must occur exactly once"},
    "newText": {"type": "string", "description": "Text to put in its place"},
}}

PARAMETERS = {"type": "object", "required": ["path", "edits"], "properties": {
    "path": {"type": "string",
             "description": "File to edit, absolute or relative to the working directory"},
    "edits": {"type": "array",
              "description": "Replacements, each matched against the original file",
              "items": ONE_EDIT},
}}


class EditFiles(WriteFiles):
    """edit's `files` seam: write's, and the bytes of the file as they are."""

    def load(self, path: str) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as exc:
            raise self.describe_error(exc, path) from exc


def match_exact(text: str, old_texts: List[str], abort=None) -> List[Tuple[int, int, int]]:
    """edit's `match` seam, plain: (places found, start, end of the first) per oldText."""
    found = []
    for old in old_texts:
        start = text.find(old)
        found.append((text.count(old), start, start + len(old)))
    return found


def unified_diff(old: str, new: str) -> Optional[Dict]:
    """edit's `diff` seam, plain: the details a front end shows of the change."""
    lines = difflib.unified_diff(old.split("\n"), new.split("\n"), lineterm="", n=2)
    return {"diff": "\n".join(list(lines)[2:])}  # without the ---/+++ header


def create_edit_tool(files: EditFiles = EditFiles(), match: Callable = match_exact,
                     diff: Callable = unified_diff) -> Tool:
    """The edit tool; `files`, `match` and `diff` are the seams (see the module docstring)."""
    def paths(args: Dict, cwd: str):
        path = files.resolve(args["path"], cwd)
        return [path], [path]  # reads its file and writes it back

    def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
        path, edits = files.resolve(args["path"], ctx.cwd), args["edits"]
        if not edits:
            raise ToolError("edits is empty: give at least one {oldText, newText} pair.")
        raw = files.load(path)
        bom = BOM if raw.startswith(BOM) else b""
        original = raw[len(bom):].decode("utf-8", errors="surrogateescape")
        updated = apply_edits(original, edits, path, match(original, [
            edit["oldText"] for edit in edits], ctx.abort))
        files.save(path, bom + updated.encode("utf-8", errors="surrogateescape"))
        blocks = "1 block" if len(edits) == 1 else f"{len(edits)} blocks"
        return text_result(f"Edited {path}: replaced {blocks} of text.",
                           diff(original, updated))

    return Tool("edit", DESCRIPTION, PARAMETERS, execute, paths=paths)


def apply_edits(original: str, edits: List[Dict[str, str]], path: str,
                found: List[Tuple[int, int, int]]) -> str:
    """The new text, or a ToolError naming the edit that cannot be applied; `found` is
    what `match` said of each oldText."""
    regions = []  # (start, end, edit number) in the original text
    for number, (edit, (count, start, end)) in enumerate(zip(edits, found)):
        name = "oldText" if len(edits) == 1 else f"edits[{number}].oldText"
        check_found(edit["oldText"], count, name, path)
        regions.append((start, end, number))
    regions.sort()  # in file order, only neighbours can overlap
    for (_, end, first), (start, _, second) in zip(regions, regions[1:]):
        if start < end:
            raise ToolError(
                f"edits[{first}] ({quote(edits[first]['oldText'])}) and edits[{second}] "
                f"({quote(edits[second]['oldText'])}) overlap in {path}. Every edit is "
                f"matched against the original file, so edits must not overlap: merge "
                f"them into one edit.")
    first_line = original.split("\n", 1)[0]
    line_ending = "\r\n" if first_line.endswith("\r") and "\n" in original else "\n"
    updated = original
    for start, end, number in reversed(regions):  # from the end, so offsets stay valid
        new_text = edits[number]["newText"].replace("\r\n", "\n").replace("\n", line_ending)
        updated = updated[:start] + new_text + updated[end:]
    if updated == original:
        raise ToolError(f"No changes made to {path}: the new text is identical to the text "
                        f"it replaces. Check that newText holds the change you intended.")
    return updated


def check_found(old_text: str, count: int, name: str, path: str) -> None:
    if not old_text:
        raise ToolError(f"{name} is empty. To insert text, put a neighbouring line in "
                        f"oldText and repeat it in newText next to the new lines.")
    if count == 0:
        raise ToolError(
            f"Could not find {name} ({quote(old_text)}) in {path}. It must match the file "
            f"exactly, including indentation and line breaks. Read the file again and "
            f"copy the text from it.")
    if count > 1:
        raise ToolError(
            f"{name} ({quote(old_text)}) matches {count} places in {path}, but must "
            f"match exactly one. Include more of the surrounding lines to make it unique.")


def quote(text: str, limit: int = 80) -> str:
    """Show the model which text we mean, shortened: 'def f():\\n    ret…'."""
    short = text if len(text) <= limit else text[:limit] + "…"
    return json.dumps(short, ensure_ascii=False)
