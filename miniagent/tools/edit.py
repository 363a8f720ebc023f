"""edit, hardened: the core's edit tool given the matching models need, and safe files.

What the model sends and sees is the core's (core/edit.py: {oldText, newText} pairs, each
found exactly once in the original file, all applied in one write, the error texts):

    file:  "a = 1\\nb = 2\\n"   edits: [{"oldText": "a = 1", "newText": "a = 10"}]
    file:  "a = 10\\nb = 2\\n"  result: "Edited ...: replaced 1 block of text."

This module gives its three seams their hardened forms:

  * `match`: exact first; when the exact text is not there, normalised. Models often get
    invisible details wrong (smart quotes, dashes, trailing spaces, "\\r\\n"), so both
    sides are compared with those ironed out, and the match is mapped back to the
    original so that only the matched region changes (fuzzy.py). Uniqueness is judged
    in the normalised text too ("x  \\nx\\n" holds "x\\n" twice once the trailing spaces
    are ignored), as in pi: when in doubt, ask the model for more context.
  * `files`: a pipe or a device is refused before it is opened (paths.refuse_special_file:
    opening a pipe would wait forever); a file over 10 MB is refused before it is loaded
    (paths.refuse_oversized), with a bash way out; a file outside the sandbox's roots is
    not written (write.py); failures are worded for the model.
  * `diff`: the result's details hold a line-numbered diff (diff.py; undecodable bytes
    shown as U+FFFD there) and the first changed line.

Two shapes of arguments models send instead of `edits: [...]` are repaired before
validation (edit_args.py). Reading the file first is not enforced.
"""

import shlex
from dataclasses import replace
from typing import Dict, List, Tuple

from ..core.edit import EditFiles, create_edit_tool
from ..core.tools import Tool
from .hardening.diff import generate_diff
from .hardening.edit_args import prepare_arguments
from .hardening.fuzzy import NormalisedText, normalise
from .hardening.paths import refuse_oversized, refuse_special_file
from .hardening.truncate import printable
from . import Unconfined
from .write import SafeWriteFiles

MAX_EDIT_BYTES = 10 * 1024 * 1024
"""edit holds a file several times over (bytes, text, its normalised copy, the result:
a 10 MB file peaks near 170 MB), so bigger files are changed with bash instead."""
TOO_BIG_TO_EDIT = ("are not loaded into memory to be edited. Change it with bash instead, "
                   "for example `sed -i 's/OLD/NEW/' {path}` (read shows any part of it).")


class SafeEditFiles(SafeWriteFiles, EditFiles):
    """The core edit's `files` seam, hardened: write's safe files, and huge files refused
    before they are loaded."""

    def load(self, path: str) -> bytes:
        refuse_special_file(path, "edit")
        try:
            with open(path, "rb") as f:
                refuse_oversized(f, path, MAX_EDIT_BYTES, "file", TOO_BIG_TO_EDIT.format(
                    path=shlex.quote(path)))
                return f.read()
        except OSError as exc:
            raise self.describe_error(exc, path) from exc


def match_normalised(text: str, old_texts: List[str], abort=None) -> List[Tuple[int, int, int]]:
    """The core edit's `match` seam, hardened: (places found, start, end) per oldText,
    exact first, else in the normalised text mapped back to the original (fuzzy.py).

    `abort` is checked while the file is normalised, the one step whose time grows with
    the number of lines: nothing has been written yet, so stopping leaves the file alone.
    """
    normalised = NormalisedText(text, abort)
    found = []
    for old_text in old_texts:
        exact = text.count(old_text)
        target = normalise(old_text)
        # Unique as typed but not once whitespace and quotes are ignored still counts
        # as ambiguous (as in pi): the model may have meant the other place.
        count = max(exact, normalised.text.count(target) if target else 0)
        if exact == 1:
            start = text.find(old_text)
            found.append((count, start, start + len(old_text)))
        elif count == 1:
            start = normalised.text.find(target)
            found.append((count, *normalised.to_original(start, start + len(target))))
        else:
            found.append((count, -1, -1))
    return found


def line_numbered_diff(original: str, updated: str) -> Dict:
    """The core edit's `diff` seam, hardened: diff.py's line-numbered diff."""
    diff, first_changed = generate_diff(printable(original), printable(updated))
    return {"diff": diff, "firstChangedLine": first_changed}


def create_tool(sandbox: Unconfined = Unconfined()) -> Tool:
    """The core's edit tool with the three hardened seams, and edit_args.py's repairs;
    nothing is written outside `sandbox`'s roots."""
    tool = create_edit_tool(SafeEditFiles(sandbox), match_normalised, line_numbered_diff)
    return replace(tool, prepare_arguments=prepare_arguments)
