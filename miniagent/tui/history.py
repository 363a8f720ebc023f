"""history: the inputs typed before, kept whole, on disk between runs.

A shell keeps one line per entry, so a prompt of three lines comes back as three
entries, the last one first. Here an entry is a whole input, newlines and all, and the
file says so: JSON Lines, one JSON string per line, so a newline inside an entry is
written as "\\n" and can never split it:

    "explain walk.py"
    "fix this:\\n  File \\"a.py\\", line 3"

Today's history (readline's file, one entry per line) is read once, when the new file
does not exist yet, so nobody loses what they typed before. macOS's libedit writes
that file differently: a first line `_HiStOrY_V2_`, and spaces as `\\040` (octal
escapes, as vis(3) makes them); `read_legacy` undoes both.

Navigation is a position in the list: `previous()` walks back from the newest entry,
`next()` walks forward and, past the newest, gives back the draft the user was
typing before they pressed Up.

`save()` writes a temporary file and renames it over the old one, so a crash mid-write
leaves the old history whole; it keeps the last `limit` entries, and it fails in
silence (a read-only home must not stop the REPL).

Left out: searching the history (Ctrl-R), merging the entries of two REPLs that run
at the same time (the last to save wins), and keeping the changes made to an entry
while browsing (readline keeps them until Enter; here moving on forgets them).
"""

import json
import os
import re
import tempfile
from typing import List, Optional

LIBEDIT_HEADER = "_HiStOrY_V2_"
OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})|\\\\")


class History:
    def __init__(self, path: Optional[str], limit: int = 1000):
        self.path = path  # None: kept in memory only
        self.limit = limit
        self.entries: List[str] = []
        self.position = 0  # len(entries) when not navigating (the draft)
        self.draft = ""

    def load(self, legacy_path: Optional[str] = None) -> None:
        """Read the entries from `path`, or from the legacy readline file when `path`
        does not exist yet. A file that cannot be read gives an empty history."""
        if self.path and os.path.exists(self.path):
            self.entries = read_json_lines(self.path)
        elif legacy_path:
            self.entries = read_legacy(legacy_path)
        self.entries = self.entries[-self.limit:]
        self.reset_navigation()

    def add(self, text: str) -> None:
        """Remember an input and save the file, so a crash later loses nothing. Blank
        inputs and a repeat of the newest entry are not kept."""
        if text.strip() and not (self.entries and self.entries[-1] == text):
            self.entries = (self.entries + [text])[-self.limit:]
            self.save()
        self.reset_navigation()

    def save(self) -> None:
        if not self.path:
            return
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(directory, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=directory, prefix=".history-")
            with os.fdopen(handle, "w", encoding="utf-8") as f:
                for entry in self.entries[-self.limit:]:
                    f.write(json.dumps(entry) + "\n")
            os.replace(temporary, self.path)  # atomic: readers see the old or the new file
        except OSError:
            pass  # a read-only home: the REPL goes on, only this history is lost

    def previous(self, draft: str) -> Optional[str]:
        """The entry before the current one, or None at the oldest. `draft` is what the
        editor holds now; it is kept when navigation starts, for `next()` to give back.

        Example: entries ["a", "b"]: previous("typing") -> "b", previous("b") -> "a",
        previous("a") -> None.
        """
        if self.position == 0:
            return None
        if self.position == len(self.entries):
            self.draft = draft
        self.position -= 1
        return self.entries[self.position]

    def next(self) -> Optional[str]:
        """The entry after the current one, the draft after the newest, or None when
        not navigating."""
        if self.position >= len(self.entries):
            return None
        self.position += 1
        if self.position == len(self.entries):
            return self.draft
        return self.entries[self.position]

    def reset_navigation(self) -> None:
        self.position = len(self.entries)
        self.draft = ""


def read_json_lines(path: str) -> List[str]:
    """The entries of a history.jsonl; a line that is not a JSON string is skipped (a
    file cut short by a full disk still gives its other entries)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, str):
            entries.append(entry)
    return entries


def read_legacy(path: str) -> List[str]:
    """The entries of readline's history file, one per line.

    Example: "_HiStOrY_V2_\\nls\\\\040-la\\n" (libedit) -> ["ls -la"]
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    if lines and lines[0] == LIBEDIT_HEADER:
        lines = [decode_libedit(line) for line in lines[1:]]
    # GNU readline escapes nothing: a "\\040" typed there is kept as typed.
    return [line for line in lines if line.strip()]


def decode_libedit(line: str) -> str:
    """Example: decode_libedit("say\\\\040hi") -> "say hi"; "\\\\\\\\" stands for one backslash."""
    return OCTAL_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)) if m.group(1) else "\\", line)
