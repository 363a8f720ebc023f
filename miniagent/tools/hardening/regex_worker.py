"""Matching in a child process: a regular expression from the model cannot hang the agent.

Python's `re` can take exponential time: `(a+)+$` against 34 "a"s and a "b" tries
every way of splitting the a's, for hours. The engine holds the interpreter lock the
whole time, so in our own process no thread, no signal handler and no Ctrl-C would
run again. So grep hands the matching to a child process, which can always be killed:

    grep.py (what grep means)          regex_child.py (a separate Python process)
      open the files, skip binaries
      matcher.search(files)        -->  match their lines, report matches and context
      <-- ("a.py", "m", 5, "def f():")  (and "still working" at least every 0.5 s)

    while it waits, this file watches three things:
      the call is aborted (Ctrl-C, SIGTERM)         -> kill the child, "Operation aborted"
      no word from the child for 5 s on one file    -> kill it, an error naming the
                                                       pattern and the file
      the child died                                -> an error saying so

One child serves a whole call (one per file would cost a Python start-up per file),
and up to 16 files are handed over ahead of its answers, so small files do not cost a
round trip each.
It runs `sys.executable -I -S` in the temp folder, so nothing in the project (a
`json.py`, a `re.py`) is imported by it, and it receives open file descriptors over a
Unix socket, never paths. The child is tracked like a command (reaper.py), so a second
Ctrl-C or the exit sweep kills it too.

The 5 s are STALL_SECONDS; the environment's MINIAGENT_GREP_TIMEOUT changes them (the
tests use 1 s). Left out: a pool of children kept between calls, and a regex engine
with guaranteed linear time (the standard library has none).
"""

import json
import os
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import BinaryIO, Deque, Iterator, Pattern, Tuple

from ...files.home import seconds_from_env
from ...core.tools import ToolError, check_not_aborted
from .reaper import kill_tree, tracked

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regex_child.py")
STALL_SECONDS = 5.0
POLL_SECONDS = 0.1
"""Longest wait for the child's next line: how quickly an abort is noticed."""
READ_BYTES = 64 * 1024
IN_FLIGHT = 16
"""Files handed to the child ahead of its answers (each holds a descriptor open)."""


def stall_seconds() -> float:
    """MINIAGENT_GREP_TIMEOUT seconds (a knob for slow machines, and the tests'), else 5."""
    return seconds_from_env("MINIAGENT_GREP_TIMEOUT", STALL_SECONDS)


@contextmanager
def regex_matcher(regex: Pattern, context: int, limit: int, max_chars: int,
                  abort: threading.Event) -> Iterator["Matcher"]:
    """A child process ready to match `regex`, stopped when the block ends."""
    ours, theirs = socket.socketpair()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", CHILD_SCRIPT, str(os.getpid())],
            stdin=theirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=tempfile.gettempdir(), start_new_session=True)  # its own group, like bash
    except OSError as exc:
        ours.close()
        raise ToolError(f"Could not start the regex matcher ({sys.executable}): {exc}") from exc
    finally:
        theirs.close()
    with tracked(proc):
        try:
            matcher = Matcher(proc, ours, regex.pattern, limit, abort)
            matcher.send({"pattern": regex.pattern, "flags": regex.flags, "limit": limit,
                          "context": context, "maxChars": max_chars})
            yield matcher
        finally:
            # It has nothing left to do: a kill is quicker than its own way out.
            kill_tree(proc.pid)
            proc.wait()
            ours.close()
            proc.stdout.close()
            proc.stderr.close()


class Matcher:
    """One call's conversation with the child: a file goes in, its lines come back."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket, pattern: str,
                 limit: int, abort: threading.Event):
        self.proc, self.sock, self.pattern, self.abort = proc, sock, pattern, abort
        self.limit, self.matches = limit, 0
        self.pending = b""  # replies read but not yet handled

    def send(self, request: dict, fd: int = -1) -> None:
        data = [json.dumps(request).encode() + b"\n"]
        try:
            socket.send_fds(self.sock, data, [fd] if fd >= 0 else [])
        except OSError:
            pass  # the child is gone: reading its replies says so

    def search(self, files: Iterator[Tuple[BinaryIO, str]]) -> Iterator[Tuple[str, str, int, str]]:
        """(path shown, "m" or "c", line number, text) for each line grep shows.

        `files` are open files and the names to show. Up to IN_FLIGHT of them are
        handed over ahead, so the child never waits for us between two small files;
        the child answers them in order, and each is closed once it is done. Once the
        limit is reached, no more files are handed over (nor opened)."""
        in_flight: Deque[Tuple[BinaryIO, str]] = deque()
        files = iter(files)
        try:
            while in_flight or self.hand_over(files, in_flight):
                while len(in_flight) < IN_FLIGHT and self.hand_over(files, in_flight):
                    pass
                rel = in_flight[0][1]
                for kind, number, text in self.replies(rel):
                    if kind == "done":
                        break
                    if kind != "p":
                        self.matches += kind == "m"
                        yield rel, kind, number, text
                in_flight.popleft()[0].close()
        finally:
            for f, _ in in_flight:
                f.close()

    def hand_over(self, files: Iterator[Tuple[BinaryIO, str]],
                  in_flight: Deque[Tuple[BinaryIO, str]]) -> bool:
        """Send the next file to the child; False when there is none (or enough matches)."""
        if self.matches >= self.limit:
            return False
        for f, rel in files:
            self.send({}, f.fileno())
            in_flight.append((f, rel))
            return True
        return False

    def replies(self, rel: str) -> Iterator[list]:
        """The child's replies about the file `rel`, while watching for an abort, a
        stall or the child's end."""
        fd = self.proc.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        limit = stall_seconds()
        heard = time.monotonic()
        while True:
            while b"\n" in self.pending:  # replies read earlier, with the previous file's
                line, self.pending = self.pending.split(b"\n", 1)
                yield json.loads(line)
            if self.abort.is_set():
                kill_tree(self.proc.pid)
                check_not_aborted(self.abort)
            if time.monotonic() - heard >= limit:
                kill_tree(self.proc.pid)
                raise ToolError(
                    f"The pattern {self.pattern!r} made no progress for {limit:g} s in "
                    f"{rel}, so grep stopped. Python's regular expressions can take "
                    f"exponential time on nested repeats such as (a+)+: write it without "
                    f"them (for example a+$), or leave that file out with path or glob.")
            if not poller.poll(POLL_SECONDS * 1000):
                continue
            data = os.read(fd, READ_BYTES)
            if not data:
                raise self.died(rel)
            heard = time.monotonic()
            self.pending += data

    def died(self, rel: str) -> ToolError:
        """The error for a child that ended in the middle of a file."""
        self.proc.wait()
        last = (self.proc.stderr.read().decode(errors="replace").strip().splitlines()
                or [f"exit status {self.proc.returncode}"])[-1]
        return ToolError(f"The regex matcher stopped while searching {rel}: {last}")
