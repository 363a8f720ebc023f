"""The per-file lock: two tool calls that change one file take turns.

The tool calls of one assistant message run in parallel, on threads. Two of them may
touch the same file:

    edit(a.py, "x = 1" -> "x = 2")   and   edit(a.py, "y = 1" -> "y = 2")

Each reads the file, changes its copy, writes the copy back. Interleaved, the second
write would put back a file without the first change, and both calls would report
success. So edit and write hold the file's lock for their whole read-modify-write, and
read holds it while the file is open: an edit opens the file with "wb", which empties it,
and only then writes, and a read in that moment would see an empty file.

    with path_lock("/repo/a.py"):
        ... read, change, write ...

Left out: locking against other processes (an editor, a second agent). OS file locks
are advisory on POSIX: they stop only programs that take them too. pi has no lock at all
(two of its parallel edits of one file race).
"""

import os
import threading
from contextlib import contextmanager
from typing import Dict, Iterator

_locks: Dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()  # protects the dict itself, not the files


@contextmanager
def path_lock(path: str) -> Iterator[None]:
    """Hold the lock of one file while reading, changing and writing it."""
    # The real path is the key, so `a.txt`, `./a.txt` and a symlink to it share a lock.
    key = os.path.realpath(path)
    with _locks_guard:
        # Locks are never removed: one small object per file touched in a session,
        # and removing one safely would need to know that nobody waits on it.
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        yield
