"""terminal: how a program reads one key at a time.

A terminal starts in "cooked" mode: the kernel collects a whole line, echoes what is
typed, handles Backspace itself, and hands the program the line at Enter. A program
that draws its own input area needs every key as it is pressed, and must echo nothing
itself. termios, the kernel's settings for a terminal, says how:

    ICANON off    bytes arrive as they are typed, not a line at a time (VMIN=1: a read
                  waits for at least one byte; VTIME=0: with no timer)
    ECHO off      the kernel does not print what is typed; the program draws it
    IEXTEN off    Ctrl-V (type the next key literally) reaches the program
    IXON off      Ctrl-S and Ctrl-Q reach the program instead of pausing the output
    ICRNL off     Enter arrives as \\r, so it can be told from Ctrl-J (\\n); INLCR and
                  IGNCR are cleared for the same reason, ISTRIP so UTF-8 keeps its 8th bit
    ISIG kept     Ctrl-C is still SIGINT, Ctrl-Z SIGTSTP, Ctrl-\\ SIGQUIT: a program
                  busy elsewhere can still be interrupted, as in cooked mode
    OPOST kept    "\\n" written still moves to the start of the next line

The terminal is shared with the shell, and a program that leaves it in this mode
leaves the user typing blind. So the saved settings are put back on every way out:
`restore()` in the caller's `finally`, an `atexit` restore here, the caller's SIGTERM
and SIGHUP handlers raise so that `finally` runs, and `restore_all()` before an
`os._exit` (which skips both). Ctrl-Z is the way out that comes back: the SIGTSTP
handler puts the settings back, then stops the process for real; SIGCONT sets raw mode
up again and calls `on_resume`, which repaints the screen the shell drew over.

Waking up: `read` waits in select() on the keyboard and on a pipe of our own (the
"self-pipe"), so that a signal or another thread can end the wait. A handler written
in Python cannot write that byte reliably: Python runs it between two bytecodes of the
main thread, so a signal that comes just before select() starts waiting is handled
only when the wait ends (a resize, a Ctrl-C, a Ctrl-Z noticed at the next key). So the
byte is written by the C-level handler, with `signal.set_wakeup_fd`: for every signal
that has a Python handler (SIGWINCH's does nothing: the byte, the signal's number, is
the message), the signal number is written to the pipe the moment it arrives.
`wake()` (another thread has something to show) writes a zero, which is no signal, so
`read` can tell a resize from a wake-up.

Signal handlers can only be installed from the main thread: `start()` must be called
there. `read` and `write` may be called from any thread.

Left out: the alternate screen, mouse reporting and Windows consoles.
"""

import atexit
import errno
import os
import select
import signal
import termios
import time
from typing import Callable, Dict, List, Optional, Tuple

from .keys import ESC_WAIT, PASTE_WAIT, Key, KeyDecoder

READ_SIZE = 65536
RESIZED = bytes([signal.SIGWINCH])  # what a SIGWINCH writes to the wakeup pipe
WOKEN = b"\x00"  # what wake() writes to it: no signal has the number 0
PASTE_ON, PASTE_OFF = "\x1b[?2004h", "\x1b[?2004l"  # bracketed paste (keys.py reads it)
SHOW_CURSOR = "\x1b[?25h"

_started: List["RawTerminal"] = []  # every terminal in raw mode, for restore_all()


