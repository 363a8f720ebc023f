"""Running a command as a child process: start it, pump its output, kill it cleanly.

This is the machinery under the bash tool (bash.py says what the model sees; this file
says how the bytes get there). One call does it all:

    with OutputSink() as sink:
        status, stopped_by, left = run_command("seq 100000", "/repo", sink, timeout=None,
                                               abort=abort, on_output=show_progress)
    # status 0, stopped_by None, left []; sink.total_bytes == 588895, sink.newlines == 100000,
    # sink.tail holds the last ~100 KB, sink.path names a temp file with all of it

Three problems, three answers:

  * Output can be huge (a build log, `yes`). However much a command prints, only
    ~100 KB of it is held in memory; every byte goes to a temp file (OutputSink).

  * A command can hang or be aborted. The calling thread reads the pipe itself and
    waits in `poll` at most 100 ms at a time, so it notices an abort or a timeout
    within 100 ms even when the command prints nothing. The command starts in a new
    session (its own process group), so one `killpg(SIGKILL)` stops the shell AND
    everything it started (`sleep 60 & sleep 60`); reaper.kill_tree adds what left
    the group (`setsid`), and reaper.py sweeps up at exit.

  * A command can leave a background job behind (`server &`) that keeps the pipe open
    after the shell has exited. We stop reading once the shell is gone and the pipe is
    quiet, instead of waiting for that job, and name what is left in the shell's process
    group, so the result can say that something kept running (its output is no longer
    read; the reaper ends it when miniagent exits).

A child that must outlive the call starting it (an extension's: a sub-agent, a
background job) starts the same way (`start_program`, spawned.py), and the reaper
tracks it until it ends.

Left out: Windows (poll() does not exist there, nor process groups), a terminal for the
command (stdin is empty; see NON_INTERACTIVE_ENV), and cleaning up old temp files.
The shell is bash unless the caller names another (settings.json's shellPath).
"""

import os
import secrets
import select
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ...core.tools import ToolError
from .reaper import group_members, kill_tree, track, tracked
from .truncate import DEFAULT_MAX_BYTES, Truncation, truncate_tail

ROLLING_BYTES = 2 * DEFAULT_MAX_BYTES
"""Output kept in memory: twice the shown tail, so the tail starts on a whole line."""
READ_BYTES = 64 * 1024
POLL_SECONDS = 0.1
"""Longest wait in poll(): how quickly an abort or a timeout is noticed."""
UPDATE_SECONDS = 0.1
"""Shortest interval between two live updates."""

# The command has no terminal, so whatever would wait on one is switched off.
NON_INTERACTIVE_ENV = {
    "PAGER": "cat", "GIT_PAGER": "cat",  # `git log` would wait for a keypress in less
    # `true` exits at once and leaves the file as it was: `git commit` without -m
    # aborts ("empty commit message"), `git rebase -i` runs its plan unchanged,
    # instead of both waiting forever for an editor nobody sees.
    "GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true", "EDITOR": "true", "VISUAL": "true",
    "GIT_TERMINAL_PROMPT": "0",  # a fetch that needs a password fails instead of asking
}


def run_command(command: str, cwd: str, sink: "OutputSink", timeout: Optional[float],
                abort: threading.Event, on_output: Callable[[], None],
                shell: Optional[str] = None,
                launcher: Sequence[str] = ()) -> Tuple[int, Optional[str], List[int]]:
    """Run `command` in `cwd` with its output going to `sink`, until it is over.

    Returns (exit status, who stopped it, what it left running): `exit 3` -> (3, None,
    []); `sleep 1000 &` -> (0, None, [4242]); a timeout -> (-9, "timeout", []); an abort
    -> (-9, "aborted", []); a status below 0 is the signal that killed the shell.
    `on_output` is called at most every 100 ms while output arrives.
    `shell` is settings.json's shellPath; None finds bash. `launcher` goes before the
    shell's argv: the sandbox's (sandbox/launch.py), which confines it and then runs it.
    """
    proc = start(command, cwd, shell, launcher)
    with tracked(proc):  # so that the final sweep can find it (reaper.py)
        try:
            stopped_by = pump(proc, sink, timeout, abort, on_output)
        except BaseException:
            kill_tree(proc.pid)  # never leave a command running behind a failure of ours
            raise
        finally:
            proc.stdout.close()
            proc.wait()  # reap it: a killed child stays a zombie until its parent waits
    # The shell is gone; whatever is left in its process group was started to outlive
    # it (`server &`). It keeps running, so the caller can say so.
    return proc.returncode, stopped_by, group_members(proc.pid) if stopped_by is None else []


