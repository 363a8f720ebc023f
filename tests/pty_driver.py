"""Drive a real `python -m miniagent` in a pseudo-terminal, as a person at a keyboard.

The REPL behaves differently on a terminal (line editing, Ctrl-C as a signal, a live
display), so its tests give it one: a pty whose slave side is the child's stdin, stdout,
stderr and controlling terminal. Writing b"\\x03" to the master is then exactly a user
pressing Ctrl-C: the kernel turns it into SIGINT for the child's process group.

    with Terminal(["--script", path], env=env) as term:
        term.expect_screen("> ")   # waits (with a deadline) until the text is on screen
        term.send("hello\\r")
        term.expect_screen("world")
        assert "> hello" in term.screen()   # the rows, the scrollback's included
        term.send("\\x04")          # Ctrl-D
        assert term.wait() == 0

A reader thread empties the master all the time (a child blocked on a full pty buffer
would look hung) and feeds everything to `term.vt`, a VT100 screen model
(tests/vt_screen.py), under the same condition the waits wait on: they wait for the
text, never on a sleep.

Two ways to look. The screen (`expect_screen`, `visible`, `screen`, `wait_screen`):
what a user sees, the scrollback included; this is the one for a program that repaints
its bottom rows, where the bytes say little. The byte stream (`expect`, `text`,
`plain`): everything written, in order, escape codes included or removed.

The screen mark. On a repainted screen "the position after the last match" does not
stay put, so `expect_screen(text)` counts instead. The mark is the transcript as it
was when the last match was found, and the offset just past that match in it; the
wait is over when the transcript now holds more occurrences of `text` than that one
held before the offset, and the mark moves past the new occurrence. So a prompt
drawn once a turn is found once a turn; a text drawn in the same write as the one
found before it is still found; a text a repaint only moves (from the live area
into the scrollback) is not new. What it cannot see: a text erased and drawn again
(a status line) adds nothing; wait for that with `wait_screen` on `vt.lines()`.
And the screen has rows: a text broken over two (by the terminal's autowrap or by the
program's own wrapping) is found only in pieces; on a screen that is never repainted
(the line mode), `expect` reads the byte stream whole.

A window resize is `resize(columns, rows)`: TIOCSWINSZ on the master, upon which the
kernel sends SIGWINCH to the child's foreground process group, as a terminal emulator
does; the model takes the new size at the same moment.

A Ctrl-C goes through `ctrl_c()`, which first waits until the child sleeps waiting for
a key. A test reacts to what it sees within microseconds, and a Ctrl-C that arrives
before the program has installed its handler (while it still starts up, between the
greeting drawn and the handler set) would be the default one, which ends the program.
A person cannot hit that instant; a test can.
"""

import fcntl
import os
import platform
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from typing import Callable, List, Sequence

from vt_screen import Screen

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>]")
# The system calls of a thread waiting for a key: select, pselect6, poll, ppoll.
WAITING_CALLS = {"x86_64": {"7", "23", "270", "271"}, "aarch64": {"72", "73"}}.get(
    platform.machine(), set())
MINIAGENT = ("-m", "miniagent")
# How long a wait may take before the test fails. Long: it ends only a failing test, and on
# a busy machine (two cores at a load of 7) a start or a repaint can take many seconds.
# tests/test_exercises.py runs wrong solutions, which are meant to fail: it shortens it.
DEADLINE = float(os.environ.get("MINIAGENT_TEST_DEADLINE", 60))

# Runs in the child before the program: become the pty's controlling process, so that
# Ctrl-C typed into the pty is a SIGINT to us (the child is a session leader already).
BOOT = ("import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
        "os.execv(sys.executable, [sys.executable] + sys.argv[1:])")