class RawTerminal:
    def __init__(self, fd_in: int = 0, fd_out: int = 1):
        self.fd_in = fd_in
        self.fd_out = fd_out
        # Called after Ctrl-Z and `fg`, inside the SIGCONT handler (in the main thread,
        # between two steps of whatever it was doing): it should only ask for a
        # repaint, which the loop around read() then draws (the signal woke the read).
        self.on_resume: Callable[[], None] = lambda: None
        self.resized = False  # set by read() after a SIGWINCH; the caller clears it
        self.closed = False  # the keyboard side reached end of file
        self.gone = False  # the terminal hung up: output is dropped
        self._saved: Optional[list] = None  # the termios settings before start()
        self._raw = False  # raw mode is meant to be on (between start() and restore())
        self._wake_read = self._wake_write = -1
        self._previous: Dict[int, object] = {}  # the signal handlers start() replaced
        self._previous_wakeup = -1  # the wakeup fd start() replaced (-1: none)

    def start(self) -> None:
        """Raw mode on, bracketed paste on, the signal handlers in (main thread only)."""
        if self._saved is not None:
            return
        self._saved = termios.tcgetattr(self.fd_in)
        self._wake_read, self._wake_write = os.pipe()
        # Neither end may block: a signal handler must never wait on a full pipe, and
        # read() empties the pipe until there is nothing left.
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        # A full pipe needs no warning: a wake-up is pending anyway.
        self._previous_wakeup = signal.set_wakeup_fd(self._wake_write, warn_on_full_buffer=False)
        self._raw = True
        self._enter_raw()
        self._install(signal.SIGWINCH, self._on_resize)
        self._install(signal.SIGCONT, self._on_continue)
        # A shell without job control ignores SIGTSTP: Ctrl-Z must then do nothing,
        # since no one could ever continue a process that stopped itself.
        if signal.getsignal(signal.SIGTSTP) != signal.SIG_IGN:
            self._install(signal.SIGTSTP, self._on_suspend)
        _started.append(self)
        atexit.register(self.restore)

    def restore(self) -> None:
        """Put the terminal back as start() found it. Safe to call more than once, from
        a `finally`, from atexit and from a signal handler."""
        if not self._raw:
            return
        self._raw = False  # first, so a signal arriving during the restore skips it
        self._put_back()

    def stop(self) -> None:
        """Restore, put back the signal handlers start() replaced, close the pipe."""
        if self._saved is None:
            return
        self.restore()
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()
        signal.set_wakeup_fd(self._previous_wakeup)
        os.close(self._wake_read)
        os.close(self._wake_write)
        self._wake_read = self._wake_write = -1
        self._saved = None
        _started.remove(self)
        atexit.unregister(self.restore)

    def read(self, timeout: Optional[float]) -> bytes:
        """The bytes typed, waiting up to `timeout` seconds (None: until something comes);
        b"" after a timeout, a wake() or a resize (then `resized` is True)."""
        # After end of file the keyboard is always "readable": only the pipe is waited on.
        waited = [self._wake_read] if self.closed else [self.fd_in, self._wake_read]
        readable, _, _ = select.select(waited, [], [], timeout)
        if self._wake_read in readable:
            self._drain_wakeups()
        if self.fd_in not in readable:
            return b""
        try:
            data = os.read(self.fd_in, READ_SIZE)
        except OSError as error:
            if error.errno != errno.EIO:  # EIO: the terminal hung up, as end of file
                raise
            data = b""
        if not data:  # readable but empty: end of file
            self.closed = True
        return data

    def wake(self) -> None:
        """Make a read() that waits in another thread return now."""
        try:
            os.write(self._wake_write, WOKEN)
        except OSError:  # full (a wake-up is pending anyway) or closed by stop()
            pass

    def size(self) -> Tuple[int, int]:
        """(columns, rows) of the output terminal; 80x24 when it cannot tell."""
        try:
            columns, rows = os.get_terminal_size(self.fd_out)
        except OSError:
            return 80, 24
        return (columns or 80), (rows or 24)  # a new pty says 0x0 until someone sets it

    def write(self, text: str) -> None:
        """Write all of `text`; a terminal that hung up drops it (and sets `gone`)."""
        data = text.encode("utf-8")
        while data and not self.gone:
            try:
                written = os.write(self.fd_out, data)
            except BlockingIOError:
                # Another program left the shared terminal non-blocking: wait until it
                # takes more, as a blocking write would have.
                select.select([], [self.fd_out], [])
                continue
            except OSError as error:
                if error.errno not in (errno.EIO, errno.EPIPE):
                    raise
                self.gone = True
                return
            data = data[written:]

    def _enter_raw(self) -> None:
        attrs = termios.tcgetattr(self.fd_in)
        attrs[0] &= ~(termios.IXON | termios.ICRNL | termios.INLCR | termios.IGNCR
                      | termios.ISTRIP)
        attrs[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)  # ISIG stays on
        attrs[6][termios.VMIN] = 1
        attrs[6][termios.VTIME] = 0
        self._set_attrs(attrs)
        self.write(PASTE_ON)

    def _put_back(self) -> None:
        self.write(PASTE_OFF + SHOW_CURSOR)
        self._set_attrs(self._saved)

    def _set_attrs(self, attrs: list) -> None:
        # TCSANOW, not TCSADRAIN: only input settings change between the two modes (the
        # output ones are the same), so there is no output to drain first; and draining
        # can wait forever on a terminal that takes no output, which a signal handler
        # or an atexit restore must never do. Pending input is kept (no TCSAFLUSH): keys
        # typed ahead belong to whoever reads next.
        try:
            termios.tcsetattr(self.fd_in, termios.TCSANOW, attrs)
        except termios.error:  # the terminal is gone: there is nothing to set
            pass

    def _install(self, signum: int, handler: Callable) -> None:
        previous = signal.signal(signum, handler)
        # None: a handler installed outside Python; the default is the best we can do.
        self._previous[signum] = signal.SIG_DFL if previous is None else previous

    def _drain_wakeups(self) -> None:
        while True:
            try:
                data = os.read(self._wake_read, 512)
            except BlockingIOError:
                return
            if RESIZED in data:
                self.resized = True
            if not data:
                return

    def _on_resize(self, signum, frame) -> None:
        """Nothing to do: the byte set_wakeup_fd wrote tells read() of the resize."""

    def _on_suspend(self, signum, frame) -> None:
        """Ctrl-Z: give the shell its terminal back, then stop as the default would."""
        if self._raw:
            self._put_back()
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)  # the process stops here until SIGCONT
        signal.signal(signal.SIGTSTP, self._on_suspend)
        # The kernel does not stop a process that no shell could continue (its process
        # group is orphaned): then nothing stopped, no SIGCONT comes, and raw mode must
        # be set again here. After a real stop this repeats what SIGCONT's handler does.
        if self._raw:
            self._enter_raw()

    def _on_continue(self, signum, frame) -> None:
        """`fg` (or any SIGCONT): raw mode again, and the caller repaints."""
        if self._raw:
            self._enter_raw()
            self.on_resume()