def find_shell() -> str:
    """/bin/bash, else bash on PATH, else sh."""
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


class TreeProcess(subprocess.Popen):
    """A child leading its own process group, whose kill() stops everything it started."""

    def kill(self) -> None:
        kill_tree(self.pid)


def start(command: str, cwd: str, shell: Optional[str] = None,
          launcher: Sequence[str] = ()) -> TreeProcess:
    shell = shell or find_shell()
    try:
        # One pipe for both, so the output keeps the order it was written in.
        return open_process([*launcher, shell, "-c", command], cwd, subprocess.DEVNULL,
                            subprocess.STDOUT)
    except OSError as exc:
        raise ToolError(f"Could not start the shell {shell}: {exc}") from exc


def open_process(argv: Sequence[str], cwd: str, stdin: Any, stderr: Any,
                 env: Optional[Dict[str, str]] = None) -> TreeProcess:
    """Start `argv` as every command starts: its stdout a pipe, in a new session (so
    it leads a new process group and one killpg reaches every process it starts), with
    nothing that would wait for a terminal (NON_INTERACTIVE_ENV). `env` adds to ours."""
    return TreeProcess(list(argv), cwd=cwd, stdin=stdin, stdout=subprocess.PIPE,
                       stderr=stderr, start_new_session=True,
                       env=dict(os.environ, **NON_INTERACTIVE_ENV, **(env or {})))


def start_program(argv: Sequence[str], cwd: str, stdin: Any = subprocess.DEVNULL,
                  stderr: Any = subprocess.STDOUT, env: Optional[Dict[str, str]] = None
                  ) -> TreeProcess:
    """A program that outlives the call starting it (an extension's, ctx.start_program):
    started as a command is, and known to the reaper until it ends, so it dies with us."""
    proc = open_process(argv, cwd, stdin, stderr, env)
    track(proc)
    return proc


def pump(proc: subprocess.Popen, sink: "OutputSink", timeout: Optional[float],
         abort: threading.Event, on_output: Callable[[], None]) -> Optional[str]:
    """Move output from the pipe into `sink` until the command is over.

    Returns None when it ended by itself, "timeout" or "aborted" when we killed it.
    """
    fd = proc.stdout.fileno()
    poller = select.poll()  # unlike select.select(), poll() works for any fd number
    poller.register(fd, select.POLLIN)
    deadline = None if timeout is None else time.monotonic() + timeout
    pipe_open = True
    last_update = 0.0
    unreported = False  # output arrived since the last live update
    while True:
        if abort.is_set():
            kill_tree(proc.pid)
            return "aborted"
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            kill_tree(proc.pid)
            return "timeout"
        wait = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - now)
        if unreported:  # wake up when the pending update is due
            wait = min(wait, max(0.0, last_update + UPDATE_SECONDS - now))
        if not pipe_open:
            # The pipe is closed but the shell still runs (it closed its stdout):
            # wait for it in short steps so that abort and timeout still work.
            try:
                proc.wait(wait)
                return None
            except subprocess.TimeoutExpired:
                continue
        if poller.poll(wait * 1000):  # readable, or closed (then os.read returns b"")
            data = os.read(fd, READ_BYTES)
            if not data:
                pipe_open = False  # end of file: every process closed its end
                continue
            sink.write(data)
            unreported = True
        elif proc.poll() is not None:
            return None  # the shell is done and the pipe is quiet (a background job may hold it)
        # Checked after quiet polls too: output that came too soon after the last update
        # is shown once the interval has passed, not only when more output arrives
        # (`echo building; make` must not hide "building" for as long as make is silent).
        if unreported and time.monotonic() - last_update >= UPDATE_SECONDS:
            last_update = time.monotonic()
            unreported = False
            on_output()


