"""The stdio transport: an MCP server as our child process, one JSON message a line.

Most MCP servers are programs you start (`npx -y @modelcontextprotocol/server-x`,
`uvx mcp-server-time`). We start one as a child process and talk over its pipes:

    us --stdin-->  server     one JSON-RPC message per line, UTF-8 (JSON escapes any
    us <--stdout-- server     newline inside a string, so a line is always one message)
       <--stderr--            its log, for people: we keep the last ~4 KB for errors

Everything the server sends is hostile until proven otherwise, so each way it can go
wrong ends the transport with one line saying why (on_closed), never a hang or a crash:

    it exits                      "exited with status 1: <the tail of its stderr>"
    it prints a line that is      "sent a line that is not JSON: "Starting up...""
    not JSON (a banner)           (the spec reserves stdout for MCP messages)
    it sends a line of 50 MB      "sent a line over 16 MB" (we never hold more than that)

Stopping has to reach more than our child. A wrapper like npx or uvx starts the real
server as its own child, and killing only the wrapper would leave the server running.
So the child starts in a session of its own (a new process group), and close() ends
the whole group, gently first:

    close stdin -> wait ~1 s -> SIGTERM the group -> wait ~1 s -> SIGKILL the group

Two threads read: one the stdout (messages, handed to on_message in order), one the
stderr (the tail). Writes come from any thread, one whole line at a time.

Left out: Windows (no process groups), and a send that blocks forever because the
server stopped reading its stdin (close() still ends it: the kill breaks the pipe).
"""

import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from contextlib import ExitStack
from typing import Dict, List, Optional

from ..files.text import one_line
from ..tools.hardening.reaper import kill_tree, tracked
from .transport import Transport, TransportClosed

MAX_LINE_BYTES = 16 * 1024 * 1024
STDERR_KEPT_BYTES = 4096
STDERR_SHOWN_CHARS = 600  # the end of a traceback: where the reason is
STOP_SECONDS = 1.0
"""How long each gentle step of close() waits before the next, firmer one."""
EXITED_SECONDS = 1.0
"""After stdout ends: how long we wait for the exit status and the last of stderr."""
# ANSI colour and cursor sequences, which servers like to put in their logs.
ESCAPE_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