def restore_all() -> None:
    """Restore every terminal in raw mode: call it before os._exit, which skips atexit."""
    for terminal in list(_started):
        terminal.restore()


def read_keys(terminal: RawTerminal, decoder: KeyDecoder, timeout: Optional[float]) -> List[Key]:
    """The keys typed within `timeout` seconds (none after a wake-up or a resize).

    This is where Esc is told from Alt+key and from a sequence cut between reads: when
    the decoder is left holding an Esc, more bytes are awaited for at most ESC_WAIT
    seconds; whatever has not come by then is flushed (a lone Esc is the Esc key).
    """
    keys = decoder.feed(terminal.read(timeout))
    deadline = time.monotonic() + ESC_WAIT
    while decoder.waiting() and not terminal.closed:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        keys += decoder.feed(terminal.read(left))
    if decoder.waiting():
        keys += decoder.flush()
    return keys + finish_paste(terminal, decoder)


def finish_paste(terminal: RawTerminal, decoder: KeyDecoder) -> List[Key]:
    """A paste under way is read to its end marker here; one that pauses PASTE_WAIT
    seconds ends without it, so that a lost marker cannot swallow every later key."""
    keys: List[Key] = []
    deadline = time.monotonic() + PASTE_WAIT
    while decoder.pasting() and not terminal.closed:
        left = deadline - time.monotonic()
        if left <= 0:
            return keys + decoder.end_paste()
        data = terminal.read(left)  # b"" also after a wake-up: the deadline decides
        if data:
            keys += decoder.feed(data)
            deadline = time.monotonic() + PASTE_WAIT
    return keys + decoder.end_paste()
