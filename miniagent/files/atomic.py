"""Writing a file in place without ever showing half of it: write beside, then rename.

Opening a file for writing empties it at once; the new text arrives later. A reader that
opens it in between (another miniagent starting, an editor) sees an empty or half-written
file, and a crash or a full disk in between leaves it that way for good. So every file
miniagent rewrites (trust.json, mcp.json, windows.json, an export) is written in three
steps:

    1. write the whole text to a new temporary file in the same folder
    2. fsync it: the bytes are on disk before any name points at them
    3. os.replace it over the old name: one step, so a reader opens the old file or
       the new one, never a mix (a rename within one file system is atomic on POSIX)

The temporary file must sit in the same folder: a rename across file systems is a copy,
and a copy can be seen half done. A failure on the way removes the temporary file and
leaves the old one as it was.

The rename also replaces a name, not what it points to: a symbolic link or a FIFO at
`path` is replaced by our regular file, its target left alone.

Left out: two writers at once (the last rename wins; trust.py takes a lock around its
read-change-write), and fsyncing the folder itself (a power cut right after the rename
may still bring back the old file, which is whole, just older).
"""

import os
import tempfile
from pathlib import Path


def replace_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, then rename it over `path` in one step."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())  # the bytes are on disk before the name points at them
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