class OutputSink:
    """Every byte of a command's output: the tail in memory, all of it in a temp file.

        pipe --os.read--> write() --+--> tail: a rolling buffer of the last ~100 KB
                                    +--> temp file: every byte, opened once past 50 KB

    (tests/bench_tools.py measures it: with 200 MB of output the process's peak memory
    is under 1 MB above that of the same command writing to /dev/null.)

    Example: after 200 MB of output, `tail` holds the last 100 KB, `path` names a file
    with all 200 MB, `total_bytes` is 200000000 and `newlines` counts every line end,
    so a notice can number the lines of the whole output, not of the tail in memory.
    """

    def __init__(self) -> None:
        self.tail = bytearray()
        self.total_bytes = 0
        self.newlines = 0
        self.path: Optional[str] = None
        self.save_error: Optional[str] = None
        """Why the full output could not be kept in a file, once that has failed."""
        self._file = None

    def __enter__(self) -> "OutputSink":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def write(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.newlines += data.count(b"\n")
        self.tail += data
        if self._file is not None:
            self._save(lambda: self._file.write(data))
        elif self.total_bytes > DEFAULT_MAX_BYTES and self.save_error is None:
            self._spill()  # the tail is still complete here: trimming starts at 100 KB
        self._trim()

    def _spill(self) -> None:
        """Open the temp file and write everything so far into it."""
        self.path = os.path.join(tempfile.gettempdir(),
                                 f"miniagent-bash-{secrets.token_hex(8)}.log")

        def create() -> None:
            self._file = open(self.path, "xb")  # "x": never write into someone else's file
            self._file.write(self.tail)
        self._save(create)

    def _save(self, step: Callable[[], None]) -> None:
        """Do one step of keeping the full output; if it fails, keep going without it.

        The file is a convenience, the command's result is not: a full disk, a TMPDIR
        that is not a folder or a file size limit must not kill the command or hide
        its output. The half-written file is removed and the reason kept for the
        notice (`save_error`)."""
        try:
            step()
        except OSError as exc:
            self.save_error = f"{exc.strerror or exc} ({self.path})"
            self.close()
            self._file = None
            try:
                os.remove(self.path)
            except OSError:
                pass  # never created, or already gone
            self.path = None

    def _trim(self) -> None:
        """Drop the oldest bytes beyond ROLLING_BYTES, cutting at a character start."""
        cut = len(self.tail) - ROLLING_BYTES
        if cut <= 0:
            return
        # UTF-8 continuation bytes look like 0b10xxxxxx; move past them so the kept
        # bytes begin with a whole character.
        while cut < len(self.tail) and self.tail[cut] & 0xC0 == 0x80:
            cut += 1
        del self.tail[:cut]

    def truncation(self) -> Truncation:
        """The tail as the model sees it, with totals that describe the whole output.

        Lines are counted as truncate.py does (`text.split("\\n")`): output that ends in
        a newline has one more, empty, line, so `seq 100000` has 100001.
        """
        truncation = truncate_tail(self.tail.decode("utf-8", errors="replace"))
        return replace(truncation, total_lines=self.newlines + 1,
                       total_bytes=self.total_bytes)

    def save_full_output(self) -> Optional[str]:
        """The path of a file that holds every byte so far, flushed to disk, or None
        when it could not be written (`save_error` says why).

        Output under 50 KB was never spilled; it is written now (a notice that cuts
        2001 short lines must still point to all of them).
        """
        if self._file is None and self.save_error is None:
            self._spill()
        if self._file is not None:
            self._save(self._file.flush)
        return self.path

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass  # its last bytes could not be written: save_error tells why
