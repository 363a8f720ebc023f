"""The regex matcher's own process: match the lines of the files it is handed, report them.

regex_worker.py starts this file as a script, `python -I -S regex_child.py PARENT_PID`,
in the temp folder: isolated mode, so no folder that could hold someone's `json.py` is
on its path, and no site-packages. It imports only the standard library. It opens no
file itself: each file arrives as an open descriptor, chosen and opened by grep.

    in (stdin, a Unix socket)           out (stdout, JSON lines)
    {"pattern": "def ", "flags": 32,
     "limit": 100, "context": 1,
     "maxChars": 500}
    {}  + a file's descriptor      -->  ["c", 4, "x = 1"]     a context line
                                        ["m", 5, "def f():"]  a matching line
                                        ["p", 0, ""]          still working (progress)
                                        ["done", 0, ""]       this file is finished
    (end of input)                 -->  exits

Files are answered in the order they came, and the limit counts matches over all of
them. "p" comes at least every PROGRESS_SECONDS while lines are being matched, so
silence means one line is taking the engine that long: regex_worker.py then kills this
process. Python's `re`
holds the interpreter lock for the whole of one search, so nothing inside the process
could interrupt it; only a process can be stopped from outside.

On Linux the kernel kills this process if the grep thread that started it dies
(PR_SET_PDEATHSIG), so even SIGKILL of the agent leaves no runaway match behind.

Left out: multiline patterns, and encodings other than UTF-8 (as grep.py says).
"""

import ctypes
import json
import os
import re
import signal
import socket
import sys
import time
from collections import deque

PROGRESS_LINES = 64
"""How often (in lines) the clock is looked at: often enough, and cheap."""
PROGRESS_SECONDS = 0.5
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def main() -> None:
    die_with_parent(int(sys.argv[1]))
    requests = Requests(socket.socket(fileno=0))
    setup = requests.next()
    regex = re.compile(setup["pattern"], setup["flags"])
    out = os.fdopen(1, "wb")
    max_chars = setup["maxChars"] + 1  # one more than grep shows, so it knows to cut

    def emit(kind: str, number: int = 0, text: str = "") -> None:
        out.write(json.dumps([kind, number, text[:max_chars]]).encode() + b"\n")

    remaining = setup["limit"]  # matches still allowed, over all the files
    # Replies are flushed when there is no file left to work on (and with each "p"):
    # a batch of small files costs grep one wake-up, not one each.
    while requests.next(before_waiting=out.flush) is not None:
        with os.fdopen(requests.fds.pop(0), "rb") as f:  # every file request brings one
            remaining -= scan(f, regex, setup["context"], remaining, emit, out.flush)
        emit("done")


def die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL us when the thread that started us ends; elsewhere, and if
    the parent is already gone, there is nobody to answer to either way."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the request above took effect
        sys.exit(1)


class Requests:
    """JSON lines from the socket, and the descriptors that came with them, in order
    (a stream socket may deliver two requests in one read)."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buffer, self.fds = sock, b"", []

    def next(self, before_waiting=lambda: None):
        """The next request, or None at the end of input; `before_waiting` is called
        when none has arrived yet."""
        while b"\n" not in self.buffer:
            before_waiting()
            data, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 1)
            if not data:
                return None
            self.buffer += data
            self.fds += fds
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)


def scan(f, regex, context: int, limit: int, emit, flush) -> int:
    """Report the matches of one file, with context, until `limit` matches; return
    how many it reported.

    `before` holds the last `context` lines not yet reported; `after` counts the
    context lines still owed to the last match. Every line lands in exactly one place
    (reported as a match, reported as context, or held in `before`), so no line is
    reported twice: that is what merges the blocks of two nearby matches. Example,
    context=1, matches on lines 3 and 5 -> lines 2-6 once. After the last allowed
    match its context is still reported, then the file is left.
    """
    before: deque = deque(maxlen=context)  # older lines drop out on their own
    after = matches = 0
    last_report = time.monotonic()
    for number, raw in enumerate(f, start=1):
        if number % PROGRESS_LINES == 0 and time.monotonic() - last_report >= PROGRESS_SECONDS:
            emit("p")
            flush()
            last_report = time.monotonic()
        text = raw.rstrip(b"\r\n").decode("utf-8", errors="replace")
        # Past the limit a match is not counted: it can only appear as context.
        if matches < limit and regex.search(text):
            for context_number, context_text in before:
                emit("c", context_number, context_text)
            before.clear()  # reported now, so no later match reports them again
            emit("m", number, text)
            matches += 1
            after = context  # owed from the newest match on, not added up
        elif after > 0:
            emit("c", number, text)
            after -= 1
        elif matches >= limit:
            break  # the last match's context is complete: nothing more to show
        else:
            before.append((number, text))
    return matches


if __name__ == "__main__":
    main()
