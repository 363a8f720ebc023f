"""The raw terminal, in a real pseudo-terminal: what the terminal's settings are while
it runs and after every way out, and what wakes a waiting read.

Where signals matter the code runs in a child process whose stdin and stdout are the
pty's slave; the parent looks at the settings through its own copy of the slave (a
pty's settings are one, whichever side asks) and hears from the child on a pipe.
"""

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time

import pytest

from miniagent.tui.keys import ESC_WAIT, Key, KeyDecoder
from miniagent.tui import terminal as terminal_module
from miniagent.tui.terminal import RawTerminal, read_keys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEADLINE = 10  # seconds: a wait for something that should come at once


def raw_mode_is_on(fd) -> bool:
    iflag, oflag, _, lflag, _, _, cc = termios.tcgetattr(fd)
    return (not lflag & (termios.ICANON | termios.ECHO | termios.IEXTEN)
            and not iflag & (termios.IXON | termios.ICRNL)
            and bool(lflag & termios.ISIG) and bool(oflag & termios.OPOST)
            and bool(oflag & termios.ONLCR) and cc[termios.VMIN] == 1 and cc[termios.VTIME] == 0)


def read_available(fd) -> bytes:
    """What the other side has written so far (the pty's output is not waited for)."""
    data = b""
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the slave side is closed
            break
        if not chunk:
            break
        data += chunk
    return data


@pytest.fixture
def pty():
    """(master, slave) of a new pty, 80x24, in its usual cooked mode."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    yield master, slave
    for fd in (master, slave):
        try:
            os.close(fd)
        except OSError:
            pass


@pytest.fixture
def terminal(pty):
    """A started RawTerminal on the pty's slave (in this process: no signals sent)."""
    master, slave = pty
    raw = RawTerminal(slave, slave)
    raw.start()
    yield raw
    raw.stop()


