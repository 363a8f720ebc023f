"""One session file on disk: JSON lines that survive crashes and a second writer.

A session file is append-only JSONL: a header line, then one entry per line, never
rewritten. This module is the only code that touches those bytes. It teaches three
habits that make an append-only log trustworthy:

1. **One write per record.** A line (or, when a file is created, the header and every
   entry so far) goes to the kernel in a single `os.write` on a descriptor opened with
   `O_APPEND`. The kernel moves to the end of the file and writes in one step, so two
   processes appending to the same file never interleave inside a line (pi's writer
   included), and a crash loses at most the line being written. Nothing is buffered in
   Python: when `append_lines` returns, the entry is in the file.

2. **A torn line is skipped, not fatal.** A crash or a full disk can leave half a line
   at the end (`{"type":"mess`). Loading skips every line that is not a JSON object and
   says so in one warning per line, `FILE:LINE: skipped a malformed line`. The next
   append first writes the missing "\\n", so the torn text stays alone on its line and
   the new entry starts clean:

       {"type":"session",...}\\n          {"type":"session",...}\\n
       {"type":"message",...}\\n   -->    {"type":"message",...}\\n
       {"type":"mess                      {"type":"mess\\n
                                          {"type":"message",...}\\n

3. **A failed write leaves the file whole.** When the disk is full halfway through a
   line, the file is cut back to its size before that append, and the caller gets a
   one-line `SessionError` ("cannot write session FILE: No space left on device").

Reading goes the other way, **one line at a time** (`read_lines`, then `parse_entries`):
a session of 100 MB is never in memory whole, only its longest line is, so `stats` or
the search index can read any file. Whoever keeps the entries (resuming a session)
builds its own list.

The header must be the first line: `{"type":"session","id":...}`. A file that is not
empty and does not start with one is refused with an error naming it (docs/decisions.md D12):
it is somebody else's file, or a damaged one, and must never be overwritten. A header
is small, so only the first HEADER_LIMIT bytes are read for it: a longer first line is
not a header, and is never read whole (a 512 MB line took twice that in memory).

Left out: the meaning of entries (tree.py), older formats (migrate.py), and
fsync: an entry handed to the kernel survives a crash of this process; surviving a
power cut would need fsync per line, which pi does not pay for either.
"""

import contextlib
import fcntl
import gc
import hashlib
import json
import os
import tempfile
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from ..errors import SessionError
from ..files.safeopen import open_regular

from ..files.text import to_json
from ..files.redaction import redact_json

MALFORMED = "skipped a malformed line"
# The most a header line may take. pi reads 512 bytes; a header naming a long
# parentSession path can be longer than that, but nowhere near this.
HEADER_LIMIT = 65536


def to_line(entry: Dict[str, Any]) -> str:
    """One entry as one compact JSON line, as pi writes them.

    Example: {"type": "label", "label": "é"} -> '{"type":"label","label":"é"}\\n'
    """
    entry = redact_json(entry)  # no API key in a file that may be shared (files/redaction.py)
    # A lone surrogate (half an emoji from a pi file) has no UTF-8 form: to_json writes
    # its \\u escape, byte for byte what pi writes.
    return to_json(entry) + "\n"


def is_header(value: Any) -> bool:
    """The first line of every session file: {"type": "session", "id": "<string>"}."""
    return isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str)


def read_session(path: str) -> Tuple[Dict[str, Any], Iterator[Tuple[int, bytes]]]:
    """A session file's header, then its other lines, numbered from 2, read as they are
    iterated (read_lines). Raises SessionError when the file cannot be read or does not
    start with a header."""
    lines = read_lines(path)
    return first_line_header(path, next(lines, b"")), enumerate(lines, 2)


def read_lines(path: str) -> Iterator[bytes]:
    """The file's lines as bytes, one at a time, each with its "\\n" (the last may lack
    it): memory holds one line, however big the file. The first, which must be a header,
    is read only as far as a header can reach (HEADER_LIMIT bytes). Raises SessionError
    when the file cannot be opened or read."""
    try:
        with open_regular(path) as file:  # a FIFO or /dev/zero here is refused, not read
            yield file.readline(HEADER_LIMIT)
            yield from file
    except OSError as error:
        raise SessionError(f"cannot read session {path}: {error.strerror or error}") from None


def parse_entries(path: str, lines: Iterable[Tuple[int, bytes]],
                  warnings: List[str]) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """(line number, entry) for each numbered line that holds one, as they are read.

    Blank lines are ignored; a line that is not a JSON object with a "type" is skipped
    with a warning added to `warnings`. The fields of each entry are checked later, by
    the store (check.py), after an older file's entries have been migrated.

    Example: lines 2-3 of 'HEADER\\n{"type":"message",...}\\n{"ty' -> (2, entry), and
    the warning "FILE:3: skipped a malformed line"
    """
    for number, line in lines:
        entry = parse_line(line)
        if entry is not None:
            yield number, entry
        elif line.strip():  # a blank line is not damage
            warnings.append(f"{path}:{number}: {MALFORMED}")


