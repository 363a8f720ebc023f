"""bash: run a shell command, stream its output, keep memory bounded, kill it cleanly.

The model sends one command string; it runs as `bash -c <command>` (or `sh -c` where
there is no bash) in the session's working directory, with stdout and stderr merged into
one pipe in the order they were written, and stdin empty. The command has no terminal,
so whatever would wait on one is switched off in its environment:
  * pagers (`PAGER=cat`, `GIT_PAGER=cat`), so nothing waits for a keypress;
  * editors (`GIT_EDITOR`, `GIT_SEQUENCE_EDITOR`, `EDITOR`, `VISUAL` set to `true`, a
    program that exits at once): the file handed to the "editor" comes back as it was,
    so `git commit` without -m aborts ("empty commit message") and `git rebase -i` runs
    its plan unchanged, instead of waiting forever for an editor nobody sees;
  * git's credential prompt (`GIT_TERMINAL_PROMPT=0`), so a fetch or push that needs
    a password fails with a message instead of hanging.

The result is the END of the output, at most 2000 lines or 50 KB (the error and the
summary are at the end of a build log):

    echo hi                 -> "hi\\n"
    true                    -> "(no output)"
    echo x; exit 3          -> error "x\\n\\n\\nCommand exited with code 3"
    seq 100000              -> the last 2000 lines, then
                               "[Showing lines 98002-100001 of 100001. Full output: /tmp/miniagent-bash-1f2e....log]"

Lines are counted by the `text.split("\\n")` rule (truncate.py): output that ends in a
newline has one more, empty, "line" after it, which is why `seq 100000` reports 100001.
pi counts the same way, and models key on these numbers, so we keep its rule.

How the output flows, so that however much a command prints, only ~100 KB of it is held
in memory (tests/bench_tools.py measures it: with 200 MB of output the process's peak
memory is under 1 MB above that of the same command writing to /dev/null):

    pipe --os.read--> OutputSink --+--> rolling buffer: the last ~100 KB, for the result
                                   +--> temp file: every byte, opened once past 50 KB
                                   +--> on_update: the tail, at most every 100 ms

The calling thread reads the pipe itself, waiting in `poll` for at most 100 ms at a
time, so it notices an abort or a timeout within 100 ms even when the command prints
nothing. The command starts in a new session (its own process group), so a timeout or an
abort kills the shell AND everything it started (`sleep 60 & sleep 60`) with one
`killpg(SIGKILL)`. When the shell exits normally but a background job it started still
holds the pipe open (`server &`), we stop reading once the pipe is quiet instead of
waiting for that job.

Left out: Windows (poll() does not exist there), interactive commands (stdin
is empty), a custom shell or command prefix from settings, and cleaning up old temp files.
"""

import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import replace
from typing import Dict, Optional

from . import Tool, ToolContext, ToolError, ToolResult, text_result
from .paths import check_not_aborted
from .truncate import (DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, Truncation, format_size,
                       truncate_tail)

ROLLING_BYTES = 2 * DEFAULT_MAX_BYTES
"""Output kept in memory: twice the shown tail, so the tail starts on a whole line."""
READ_BYTES = 64 * 1024
POLL_SECONDS = 0.1
"""Longest wait in poll(): how quickly an abort or a timeout is noticed."""
UPDATE_SECONDS = 0.1
"""Shortest interval between two live updates."""

DESCRIPTION = (
    "Run a bash command in the working directory. Its stdout and stderr come back merged. "
    f"Only the end of the output is returned: the last {DEFAULT_MAX_LINES} lines or "
    f"{DEFAULT_MAX_BYTES // 1024}KB, whichever is smaller; when output is cut, the full "
    "output is saved to a temp file whose path is given. A non-zero exit status makes the "
    "result an error. There is no default time limit: pass timeout (seconds) for commands "
    "that might not finish. stdin is empty, so interactive commands cannot be answered.")

PARAMETERS = {
    "type": "object",
    "required": ["command"],
    "properties": {
        "command": {"type": "string", "description": "The command to run"},
        "timeout": {"type": "number",
                    "description": "Stop the command after this many seconds (default: no limit)"},
    },
}


def create_tool() -> Tool:
    return Tool("bash", DESCRIPTION, PARAMETERS, execute)


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    if not os.path.isdir(ctx.cwd):
        raise ToolError(f"Working directory does not exist: {ctx.cwd}\n"
                        f"The command was not run.")
    timeout = args.get("timeout")
    timeout = timeout if timeout and timeout > 0 else None
    sink = OutputSink()
    try:
        proc = start(args["command"], ctx.cwd)
        try:
            stopped_by = pump(proc, sink, timeout, ctx)
        except BaseException:
            kill_group(proc)  # never leave a command running behind a failure of ours
            raise
        finally:
            proc.stdout.close()
            proc.wait()
        return finish(sink, proc.returncode, stopped_by, timeout)
    finally:
        sink.close()