class Child:
    """A Python child whose stdin and stdout are the pty's slave, running `code` with a
    started RawTerminal `terminal` and a `report(line)` that reaches the parent.

    session=True makes the pty its controlling terminal (so a window change sends it
    SIGWINCH); otherwise it is only in a process group of its own, which a SIGTSTP can
    stop (the kernel does not stop an orphaned process group, as a new session's is).
    """

    def __init__(self, pty, code: str, session: bool = False):
        master, slave = pty
        self.master, self.slave = master, slave
        self.before = termios.tcgetattr(slave)  # the settings before the child starts
        self.reports, report_end = os.pipe()
        prelude = textwrap.dedent(f"""
            import fcntl, os, signal, sys, termios
            from miniagent.tui.terminal import RawTerminal, restore_all
            if {session}:
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            else:
                os.setpgid(0, 0)
            def report(line):  # os.write: a signal handler may report too
                os.write({report_end}, (line + "\\n").encode())
            terminal = RawTerminal(0, 1)
            terminal.start()
        """)
        self.process = subprocess.Popen(
            [sys.executable, "-c", prelude + textwrap.dedent(code)],
            stdin=slave, stdout=slave, stderr=subprocess.PIPE, pass_fds=[report_end],
            start_new_session=session, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
        os.close(report_end)
        self.heard = ""

    def expect(self, line: str) -> None:
        """Wait (with a deadline) until the child reports `line`."""
        deadline = time.monotonic() + DEADLINE
        while line + "\n" not in self.heard:
            left = deadline - time.monotonic()
            assert left > 0 and select.select([self.reports], [], [], left)[0], (
                f"no {line!r} from the child; heard {self.heard!r}")
            chunk = os.read(self.reports, 4096).decode()
            if not chunk:
                status = self.finish()
                raise AssertionError(f"the child ended ({status}) before {line!r}: {self.errors}")
            self.heard += chunk

    def finish(self) -> int:
        """The child's exit status (after it ends by itself); its stderr in `errors`."""
        self.errors = self.process.communicate(timeout=DEADLINE)[1].decode()
        return self.process.returncode

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()
        os.close(self.reports)


@pytest.fixture
def children():
    started = []
    yield started
    for child in started:
        child.kill()


def spawn(children, pty, code, session=False) -> Child:
    child = Child(pty, code, session)
    children.append(child)
    return child


def test_start_sets_keys_one_by_one_with_signals_kept_and_restore_puts_back_exactly(pty):
    master, slave = pty
    before = termios.tcgetattr(slave)
    assert not raw_mode_is_on(slave)
    raw = RawTerminal(slave, slave)
    raw.start()
    try:
        assert raw_mode_is_on(slave)
        assert read_available(master) == b"\x1b[?2004h"  # bracketed paste on
    finally:
        raw.stop()
    assert termios.tcgetattr(slave) == before
    assert read_available(master) == b"\x1b[?2004l\x1b[?25h"  # paste off, cursor shown


def test_restore_twice_is_the_same_as_once(terminal, pty):
    master, slave = pty
    read_available(master)
    terminal.restore()
    after_one = termios.tcgetattr(slave)
    terminal.restore()
    assert termios.tcgetattr(slave) == after_one
    assert read_available(master) == b"\x1b[?2004l\x1b[?25h"  # written once


def test_stop_puts_back_the_signal_handlers_and_the_wakeup_fd_it_replaced(pty):
    master, slave = pty
    handlers = {signum: signal.getsignal(signum)
                for signum in (signal.SIGWINCH, signal.SIGTSTP, signal.SIGCONT)}
    theirs, their_end = os.pipe()  # a wakeup fd the caller had set before
    os.set_blocking(their_end, False)
    outer = signal.set_wakeup_fd(their_end)
    try:
        raw = RawTerminal(slave, slave)
        raw.start()
        assert all(signal.getsignal(signum) != handler for signum, handler in handlers.items())
        raw.stop()
        assert {signum: signal.getsignal(signum) for signum in handlers} == handlers
        assert signal.set_wakeup_fd(outer) == their_end
    finally:
        os.close(theirs)
        os.close(their_end)


def test_a_key_arrives_alone_and_enter_as_carriage_return(terminal, pty):
    master, slave = pty
    os.write(master, b"a")
    assert terminal.read(DEADLINE) == b"a"  # cooked mode would wait for a whole line
    os.write(master, b"\r")
    assert terminal.read(DEADLINE) == b"\r"


def test_read_returns_nothing_after_its_timeout(terminal):
    started = time.monotonic()
    assert terminal.read(0.05) == b""
    assert time.monotonic() - started >= 0.05
    assert not terminal.closed and not terminal.resized


def test_wake_from_another_thread_ends_a_waiting_read_and_is_no_resize(terminal):
    started = time.monotonic()
    threading.Thread(target=terminal.wake).start()
    assert terminal.read(DEADLINE) == b""
    assert time.monotonic() - started < DEADLINE / 2
    assert not terminal.resized


def test_a_hung_up_terminal_is_closed_for_reading_and_drops_writes(terminal, pty):
    master, slave = pty
    os.close(master)
    assert terminal.read(DEADLINE) == b""
    assert terminal.closed
    terminal.write("x" * 100_000)  # must not raise
    assert terminal.gone


def test_size_is_the_windows_and_80x24_when_it_cannot_tell(terminal, pty):
    master, slave = pty
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    assert terminal.size() == (120, 30)
    read, write = os.pipe()
    try:
        assert RawTerminal(read, write).size() == (80, 24)
    finally:
        os.close(read)
        os.close(write)


def test_write_sends_all_of_a_long_text(terminal, pty):
    master, slave = pty
    read_available(master)
    data = ("日本 " * 20_000).encode()
    received = []  # the reader empties the pty while write() fills it (its buffer is small)
    reader = threading.Thread(target=lambda: received.append(read_bytes(master, len(data))))
    reader.start()
    terminal.write(data.decode())
    reader.join(DEADLINE)
    assert received == [data]


def read_bytes(fd, size) -> bytes:
    data = b""
    while len(data) < size:
        data += os.read(fd, 65536)
    return data


def test_read_keys_tells_a_lone_esc_after_a_short_wait(terminal, pty):
    master, slave = pty
    os.write(master, b"\x1b")
    started = time.monotonic()
    assert read_keys(terminal, KeyDecoder(), DEADLINE) == [Key("escape")]
    assert time.monotonic() - started >= ESC_WAIT


class ScriptedTerminal:
    """Stands for a RawTerminal in read_keys: each read returns the next chunk."""

    def __init__(self, *chunks):
        self.chunks = list(chunks)
        self.closed = False
        self.timeouts = []

    def read(self, timeout):
        self.timeouts.append(timeout)
        return self.chunks.pop(0) if self.chunks else b""


def test_read_keys_joins_a_sequence_cut_between_reads():
    terminal = ScriptedTerminal(b"a\x1b", b"[1;5", b"A")
    assert read_keys(terminal, KeyDecoder(), 1) == [Key("char", "a"), Key("up", ctrl=True)]
    assert terminal.timeouts[0] == 1 and all(t <= ESC_WAIT for t in terminal.timeouts[1:])


def test_read_keys_does_not_wait_when_nothing_ends_in_esc():
    terminal = ScriptedTerminal(b"\x1bx\x1b[A")
    assert read_keys(terminal, KeyDecoder(), 1) == [Key("char", "x", alt=True), Key("up")]
    assert terminal.timeouts == [1]


def test_a_window_change_sends_sigwinch_which_sets_resized_and_wakes_read(children, pty):
    child = spawn(children, pty, """
        report("ready")
        terminal.read(10)
        report(f"resized={terminal.resized} size={terminal.size()}")
    """, session=True)
    child.expect("ready")
    fcntl.ioctl(child.master, termios.TIOCSWINSZ, struct.pack("HHHH", 20, 50, 0, 0))
    child.expect("resized=True size=(50, 20)")
    assert child.finish() == 0, child.errors


def test_ctrl_c_typed_in_raw_mode_is_still_sigint(children, pty):
    child = spawn(children, pty, """
        try:  # Ctrl-C may come while "ready" is being reported
            report("ready")
            terminal.read(10)
        except KeyboardInterrupt:
            report("interrupted")
    """, session=True)
    child.expect("ready")
    os.write(child.master, b"\x03")
    child.expect("interrupted")
    assert child.finish() == 0, child.errors


def test_ctrl_z_restores_then_fg_sets_raw_mode_again_and_calls_on_resume(children, pty):
    child = spawn(children, pty, """
        terminal.on_resume = lambda: report("resumed")
        report("ready")
        while terminal.read(None) != b"q":
            pass
        terminal.stop()
    """)
    before = child.before
    child.expect("ready")
    assert raw_mode_is_on(child.slave)
    os.kill(child.process.pid, signal.SIGTSTP)
    _, status = os.waitpid(child.process.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status)
    assert termios.tcgetattr(child.slave) == before  # the shell gets its terminal back
    os.kill(child.process.pid, signal.SIGCONT)
    child.expect("resumed")
    assert raw_mode_is_on(child.slave)
    os.write(child.master, b"q")
    assert child.finish() == 0, child.errors
    assert termios.tcgetattr(child.slave) == before


def test_ctrl_z_where_no_shell_could_continue_us_keeps_raw_mode(children, pty):
    # A new session's process group is orphaned: the kernel does not stop it.
    child = spawn(children, pty, """
        report("ready")
        report(f"read {terminal.read(60)!r}")  # the signal ends the wait, once handled
        terminal.read(60)  # (the parent looks at the settings meanwhile)
    """, session=True)
    child.expect("ready")
    os.kill(child.process.pid, signal.SIGTSTP)
    child.expect("read b''")
    assert raw_mode_is_on(child.slave)
    os.write(child.master, b"q")
    assert child.finish() == 0, child.errors


EXITS = {
    "normal exit (atexit)": ("", 0),
    "uncaught exception": ("raise RuntimeError('boom')", 1),
    "SIGTERM handled by sys.exit": (
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))\n"
        "report('ready')\n"
        "terminal.read(None)", 143),
    "os._exit after restore_all": ("restore_all()\nos._exit(3)", 3),
}


