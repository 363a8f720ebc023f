"""Paths: turn what the model wrote into a file on disk, and explain when that fails.

Models write paths the way people do: `~/notes.txt`, `src/app.py` (relative to the
session's working directory, not to the directory Python was started in), `@src/app.py`
(copied from a chat where `@` marks a file), or with a no-break space where a space
belongs. Every tool resolves paths through `resolve_path` so they all agree:

    resolve_path("@src/app.py", cwd="/repo")  -> "/repo/src/app.py"
    resolve_path("~/x.txt", cwd="/repo")      -> "/home/me/x.txt"
    resolve_path("~bob/x.txt", cwd="/repo")   -> "/home/bob/x.txt"  (if user bob exists)
    resolve_path("/etc/hosts", cwd="/repo")   -> "/etc/hosts"
    resolve_path("a\\u00a0b.txt", cwd="/r")     -> "/r/a b.txt"

`resolve_read_path` adds macOS screenshot fallbacks for `read` only: screenshot names
contain a narrow no-break space before AM/PM and a curly apostrophe, and may be stored in
decomposed (NFD) Unicode, none of which a model types. It tries those spellings when the
path as written does not exist.

`describe_os_error` turns an OSError into a sentence for the model (missing file,
directory where a file was expected, permission denied), `check_exists` keeps that
reason where a plain exists() would only say "not found" (a symlink loop), and
`refuse_special_file` stops a tool before it opens a pipe or a device (which could block
it forever), and `refuse_oversized` before it loads a file too big to hold in memory.

What a tool does with the file once it has the path is elsewhere: "is it text?" in
binary.py; the order of parallel calls on one file in toolcalls.py.

Left out: Windows drive letters, and any sandboxing (a path outside the working directory
is allowed, as in pi).
"""

import os
import shlex
import stat
import unicodedata
from typing import BinaryIO

from ...core.tools import ToolError
from .truncate import format_size

# Spaces that look like " " but are not (no-break, en/em/thin spaces, ideographic space).
_SPECIAL_SPACES = {0x00A0: " ", **{c: " " for c in range(0x2000, 0x200B)},
                   0x202F: " ", 0x205F: " ", 0x3000: " "}
_NARROW_NO_BREAK_SPACE = "\u202f"
_RIGHT_SINGLE_QUOTE = "\u2019"


def expand_path(path: str) -> str:
    """Strip one leading `@`, turn special spaces into plain ones, expand `~`, `~/` and
    `~user/` as the shell does (pi expands only the first two).

    Following the shell means read and write find the file that bash's `cat ~bob/x`
    shows; otherwise "~bob/x" would name a directory "~bob" in the working directory,
    which write would create. An unknown user is left as written, as in the shell:
    "~$lock.docx" stays a file name.
    """
    if path.startswith("@"):
        path = path[1:]
    path = path.translate(_SPECIAL_SPACES)
    return os.path.expanduser(path) if path.startswith("~") else path


def resolve_path(path: str, cwd: str) -> str:
    """The absolute, normalised path `path` names when the working directory is `cwd`.

    A NUL byte is refused here, for every tool at once: no file name can hold one, and
    the os functions would raise a bare "ValueError: embedded null byte" that tells the
    model nothing. Example: resolve_path("a\\x00.txt", "/r") -> ToolError "The path ...
    contains a NUL byte ...".
    """
    if "\0" in path:
        raise ToolError(f"The path {path!r} contains a NUL byte (shown as \\x00), which "
                        f"no file name can hold. Send the path again without it.")
    return os.path.normpath(os.path.join(cwd, expand_path(path)))


def resolve_directory(path: str, cwd: str, file_hint: str) -> str:
    """Resolve a directory argument (default: the working directory); a missing path or
    a file raises ToolError, the latter with `file_hint` saying what to do instead."""
    directory = resolve_path(path or ".", cwd)
    check_exists(directory)
    if not os.path.isdir(directory):
        raise ToolError(f"Not a directory: {directory}. {file_hint}")
    return directory


def resolve_read_path(path: str, cwd: str) -> str:
    """`resolve_path`, plus the macOS spellings tried in order when the file is missing.

    Example: "Screenshot 2024-01-01 at 10.00.00 AM.png" is found as "... 10.00.00\\u202fAM.png".
    """
    resolved = resolve_path(path, cwd)
    if os.path.exists(resolved):
        return resolved
    narrow_space = resolved.replace(" AM.", _NARROW_NO_BREAK_SPACE + "AM.").replace(
        " PM.", _NARROW_NO_BREAK_SPACE + "PM.")
    nfd = unicodedata.normalize("NFD", resolved)
    curly = resolved.replace("'", _RIGHT_SINGLE_QUOTE)
    nfd_curly = nfd.replace("'", _RIGHT_SINGLE_QUOTE)
    for candidate in (narrow_space, nfd, curly, nfd_curly):
        if os.path.exists(candidate):
            return candidate
    return resolved


