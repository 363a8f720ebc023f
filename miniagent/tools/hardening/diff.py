"""diff: the line-numbered diff that `edit` puts in its result details.

Front ends show it so a person can see what the model changed; the model does not get
it (it is in `details`, not in the content). The format is pi's: one line per diff line,
a sign, the line number padded to a common width, a space, the text.

    -7 old line          removed (number in the old file)
    +7 new line          added (number in the new file)
     8 unchanged         context (number in the old file)
       ...               unchanged lines left out

At most 4 unchanged lines are shown on each side of a change; a longer unchanged run is
shortened with `...`. Example, lines l1..l12 with line 7 replaced by X:

        ...
      3 l3
      4 l4
      5 l5
      6 l6
    - 7 l7
    + 7 X
      8 l8
      9 l9
     10 l10
     11 l11
        ...

How lines are matched: the common first and last lines are skipped in linear time, and
difflib's SequenceMatcher pairs up what is left (the region the edits touched). A line
is compared with its line break, so "b" at the end of a file and "b\\n" differ, as in the
`diff` package pi uses.

One deliberate change from pi: pi shows every unchanged line between two changes; we
shorten a run longer than 8 lines between two changes to 4 + `...` + 4 as well.

Left out: character-level (intra-line) highlighting, and unified diff headers.
"""

from difflib import SequenceMatcher
from typing import List, Optional, Tuple

CONTEXT_LINES = 4


def generate_diff(old: str, new: str, context: int = CONTEXT_LINES) -> Tuple[str, Optional[int]]:
    """Return (diff text, first changed line in the new file, or None if nothing changed).

    Example: generate_diff("Hello, world!", "Hello, testing!")
             -> ("-1 Hello, world!\\n+1 Hello, testing!", 1)
    """
    old_lines, new_lines = split_lines(old), split_lines(new)
    # One width for every number (that of the last line), so the texts line up.
    width = len(str(max(old.count("\n"), new.count("\n")) + 1))
    opcodes = line_opcodes(old_lines, new_lines)
    out: List[str] = []
    first_changed = None
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            # Two equal runs are never neighbours in `opcodes`, so an equal run that is
            # not the first follows a change, and one that is not the last leads to one.
            after_change = index > 0
            before_change = index < len(opcodes) - 1
            out += context_lines(old_lines[i1:i2], i1 + 1, width, after_change,
                                 before_change, context)
            continue
        if first_changed is None:
            first_changed = j1 + 1
        out += [f"-{i1 + k + 1:>{width}} {show(line)}" for k, line in enumerate(old_lines[i1:i2])]
        out += [f"+{j1 + k + 1:>{width}} {show(line)}" for k, line in enumerate(new_lines[j1:j2])]
    return "\n".join(out), first_changed


def split_lines(text: str) -> List[str]:
    """Lines with their "\\n" kept. Example: "a\\nb" -> ["a\\n", "b"]; "a\\n" -> ["a\\n"]."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def show(line: str) -> str:
    return line.rstrip("\r\n")


def line_opcodes(a: List[str], b: List[str]) -> List[Tuple[str, int, int, int, int]]:
    """difflib-style opcodes ("equal", "replace", "delete", "insert") for two line lists.

    Example: ["x\\n", "y\\n", "z"] vs ["x\\n", "Y\\n", "z"] ->
             [("equal", 0, 1, 0, 1), ("replace", 1, 2, 1, 2), ("equal", 2, 3, 2, 3)]
    """
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while (suffix < min(len(a), len(b)) - prefix
           and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]):
        suffix += 1
    opcodes = [("equal", 0, prefix, 0, prefix)] if prefix else []
    middle = SequenceMatcher(None, a[prefix:len(a) - suffix], b[prefix:len(b) - suffix],
                             autojunk=False)
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        opcodes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        opcodes.append(("equal", len(a) - suffix, len(a), len(b) - suffix, len(b)))
    return opcodes


def context_lines(lines: List[str], first_number: int, width: int, after_change: bool,
                  before_change: bool, context: int) -> List[str]:
    """An unchanged run: the `context` lines next to each neighbouring change, and one
    `...` marker for every stretch left out. A run next to no change shows nothing."""
    out: List[str] = []
    skipping = False  # inside a stretch that already has its "..."
    for k, line in enumerate(lines):
        # The run's first lines show where the change above ends, its last lines where
        # the change below starts; between two changes, a run of at most 2 * context
        # lines is therefore shown whole.
        near_change = ((after_change and k < context)
                       or (before_change and k >= len(lines) - context))
        if near_change:
            out.append(f" {first_number + k:>{width}} {show(line)}")
            skipping = False
        elif not skipping and (after_change or before_change):
            # One marker per stretch, not per line: it says "lines left out here"; the
            # line numbers around it say how many.
            out.append(f" {'':>{width}} ...")
            skipping = True
    return out
