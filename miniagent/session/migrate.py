"""Reading pi's older session formats (version 1 and 2) as version 3, in memory only.

pi's session format grew in two steps, and a reader of real files meets all three:

    version 1   entries are a plain list: no "id", no "parentId"; a compaction names
                the first entry it kept by its index in the file (firstKeptEntryIndex)
    version 2   every entry has an 8-character "id" and a "parentId": the list became
                a tree
    version 3   a message role was renamed: "hookMessage" is now "custom"

The header's "version" says which (missing means 1). Migration turns the entries into
version 3 **without touching the file**: pi rewrites the file, we never do (spec
D12 in docs/decisions.md). Resuming a migrated session therefore continues in a new version-3 file
(tree.py decides that; this module only converts).

Version-1 entries get ids derived from their line number, so the same file always gets
the same ids and an entry can be named from the outside (`--fork FILE:00000042`, a search
result) and found again next time. The id is the line number in 8 digits (digits are hex
characters, so it is a valid 8-hex id, and a reader can find the line):

    line 2  {"type":"message",...}       -> id "00000002", parentId None
    line 3  {"type":"message",...}       -> id "00000003", parentId "00000002"
    line 9  {"type":"compaction","firstKeptEntryIndex":2,...}
                                          -> firstKeptEntryId "00000003"

As in pi, firstKeptEntryIndex counts the file's parsed lines with the header as 0.

Entries are migrated one at a time, as the store reads them (`Migration.apply`, in file
order), so a big old file is never held whole to be converted.

Left out: writing anything, and versions newer than 3 (read as they are).
"""

from typing import Any, Dict, List

CURRENT_VERSION = 3


def version_of(header: Dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) else 1


def line_id(line_number: int) -> str:
    """Example: 42 -> "00000042"."""
    return f"{line_number:08d}"


class Migration:
    """Migrating a file's entries one at a time, in file order, as they are read (a big
    file is never held whole). What it remembers between entries: the previous id (the
    next entry's parent) and, for version 1, the line number of each entry so far (what
    a compaction's firstKeptEntryIndex counts)."""

    def __init__(self, header: Dict[str, Any]):
        self.version = version_of(header)
        self.previous = None
        self.numbers: List[int] = []

    def apply(self, entry: Dict[str, Any], line_number: int) -> None:
        if self.version < 2:
            self.add_tree_link(entry, line_number)
        if self.version < 3:
            rename_hook_message(entry)

    def add_tree_link(self, entry: Dict[str, Any], line_number: int) -> None:
        """Version 1 -> 2: a linear chain of ids derived from line numbers."""
        entry["id"] = line_id(line_number)
        entry["parentId"] = self.previous
        self.previous = entry["id"]
        self.numbers.append(line_number)
        if entry["type"] == "compaction" and "firstKeptEntryIndex" in entry:
            index = entry.pop("firstKeptEntryIndex")
            # Index 0 is the header, so entry i of the file is the i-th entry read; it
            # was kept, so it came before this compaction.
            if isinstance(index, int) and 1 <= index <= len(self.numbers):
                entry["firstKeptEntryId"] = line_id(self.numbers[index - 1])


def rename_hook_message(entry: Dict[str, Any]) -> None:
    """Version 2 -> 3: the "hookMessage" role became "custom"."""
    message = entry.get("message")
    if entry["type"] == "message" and isinstance(message, dict) \
            and message.get("role") == "hookMessage":
        message["role"] = "custom"