_CHECK_THE_PATH = "Check the path; relative paths start at the working directory."


def path_not_found(path: str) -> ToolError:
    """The error for a directory or search path that does not exist."""
    return ToolError(f"Path not found: {path}. {_CHECK_THE_PATH}")


def check_exists(path: str) -> None:
    """Raise a ToolError that says why `path` cannot be used, if it cannot be.

    `os.path.exists` answers False for every failure alike, so a symlink that points to
    itself would be reported as "Path not found" while read says what is wrong. Asking
    `os.stat` keeps the reason. Examples: a missing path -> "Path not found: ...";
    a symlink loop -> "Cannot access ...: Too many levels of symbolic links".
    """
    try:
        os.stat(path)
    except FileNotFoundError as exc:
        raise path_not_found(path) from exc
    except OSError as exc:
        raise describe_os_error(exc, path) from exc


def describe_os_error(exc: OSError, path: str) -> ToolError:
    """A ToolError whose text says what went wrong with `path` in plain words.

    Example: FileNotFoundError -> "File not found: /repo/x.py. Check the path; relative
    paths start at the working directory."
    """
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"File not found: {path}. {_CHECK_THE_PATH}")
    if isinstance(exc, IsADirectoryError):
        return ToolError(f"{path} is a directory, not a file. List it with ls "
                         f"(or bash `ls`) and pick a file inside it.")
    # Creating the parent directories of "notes.txt/new.txt" fails with "File exists"
    # when notes.txt is a file: the same mistake as reading through a file.
    if isinstance(exc, (NotADirectoryError, FileExistsError)):
        return ToolError(f"Cannot use {path}: a part of the path before the last name "
                         f"is a file, not a directory. Check the path (list the parent "
                         f"directory to see what is there).")
    if isinstance(exc, PermissionError):
        return ToolError(f"Permission denied: {path}. This process may not access it; "
                         f"check its permissions with bash `ls -l`, or work on a copy.")
    return ToolError(f"Cannot access {path}: {exc.strerror or exc}")


_SPECIAL_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


# The next step a refusal offers depends on what the tool was asked to do: a read
# command is no answer to "write this".
_SPECIAL_FILE_HINTS = {
    "read": "Use bash with a time limit instead, for example `timeout 5 head -c 1000 {path}`.",
    "write": ("If you meant a regular file, choose another path. To send it data on "
              "purpose, use bash with a time limit, for example "
              "`echo TEXT | timeout 5 tee {path} > /dev/null`."),
    "edit": ("It holds no stored text to replace: its bytes are made as they are read. "
             "Use bash with a time limit instead: `timeout 5 head -c 1000 {path}` shows "
             "what it gives, `echo TEXT | timeout 5 tee {path} > /dev/null` sends it data."),
}


def refuse_special_file(path: str, operation: str = "read") -> None:
    """Raise ToolError if `path` is a pipe, a device or a socket; anything else passes.

    Opening a named pipe waits until another process opens its other end, and a device
    like /dev/zero never ends: a file tool would hang with no way to abort it. A
    missing path or a directory passes: the open that follows reports it. `operation`
    ("read", "write" or "edit") picks the next step the error suggests. Example:
    refuse_special_file("/dev/zero") -> ToolError "/dev/zero is a character device, ...
    `timeout 5 head -c 1000 /dev/zero`."
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    for is_kind, kind in _SPECIAL_KINDS:
        if is_kind(mode):
            hint = _SPECIAL_FILE_HINTS[operation].format(path=shlex.quote(path))
            raise ToolError(f"{path} is {kind}, not a regular file. Opening it could wait "
                            f"forever or never end, so this tool does not. {hint}")


def refuse_oversized(f: BinaryIO, path: str, limit: int, kind: str, way_out: str) -> None:
    """Raise ToolError if the open file `f` is over `limit` bytes, before it is loaded.

    The size comes from the open file (fstat), so it is the file about to be read, even
    if the path was replaced meanwhile. Example: a 5 MB image for read ->
    "/r/huge.png is a 5.0MB image; images over 4.5MB cannot be sent to the model. Make
    a smaller copy ...". `way_out` is the sentence that follows: what to do instead.
    """
    size = os.fstat(f.fileno()).st_size
    if size > limit:
        raise ToolError(f"{path} is a {format_size(size)} {kind}; {kind}s over "
                        f"{format_size(limit)} {way_out}")