def parse_line(line: bytes) -> Optional[Dict[str, Any]]:
    """The entry on one line, or None. Bytes that are not UTF-8 (a line cut inside a
    character) become U+FFFD, so they spoil only their own line."""
    try:
        entry = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        return None
    return entry if is_entry(entry) else None


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """While a caller keeps every parsed entry alive (loading a session), Python's cycle
    collector would walk the growing pile again and again (loading 100,000 entries took
    about twice as long). JSON cannot make reference cycles, so there is nothing to find."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


# --- Reading on from where a reader stopped (store.py's read_since) -----------------------
# The cursor is kept by the reader as an opaque string. It says where the last reading
# stopped and what the file looked like then:
#
#     {"stamp": [5120, 1767225600000000000, 1234567, 1767225600000000000],
#      "offset": 5120, "lines": 12, "check": "9f.."}
#
# The same stamp (size, mtime, inode and ctime, in nanoseconds): nothing to read (not
# even the file is opened). The ctime is there because nobody can set it: an edit in
# place that keeps the size and puts the mtime back (`os.utime`) still changes it.
# Otherwise the reading goes on at `offset`, unless the file shrank or a byte before
# `offset` changed (`check` hashes them all): then it starts again from the top, and
# says so, so the reader drops what it kept of that file (a password redacted by hand
# must not stay findable).


def lines_after(path: str, file: Any, status: os.stat_result, mark: Optional[dict]) -> \
        Tuple[Dict[str, Any], Iterator[Tuple[int, bytes]], bool, Callable[[], str]]:
    """The header of the open session `file` (as `status` saw it), then its complete
    numbered lines after `mark` (None, or the file shrank or changed before it: all of
    them, and restarted is True), read as they are iterated, and a function giving the
    cursor as far as they have been read: (header, lines, restarted, cursor)."""
    header = first_line_header(path, file.readline(HEADER_LIMIT))
    check = hashlib.blake2b(digest_size=16)
    if not (mark and mark["offset"] <= status.st_size
            and hash_prefix(file, mark["offset"], check) == mark.get("check")):
        mark = {"offset": 0, "lines": 0}  # new, shrunk or rewritten: from the top
        check = hashlib.blake2b(digest_size=16)
    file.seek(mark["offset"])
    reached = {"stamp": stamp_of(status), "offset": mark["offset"], "lines": mark["lines"]}
    # Line mark["lines"] + 1 of the file comes first (version-1 ids are line numbers).
    lines = enumerate(complete_lines(file, check, reached), mark["lines"] + 1)
    if not mark["offset"]:
        next(lines, None)  # the header, read above
    return (header, lines, not mark["offset"],
            lambda: json.dumps({**reached, "check": check.hexdigest()}))


def complete_lines(file: Any, check: Any, reached: Dict[str, Any]) -> Iterator[bytes]:
    """The file's lines from where it stands, each fed to the hash and counted in
    `reached` as it is read. A last line without its "\\n" is still being written: it
    waits for next time. Closes the file at the end."""
    with file:
        for line in file:
            if not line.endswith(b"\n"):
                return
            check.update(line)
            reached["offset"] += len(line)
            reached["lines"] += 1
            yield line


def stamp_of(status: os.stat_result) -> List[int]:
    """What a file looked like (a list: the cursor is JSON)."""
    return [status.st_size, status.st_mtime_ns, status.st_ino, status.st_ctime_ns]


def hash_prefix(file: Any, offset: int, check: Any) -> str:
    """Feed the file's first `offset` bytes to the hash `check`, a block at a time;
    returns its hex digest. Reading them all costs one pass over the file on each
    change, far less than parsing it again, and no edit before `offset` goes unseen."""
    file.seek(0)
    left = offset
    while left:
        block = file.read(min(left, 1 << 20))
        if not block:
            break
        check.update(block)
        left -= len(block)
    return check.hexdigest()


def is_entry(value: Any) -> bool:
    """An object with a type (its fields are check.py's business)."""
    return type(value) is dict and "type" in value


def first_line_header(path: str, start: bytes) -> Dict[str, Any]:
    """The header on the first line of a file that begins with `start` (at most its
    first HEADER_LIMIT bytes), or a SessionError saying the file is not a session.
    A first line that runs past HEADER_LIMIT is no header, even when its start would
    parse (a header followed by a mile of spaces is valid JSON).

    Example: b'{"type":"session","id":"x"}\\n{"type":...' -> {"type": "session", "id": "x"}
    """
    line, newline, _ = start.partition(b"\n")
    try:
        whole = bool(newline) or len(start) < HEADER_LIMIT  # else it goes on past the limit
        header = json.loads(line.decode("utf-8", errors="replace")) if whole else None
    except (ValueError, RecursionError):
        header = None
    if not is_header(header):
        raise SessionError(f"{path} is not a session file (its first line is not a session "
                           f"header); it was left unchanged")
    return header


def read_header(path: str) -> Dict[str, Any]:
    """Only the header line (for `--session ID` and `-c`), without reading the whole
    file. Raises SessionError when the file has none."""
    try:
        with open_regular(path) as file:
            start = file.readline(HEADER_LIMIT)
    except OSError as error:
        raise SessionError(f"cannot read session {path}: {error.strerror or error}") from None
    return first_line_header(path, start)


def append_lines(path: str, entries: List[Dict[str, Any]]) -> None:
    """Append entries to the file (created if missing) in ONE write.

    Raises SessionError on failure, after cutting the file back to its old size.
    """
    append_locked(path, lambda fd, size: entries)


def create_lines(path: str, header: Dict[str, Any],
                 entries: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Write a new session file: the header and the entries in one write. Returns the
    header now at the top of the file.

    Two processes may create the same `--session FILE` at once. Whoever holds the lock
    first and finds the file empty writes the header; the other finds a header there,
    reads it back and appends its entries under it, so a file never gets a second header
    in the middle. (Creating with O_EXCL would not be enough on its own: the loser could
    look between the winner's create and its write and find the file still empty.)
    """
    found = {}

    def lines_for(fd: int, size: int) -> List[Dict[str, Any]]:
        if size == 0:
            return [header] + entries
        start = os.pread(fd, HEADER_LIMIT, 0)
        found["header"] = first_line_header(path, start)  # not a session: refused
        return entries

    append_locked(path, lines_for)
    return found.get("header", header)


def append_locked(path: str, lines_for: Callable[[int, int], List[Dict[str, Any]]]) -> None:
    """Open for appending, take the lock, and write `lines_for(fd, size)` in one write."""
    try:
        fd = open_for_append(path)
    except OSError as error:
        raise write_error(path, error) from None
    try:
        # The lock is not what keeps lines whole (the single write does that): it makes
        # "look at the file, then write" one step. Without it, another writer's line
        # still being copied in would look torn, and we would add an empty line.
        fcntl.flock(fd, fcntl.LOCK_EX)  # released by os.close
        size = os.fstat(fd).st_size
        entries = lines_for(fd, size)
        data = "".join(to_line(entry) for entry in entries).encode("utf-8")
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # a torn last line: keep it alone on its line
        write_all(fd, data, path, size)
    finally:
        os.close(fd)


def open_for_append(path: str) -> int:
    """A descriptor that writes at the end of the file; the folder is made on demand."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT  # read: to see the last byte
    try:
        return os.open(path, flags, 0o644)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return os.open(path, flags, 0o644)


def check_writable(path: str) -> None:
    """Raise SessionError NOW when a session could not be written at `path` later.

    The file is born with the first answer, and an answer is paid for: a folder that is
    really a file, a path under a regular file or a read-only disk must be found before
    the first request. We try it (os.access says yes to root for anything): an existing
    file is opened for appending; otherwise a temporary file is made and removed in the
    nearest folder that exists (we create no folder for a prompt that may fail).
    A NUL cannot be in a file name, yet the probe would pass (its folder exists).
    """
    if "\0" in path:
        shown = path.replace("\0", "\\0")
        raise SessionError(f"cannot write session {shown}: a path cannot hold a NUL character")
    try:
        if os.path.lexists(path):
            # O_NONBLOCK: opening a FIFO for writing would wait for a reader.
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
            return
        folder = os.path.dirname(path)
        while not os.path.lexists(folder):
            folder = os.path.dirname(folder)
        if not os.path.isdir(folder):
            raise SessionError(f"cannot write session {path}: {folder} is a file, not a folder")
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".miniagent-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise write_error(path, error) from None


def write_all(fd: int, data: bytes, path: str, size: int) -> None:
    """os.write until everything is written. A regular file takes the whole buffer in
    one call unless the disk fills up; then the next call raises and we undo."""
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:])
    except OSError as error:
        if written:
            # Part of a line reached the file: remove it so the file stays whole lines.
            # (Our other writers wait on the lock; a pi process appending in this same
            # instant would lose its line too: a full disk is rare enough to accept that.)
            os.ftruncate(fd, size)
        raise write_error(path, error) from None


def write_error(path: str, error: OSError) -> SessionError:
    return SessionError(f"cannot write session {path}: {error.strerror or error}")