def find_shell() -> str:
    """/bin/bash, else bash on PATH, else sh."""
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


# Why each is set: see the module docstring (no terminal, so nothing may wait for one).
NON_INTERACTIVE_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_EDITOR": "true",
                       "GIT_SEQUENCE_EDITOR": "true", "EDITOR": "true", "VISUAL": "true",
                       "GIT_TERMINAL_PROMPT": "0"}


def start(command: str, cwd: str) -> subprocess.Popen:
    shell = find_shell()
    try:
        return subprocess.Popen(
            [shell, "-c", command], cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            # A new session makes the shell the leader of a new process group, so one
            # killpg reaches every process the command starts.
            start_new_session=True,
            env=dict(os.environ, **NON_INTERACTIVE_ENV))
    except OSError as exc:
        raise ToolError(f"Could not start the shell {shell}: {exc}") from exc


def pump(proc: subprocess.Popen, sink: "OutputSink", timeout: Optional[float],
         ctx: ToolContext) -> Optional[str]:
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
        if ctx.abort.is_set():
            kill_group(proc)
            return "aborted"
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            kill_group(proc)
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
            ctx.on_update(sink.partial_result())


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def finish(sink: "OutputSink", returncode: int, stopped_by: Optional[str],
           timeout: Optional[float]) -> ToolResult:
    """The final result; any ending but a zero exit status raises an error with the output."""
    text, details = sink.final_text()
    if stopped_by == "aborted":
        raise ToolError(f"{text}\n\nCommand aborted")
    if stopped_by == "timeout":
        raise ToolError(f"{text}\n\nCommand timed out after {timeout:g} seconds and was "
                        f"stopped (with every process it started). If it needs more "
                        f"time, run it again with a larger timeout.")
    if returncode < 0:  # the shell itself died from a signal we did not send
        name = signal.strsignal(-returncode) or "unknown signal"
        raise ToolError(f"{text}\n\nCommand was killed by signal {-returncode} ({name})")
    if returncode != 0:
        raise ToolError(f"{text}\n\nCommand exited with code {returncode}")
    return text_result(text, details)


class OutputSink:
    """Every byte of a command's output: the tail in memory, all of it in a temp file.

    Example: after 200 MB of output, `tail` holds the last 100 KB, `path` names a file
    with all 200 MB, `total_bytes` is 200000000 and `newlines` counts every line end,
    so the notice numbers the lines of the whole output, not of the tail in memory.
    """

    def __init__(self) -> None:
        self.tail = bytearray()
        self.total_bytes = 0
        self.newlines = 0
        self.path: Optional[str] = None
        self._file = None

    def write(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.newlines += data.count(b"\n")
        self.tail += data
        if self._file is not None:
            self._file.write(data)
        elif self.total_bytes > DEFAULT_MAX_BYTES:
            self._spill()  # the tail is still complete here: trimming starts at 100 KB
        self._trim()

    def _spill(self) -> None:
        """Open the temp file and write everything so far into it."""
        self.path = os.path.join(tempfile.gettempdir(),
                                 f"miniagent-bash-{secrets.token_hex(8)}.log")
        self._file = open(self.path, "xb")
        self._file.write(self.tail)

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
        """The tail as the model sees it, with totals that describe the whole output."""
        truncation = truncate_tail(self.tail.decode("utf-8", errors="replace"))
        return replace(truncation, total_lines=self.newlines + 1,
                       total_bytes=self.total_bytes)

    def partial_result(self) -> ToolResult:
        truncation = self.truncation()
        details = {"truncation": truncation.to_details() if truncation.truncated else None,
                   "fullOutputPath": self.path}
        return text_result(truncation.content, details)

    def final_text(self):
        """(text, details) of the finished command: its output tail plus a notice if cut."""
        truncation = self.truncation()
        text = truncation.content or "(no output)"
        if not truncation.truncated:
            return text, None
        if self._file is None:
            self._spill()  # over 2000 lines but under 50 KB: still keep the full output
        self._file.flush()
        last = truncation.total_lines
        first = last - truncation.output_lines + 1
        if truncation.last_line_partial:
            notice = (f"[Showing the last {format_size(truncation.output_bytes)} of line "
                      f"{first}. Full output: {self.path}]")
        elif truncation.truncated_by == "lines":
            notice = f"[Showing lines {first}-{last} of {last}. Full output: {self.path}]"
        else:
            notice = (f"[Showing lines {first}-{last} of {last} "
                      f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {self.path}]")
        details = {"truncation": truncation.to_details(), "fullOutputPath": self.path}
        return f"{text}\n\n{notice}", details

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