@pytest.mark.parametrize("code, status", EXITS.values(), ids=list(EXITS))
def test_every_way_out_restores_the_terminal(children, pty, code, status):
    child = spawn(children, pty, code)
    if "ready" in code:
        child.expect("ready")
        assert raw_mode_is_on(child.slave)
        child.process.send_signal(signal.SIGTERM)
    assert child.finish() == status, child.errors
    assert termios.tcgetattr(child.slave) == child.before


def test_os_exit_without_restore_all_would_leave_raw_mode(children, pty):
    child = spawn(children, pty, "os._exit(3)")
    assert child.finish() == 3
    assert raw_mode_is_on(child.slave)  # why restore_all() exists


def test_ctrl_z_does_nothing_where_the_shell_ignores_it(children, pty):
    child = spawn(children, pty, """
        terminal.stop()
        signal.signal(signal.SIGTSTP, signal.SIG_IGN)  # as a shell without job control does
        terminal.start()
        report("ready")
        report(f"read {terminal.read(10)!r}")
    """)
    child.expect("ready")
    os.kill(child.process.pid, signal.SIGTSTP)
    os.write(child.master, b"q")
    child.expect("read b'q'")  # a stopped child would never read it
    assert child.finish() == 0, child.errors


class FakeKeyboard:
    """What read_keys asks of a terminal: reads, each the next chunk or b"" (a timeout)."""

    def __init__(self, *chunks):
        self.chunks = list(chunks)
        self.closed = False

    def read(self, timeout):
        return self.chunks.pop(0) if self.chunks else b""


def test_read_keys_ends_a_paste_that_pauses_without_its_end_marker(monkeypatch):
    monkeypatch.setattr(terminal_module, "PASTE_WAIT", 0.05)
    keyboard = FakeKeyboard(b"\x1b[200~one", b"", b" two")  # a wake-up between: no end
    decoder = KeyDecoder()
    assert read_keys(keyboard, decoder, 0) == [Key("paste", text="one two")]
    keyboard.chunks = [b"typed"]
    assert [key.text for key in read_keys(keyboard, decoder, 0)] == list("typed")