class StdioTransport(Transport):
    """A server started as `command args...` in `cwd`, with exactly `env` as its
    environment (the caller chooses it: config.resolved_env)."""

    def __init__(self, command: str, args: List[str], env: Dict[str, str], cwd: str) -> None:
        self.command = command
        self.args = list(args)
        self.env = env
        self.cwd = cwd
        self._proc: Optional[subprocess.Popen] = None
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._stderr_reader: Optional[threading.Thread] = None
        self._send_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self._closed = False
        self._report_lock = threading.Lock()
        self._reported = False  # on_closed has been called
        self._tracking = ExitStack()

    def describe(self) -> str:
        return shlex.join([self.command, *self.args])

    def start(self) -> None:
        try:
            self._proc = subprocess.Popen(
                [self.command, *self.args], cwd=self.cwd, env=self.env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True)  # its own process group: see close()
        except FileNotFoundError as exc:
            if exc.filename == self.cwd:
                raise TransportClosed(f"working directory not found: {self.cwd}") from exc
            raise TransportClosed(f"command not found: {self.command}") from exc
        except OSError as exc:
            raise TransportClosed(f"could not start {self.command}: {exc.strerror or exc}") from exc
        # Known to the final sweep at exit (reaper.py), should close() never run.
        self._tracking.enter_context(tracked(self._proc))
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True,
                                               name="mcp-stderr")
        self._stderr_reader.start()
        threading.Thread(target=self._read_stdout, daemon=True, name="mcp-stdout").start()

    # --- Sending -----------------------------------------------------------------------

    def send(self, message: dict) -> None:
        # json.dumps escapes every line break (and, by default, every non-ASCII
        # character), so the message is one line whatever its text holds.
        line = json.dumps(message).encode("ascii") + b"\n"
        with self._send_lock:
            try:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()
            except (OSError, ValueError) as exc:  # a broken pipe, or stdin already closed
                raise TransportClosed(self._gone_reason()) from exc

    def _gone_reason(self) -> str:
        if self._proc.poll() is None:
            return "stopped reading its input"
        return self._exit_reason()

    # --- Reading -----------------------------------------------------------------------

    def _read_stdout(self) -> None:
        """The reader thread: one message per line, until the pipe ends or a line is bad."""
        with self._proc.stdout as stdout:
            while True:
                # At most one byte past the cap: enough to know the line is too long.
                line = stdout.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return self._report_closed(self._ended_reason())
                if len(line) > MAX_LINE_BYTES:
                    return self._fail("sent a line over 16 MB")
                if not line.strip():
                    continue  # blank lines carry nothing; some servers print them
                try:
                    message = json.loads(line)
                except ValueError:
                    return self._fail(f"sent a line that is not JSON: {quoted(line)}")
                # A batch (a JSON list) is delivered one message at a time.
                for item in message if isinstance(message, list) else [message]:
                    self.on_message(item)

    def _fail(self, reason: str) -> None:
        """A server that breaks the protocol is stopped: nothing it says can be trusted."""
        self._report_closed(reason)
        self.close()

    def _ended_reason(self) -> str:
        """Why stdout ended: usually the server exited (with the tail of its stderr)."""
        try:
            self._proc.wait(EXITED_SECONDS)
        except subprocess.TimeoutExpired:
            return "closed its output"
        self._stderr_reader.join(EXITED_SECONDS)  # its last words may still be in the pipe
        return self._exit_reason()

    def _exit_reason(self) -> str:
        status = self._proc.returncode
        if status is not None and status < 0:
            reason = f"was killed by signal {-status}"
        else:
            reason = f"exited with status {status}"
        tail = self.stderr_tail()
        return f"{reason}: {tail}" if tail else reason

    def _report_closed(self, reason: str) -> None:
        with self._report_lock:
            if self._reported:
                return
            self._reported = True
        self.on_closed(reason)

    def _read_stderr(self) -> None:
        """The stderr thread: keep the last STDERR_KEPT_BYTES, drop the rest."""
        with self._proc.stderr as stderr:
            while True:
                chunk = stderr.read1(65536)
                if not chunk:
                    return
                with self._stderr_lock:
                    self._stderr += chunk
                    del self._stderr[:-STDERR_KEPT_BYTES]

    def stderr_tail(self) -> str:
        """The last lines of stderr (~600 characters) as one line, escapes and control characters
        removed: fit for an error message."""
        with self._stderr_lock:
            text = self._stderr.decode("utf-8", errors="replace")
        lines = text[-STDERR_SHOWN_CHARS:].splitlines()
        if len(text) > STDERR_SHOWN_CHARS and len(lines) > 1:
            lines = lines[1:]  # the first one was cut in the middle
        text = " ".join(lines)
        return one_line(CONTROL_CHARACTERS.sub(" ", ESCAPE_SEQUENCE.sub("", text)),
                        STDERR_SHOWN_CHARS)

    # --- Stopping ----------------------------------------------------------------------

    def close(self) -> None:
        """Stop the server and everything it started: idempotent, at most ~2 s, and a
        second caller waits until the first has finished."""
        with self._close_lock:
            if self._closed or self._proc is None:
                self._closed = True
                return
            self._stop_group()
            self._closed = True
            self._tracking.close()

    def _stop_group(self) -> None:
        self._close_stdin()  # a well-behaved server exits when its input ends
        if self._group_gone_within(STOP_SECONDS):
            return
        try:
            os.killpg(self._proc.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already empty
        if self._group_gone_within(STOP_SECONDS):
            return
        kill_tree(self._proc.pid)
        self._proc.wait()

    def _close_stdin(self) -> None:
        # A send stuck on a full pipe holds the lock; then we skip straight to SIGTERM,
        # which breaks the pipe and frees it.
        if self._send_lock.acquire(timeout=0.1):
            try:
                self._proc.stdin.close()
            except OSError:
                pass  # the server is gone and the last bytes could not be written
            finally:
                self._send_lock.release()

    def _group_gone_within(self, seconds: float) -> bool:
        """Wait until our child has exited and no process of its group is left."""
        deadline = time.monotonic() + seconds
        try:
            self._proc.wait(seconds)
        except subprocess.TimeoutExpired:
            return False
        while time.monotonic() < deadline:
            try:
                os.killpg(self._proc.pid, 0)  # signal 0: only asks whether any is left
            except (ProcessLookupError, PermissionError):
                return True
            time.sleep(0.01)  # SIGTERM takes effect quickly; there is no event to wait on
        return False


def quoted(line: bytes) -> str:
    """The start of a bad line, quoted, as one line of text."""
    text = line[:80].decode("utf-8", errors="replace")
    return '"' + one_line(CONTROL_CHARACTERS.sub(" ", text)) + ('..."' if len(line) > 80 else '"')