class Terminal:
    def __init__(self, args: Sequence[str], env=None, cwd=None, columns=100, rows=40,
                 program: Sequence[str] = MINIAGENT, reflow: bool = False):
        """Start `python *program *args` on a new pty of `columns` x `rows` (this
        driver's own tests run a small script instead of miniagent); `reflow`: the
        screen model splits rows on a narrower window, as tmux does (vt_screen.py)."""
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        full_env = dict(os.environ, PYTHONPATH=ROOT, TERM="xterm-256color")
        for key in ("NO_COLOR", "COLUMNS", "LINES", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            full_env.pop(key, None)
        full_env.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-c", BOOT, *program, *args], stdin=slave, stdout=slave,
            stderr=slave, cwd=cwd or ROOT, env=full_env, start_new_session=True,
            close_fds=True)
        os.close(slave)
        self.master = master
        self.output = b""
        self.mark = 0  # expect() looks at the plain output after this offset
        self.vt = Screen(columns, rows, reflow=reflow)
        # The screen mark: the transcript when expect_screen last found its text, and
        # the offset just past that text in it (see the module's docstring).
        self._screen_mark = ("", 0)
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _read(self):
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the child closed its side
                data = b""
            with self._changed:
                self.output += data
                self.vt.feed(data)
                self._changed.notify_all()
            if not data:
                return

    # The screen: what a user sees

    def visible(self) -> List[str]:
        """The rows on screen now, trailing spaces stripped."""
        with self._changed:
            return self.vt.lines()

    def screen(self) -> List[str]:
        """The scrollback and the rows on screen, trailing blank rows dropped."""
        with self._changed:
            return self.vt.transcript().split("\n")

    def mark_screen(self) -> None:
        """From now on expect_screen looks only for occurrences drawn after this."""
        with self._changed:
            transcript = self.vt.transcript()
            self._screen_mark = (transcript, len(transcript))

    def expect_screen(self, wanted: str, timeout: float = DEADLINE) -> str:
        """Wait until the screen (scrollback included) holds one more `wanted` than it
        held up to the mark (see the module's docstring); move the mark past that one
        and return the transcript. Fails showing the screen."""
        marked, offset = self._screen_mark
        before = marked[:offset].count(wanted)
        with self._changed:
            self._changed.wait_for(lambda: self.vt.transcript().count(wanted) > before
                                   or not self._reader.is_alive(), timeout)
            transcript = self.vt.transcript()
            if transcript.count(wanted) <= before:
                raise AssertionError(f"{wanted!r} did not appear on the screen (it was "
                                     f"there {before} time(s) before):\n{self._shown()}")
            self._screen_mark = (transcript, _end_of_occurrence(transcript, wanted, before))
            return transcript

    def wait_screen(self, predicate: Callable[[Screen], bool], timeout: float = DEADLINE) -> None:
        """Wait until `predicate(term.vt)` holds, e.g. lambda vt: vt.lines()[-1] == "> ".
        Fails showing the screen."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self.vt), timeout):
                raise AssertionError(f"the screen did not get there:\n{self._shown()}")

    def resize(self, columns: int, rows: int) -> None:
        """Change the window's size, as a user dragging its corner: the kernel sends
        the child SIGWINCH. The model resizes first, so that what the child draws for
        the new size lands on a screen of that size."""
        with self._changed:
            self.vt.resize(columns, rows)
            fcntl.ioctl(self.master, termios.TIOCSWINSZ,
                        struct.pack("HHHH", rows, columns, 0, 0))

    def _shown(self) -> str:
        """The last rows of the scrollback and the screen, framed, for a failure."""
        scrollback = self.vt.scrollback()[-10:]
        unknown = f"\nunknown codes: {self.vt.unknown!r}" if self.vt.unknown else ""
        return ("\n".join(scrollback) + "\n" + "-" * self.vt.columns + "\n" +
                "\n".join(self.vt.lines()) + "\n" + "-" * self.vt.columns + unknown)

    # The byte stream: everything written, in order

    @property
    def text(self) -> str:
        """Everything the child wrote, decoded (escape sequences included)."""
        return self.output.decode("utf-8", errors="replace")

    def plain(self) -> str:
        """The output with escape sequences and carriage returns removed."""
        return ESCAPES.sub("", self.text).replace("\r", "")

    def expect(self, wanted: str, timeout: float = DEADLINE) -> str:
        """Wait until `wanted` appears in the plain output after the mark; move the mark
        past it and return the plain text up to it. Fails showing what was seen."""
        with self._changed:
            self._changed.wait_for(lambda: self.plain().find(wanted, self.mark) >= 0
                                   or not self._reader.is_alive(), timeout)
            screen = self.plain()
            found = screen.find(wanted, self.mark)
            if found < 0:
                raise AssertionError(f"{wanted!r} did not appear; the screen after the "
                                     f"mark:\n{screen[self.mark:]}")
            before, self.mark = screen[self.mark:found + len(wanted)], found + len(wanted)
            return before

    # The keyboard and the process

    def send(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def ctrl_c(self, timeout: float = DEADLINE) -> None:
        """Press Ctrl-C once the child's main thread waits for a key (see the module's
        docstring); where /proc cannot tell, after the timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{self.process.pid}/syscall") as status:
                    call = status.read().split()[:1]
            except OSError:
                break  # the child is gone, or no /proc: nothing to wait for
            if call and call[0] in WAITING_CALLS:
                break
            time.sleep(0.005)  # polling a state, bounded by the deadline
        self.send("\x03")

    def wait(self, timeout: float = DEADLINE) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        """End the child if a test left it running (a failed one): a hangup first, as a
        closed terminal window sends, so that it kills the commands it started; only
        then SIGKILL, which would leave them running."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGHUP)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._reader.join(5)
        os.close(self.master)


def _end_of_occurrence(text: str, wanted: str, skip: int) -> int:
    """The offset just past the occurrence of `wanted` after the first `skip` ones
    (counted without overlap, as str.count counts).

    Example: _end_of_occurrence("a> b> c> ", "> ", 1) -> 5
    """
    at = -len(wanted)
    for _ in range(skip + 1):
        at = text.find(wanted, at + len(wanted))
    return at + len(wanted)


def screen_of(text: str) -> List[str]:
    """The rows a terminal shows after `text` is written to it through a pty (where
    each "\\n" becomes CR LF: the pty's ONLCR), on a screen so big that nothing wraps
    or scrolls; blank rows below both the cursor and the text left out.

    Example: screen_of("a\\nb\\x1b[1A\\r\\x1b[2Kc") -> ["c", "b"]
    """
    segments = text.split("\n")
    screen = Screen(2 * max(len(segment) for segment in segments) + 1, len(segments))
    screen.feed(text.replace("\n", "\r\n"))
    rows = screen.lines()
    used = len(rows)
    while used - 1 > screen.row and not rows[used - 1]:
        used -= 1
    return rows[:used]
