"""Where `export` and `script` write their file, and how: safely at a default path.

`miniagent export FILE` and `miniagent script FILE` write, unless told otherwise, beside
the session (FILE.html, FILE.script.json), or in the current folder when that folder
cannot be written. A session may be someone else's (the README encourages sharing
them), and so may its folder: whoever made it could plant `session.html -> ~/.bashrc`
there, and opening that path for writing would overwrite the user's file with ours.

    default path, a plain file or nothing there   written to a new file, renamed into place
    default path, a link, a FIFO, a device        refused, one line naming it
    default path, a folder                        written in the current folder instead
    -o PATH                                       written as the user gave it

The path given with -o is the user's own choice and is written as given, a symbolic
link they made included (as a shell's `>` would). At the default path, a rename
replaces a link planted between our look and our write, never the file it points to.

Left out: what is written (export.py, script.py).
"""

import os
import stat
from pathlib import Path
from typing import Optional

from ..errors import ExportError
from ..files.atomic import replace_atomically


def write_output(text: str, out_path: Optional[str], session_path: str, suffix: str) -> str:
    """Write `text` to out_path; without one, beside the session with `suffix` instead of
    .jsonl, or in the current folder when that one cannot be written (see the module's
    docstring for why the two are written differently). Returns the path."""
    if out_path:
        return write_text(out_path, text)
    path = os.path.splitext(os.path.abspath(session_path))[0] + suffix
    try:
        return write_new_file(path, text)
    except OSError:
        # A folder we may not write (someone else's sessions, a read-only fixture).
        path = os.path.join(os.getcwd(), os.path.basename(path))
    try:
        return write_new_file(path, text)
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None


def write_new_file(path: str, text: str) -> str:
    """Write a default output path: ExportError when a link or a special file is there,
    OSError when it cannot be written (a folder in its place, a folder we may not write)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG  # nothing there yet: a new plain file
    # A folder there cannot be written through: the rename fails and we write elsewhere.
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise ExportError(f"not writing {path}: it is {what} (remove it, or name the "
                          f"output file with -o)")
    replace_atomically(Path(path), text)
    return path


def write_text(path: str, text: str) -> str:
    try:
        # errors="replace": a lone surrogate in a transcript (half an emoji in a file pi
        # wrote) has no UTF-8 form.
        with open(path, "w", encoding="utf-8", errors="replace") as file:
            file.write(text)
    except OSError as error:
        raise ExportError(f"cannot write {path}: {error.strerror or error}") from None
    return os.path.abspath(path)
