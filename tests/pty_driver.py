"""Drive a real `python -m miniagent` in a pseudo-terminal, as a person at a keyboard.

The REPL behaves differently on a terminal (line editing, Ctrl-C as a signal, a live
display), so its tests give it one: a pty whose slave side is the child's stdin, stdout,
stderr and controlling terminal. Writing b"\\x03" to the master is then exactly a user
pressing Ctrl-C: the kernel turns it into SIGINT for the child's process group.

    with Terminal(["--script", path], env=env) as term:
        term.expect("> ")          # waits (with a deadline) until the text appears
        term.send("hello\\r")
        term.expect("world")
        term.send("\\x04")          # Ctrl-D
        assert term.wait() == 0

A reader thread empties the master all the time (a child blocked on a full pty buffer
would look hung); `expect` waits on a condition for the text, never on a sleep.

A Ctrl-C at the prompt goes through `ctrl_c()`, which first waits until the child sleeps
waiting for a key. CPython's readline notices a signal only when it interrupts that
wait: one that arrives in the instant after the prompt is drawn and before the wait
starts stays unnoticed until the next Enter. A person cannot hit that instant; a test
that reacts to the prompt within microseconds can.
"""

import fcntl
import os
import platform
import re
import struct
import subprocess
import sys
import termios
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>]")
TOKENS = re.compile(ESCAPES.pattern + r"|\r|\n|\x08|[^\x1b\r\n\x08]+")
UP = re.compile(r"\x1b\[(\d*)A")
# The system calls of a thread waiting for a key: select, pselect6, poll, ppoll.
WAITING_CALLS = {"x86_64": {"7", "23", "270", "271"}, "aarch64": {"72", "73"}}.get(
    platform.machine(), set())

# Runs in the child before miniagent: become the pty's controlling process, so that
# Ctrl-C typed into the pty is a SIGINT to us (the child is a session leader already).
BOOT = ("import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
        "os.execv(sys.executable, [sys.executable, '-m', 'miniagent'] + sys.argv[1:])")


class Terminal:
    def __init__(self, args, env=None, cwd=None, columns=100, rows=40):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        full_env = dict(os.environ, PYTHONPATH=ROOT, TERM="xterm-256color")
        for key in ("NO_COLOR", "COLUMNS", "LINES", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            full_env.pop(key, None)
        full_env.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-c", BOOT, *args], stdin=slave, stdout=slave, stderr=slave,
            cwd=cwd or ROOT, env=full_env, start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.output = b""
        self.mark = 0  # expect() looks at the plain output after this offset
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
                self._changed.notify_all()
            if not data:
                return

    @property
    def text(self) -> str:
        """Everything the child wrote, decoded (escape sequences included)."""
        return self.output.decode("utf-8", errors="replace")

    def plain(self) -> str:
        """The output with escape sequences and carriage returns removed."""
        return ESCAPES.sub("", self.text).replace("\r", "")

    def screen(self):
        """The lines a terminal would show now (see screen_of)."""
        return screen_of(self.text)

    def expect(self, wanted: str, timeout: float = 10) -> str:
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

    def send(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def ctrl_c(self, timeout: float = 10) -> None:
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

    def wait(self, timeout: float = 10) -> int:
        return self.process.wait(timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        self._reader.join(5)
        os.close(self.master)


def screen_of(text: str):
    """The lines a terminal would show after `text`: a tiny emulator that knows text, CR,
    LF, backspace, "erase line" and "cursor up" (what the live view uses); styles and
    other codes are ignored, and nothing scrolls off."""
    rows, row, col = [""], 0, 0
    for token in TOKENS.findall(text):
        if token == "\r":
            col = 0
        elif token == "\n":  # a terminal starts the next line at its start (ONLCR)
            row, col = row + 1, 0
            rows += [""] * (row + 1 - len(rows))
        elif token == "\x08":
            col = max(0, col - 1)
        elif token == "\x1b[2K":
            rows[row] = ""
        elif UP.fullmatch(token):
            row = max(0, row - int(UP.fullmatch(token).group(1) or 1))
        elif not token.startswith("\x1b"):
            line = rows[row].ljust(col)
            rows[row] = line[:col] + token + line[col + len(token):]
            col += len(token)
    return rows
