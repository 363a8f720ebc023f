"""Matching in a child process: a regular expression from the model cannot hang the agent.

Python's `re` can take exponential time: `(a+)+$` against 34 "a"s and a "b" tries
every way of splitting the a's, for hours. The engine holds the interpreter lock the
whole time, so in our own process no thread, no signal handler and no Ctrl-C would
run again. So grep hands the matching to a child process, which can always be killed:

    grep.py (what grep means)          regex_child.py (a separate Python process)
      open a file, skip binaries
      matcher.scan(f, rel, limit)  -->  match its lines, report matches and context
      <-- ("m", 5, "def f():") ...      (and "still working" at least every 0.5 s)

    while it waits, this file watches three things:
      the call is aborted (Ctrl-C, SIGTERM)         -> kill the child, "Operation aborted"
      no word from the child for 5 s on one file    -> kill it, an error naming the
                                                       pattern and the file
      the child died                                -> an error saying so

One child serves a whole call (one per file would cost a Python start-up per file).
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
from contextlib import contextmanager
from typing import BinaryIO, Iterator, Pattern, Tuple

from . import ToolError, check_not_aborted
from .reaper import kill_tree, tracked

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regex_child.py")
STALL_SECONDS = 5.0
POLL_SECONDS = 0.1
"""Longest wait for the child's next line: how quickly an abort is noticed."""
READ_BYTES = 64 * 1024


def stall_seconds() -> float:
    """MINIAGENT_GREP_TIMEOUT seconds (a knob for slow machines, and the tests'), else 5."""
    try:
        seconds = float(os.environ.get("MINIAGENT_GREP_TIMEOUT", STALL_SECONDS))
    except ValueError:
        return STALL_SECONDS
    return seconds if seconds > 0 else STALL_SECONDS


@contextmanager
def regex_matcher(regex: Pattern, context: int, max_chars: int,
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
            matcher = Matcher(proc, ours, regex.pattern, abort)
            matcher.send({"pattern": regex.pattern, "flags": regex.flags,
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
                 abort: threading.Event):
        self.proc, self.sock, self.pattern, self.abort = proc, sock, pattern, abort
        self.pending = b""  # a reply line not yet complete

    def send(self, request: dict, fd: int = -1) -> None:
        data = [json.dumps(request).encode() + b"\n"]
        try:
            socket.send_fds(self.sock, data, [fd] if fd >= 0 else [])
        except OSError:
            pass  # the child is gone: reading its replies says so

    def scan(self, f: BinaryIO, rel: str, limit: int) -> Iterator[Tuple[str, int, str]]:
        """("m" or "c", line number, text) for each line of `f` grep shows, in order."""
        self.send({"limit": limit}, f.fileno())
        for reply in self.replies(rel):
            if reply[0] == "done":
                return
            if reply[0] != "p":
                yield tuple(reply)

    def replies(self, rel: str) -> Iterator[list]:
        """The child's reply lines, while watching for an abort, a stall or its end."""
        fd = self.proc.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        limit = stall_seconds()
        heard = time.monotonic()
        while True:
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
            *lines, self.pending = (self.pending + data).split(b"\n")
            for line in lines:
                yield json.loads(line)

    def died(self, rel: str) -> ToolError:
        """The error for a child that ended in the middle of a file."""
        self.proc.wait()
        last = (self.proc.stderr.read().decode(errors="replace").strip().splitlines()
                or [f"exit status {self.proc.returncode}"])[-1]
        return ToolError(f"The regex matcher stopped while searching {rel}: {last}")
