"""bash: run a shell command and give the model the end of its output.

The model sends one command string; it runs as `bash -c <command>` in the working
directory, stdout and stderr merged, stdin empty. The result is the END of the output,
at most 2000 lines or 50 KB (a build log's error and summary are at its end), and any
ending but exit status 0 makes it an error the model reads:

    echo hi                 -> "hi\\n"
    true                    -> "(no output)"
    echo x; exit 3          -> error "x\\n\\n\\nCommand exited with code 3"

The seam: `run` says how a command is run. The plain `run_plain` starts the shell in a
new session (its own process group, so one kill stops it and everything it started),
reads its output in a thread, and kills the group on abort or timeout. The product
passes its own (tools/bash.py): live output, the tail kept in memory and the whole
output in a file, background jobs not waited for, the reaper.

Left out of the plain form: live output while the command runs, and a background job
that keeps the output pipe open is waited for at most a second.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional

from .read import MAX_BYTES, MAX_LINES
from .tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result

DESCRIPTION = (
    "Run a bash command in the working directory. Its stdout and stderr come back merged. "
    f"Only the end of the output is returned: the last {MAX_LINES} lines or "
    f"{MAX_BYTES // 1024}KB, whichever is smaller; when output is cut, the full "
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


@dataclass
class Ran:
    """How a command ended: what `run` returns."""
    status: int  # the exit status; below 0, the signal that killed the shell
    stopped_by: Optional[str]  # "timeout", "aborted" or None
    output: str  # what the model sees of the output, with a notice if it was cut
    details: Optional[Dict] = None


def run_plain(command: str, cwd: str, timeout: Optional[float], ctx: ToolContext) -> Ran:
    """bash's seam, plain: run `command` until it ends, `timeout` passes or ctx.abort is set."""
    proc = subprocess.Popen([shutil.which("bash") or "sh", "-c", command], cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(proc.stdout.read1, b"")),
                              daemon=True)  # a thread, so that waiting can watch the clock
    reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    stopped_by = None
    while proc.poll() is None and stopped_by is None:
        if ctx.abort.wait(0.05):
            stopped_by = "aborted"
        elif deadline is not None and time.monotonic() > deadline:
            stopped_by = "timeout"
    if stopped_by:
        os.killpg(proc.pid, signal.SIGKILL)  # the shell's whole group: `sleep 9 & wait` too
    status = proc.wait()
    reader.join(1)
    return Ran(status, stopped_by, tail(b"".join(chunks)))


def tail(data: bytes) -> str:
    """The end of the output; when cut, a notice and the whole of it saved in a file."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    kept = lines[-MAX_LINES:]
    while len(kept) > 1 and len("\n".join(kept).encode("utf-8")) > MAX_BYTES:
        kept = kept[len(kept) // 10 or 1:]  # drop a tenth at a time: few joins
    if len(kept) == len(lines):
        return "\n".join(kept)
    fd, path = tempfile.mkstemp(prefix="miniagent-bash-", suffix=".log")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    first = len(lines) - len(kept) + 1
    return "\n".join(kept) + f"\n\n[Showing lines {first}-{len(lines)} of {len(lines)}. " \
                             f"Full output: {path}]"


def create_bash_tool(run: Callable[..., Ran] = run_plain) -> Tool:
    """The bash tool; `run` is the seam (see the module docstring)."""
    def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
        if not os.path.isdir(ctx.cwd):
            raise ToolError(f"Working directory does not exist: {ctx.cwd}\n"
                            f"The command was not run.")
        timeout = args.get("timeout")
        timeout = timeout if timeout and timeout > 0 else None  # 0 or less: no limit
        return outcome(run(args["command"], ctx.cwd, timeout, ctx), timeout)

    return Tool("bash", DESCRIPTION, PARAMETERS, execute)


def outcome(ran: Ran, timeout: Optional[float]) -> ToolResult:
    """The result; any ending but exit status 0 raises an error that holds the output."""
    text = ran.output or "(no output)"
    if ran.stopped_by == "aborted":
        raise ToolError(f"{text}\n\nCommand aborted")
    if ran.stopped_by == "timeout":
        raise ToolError(f"{text}\n\nCommand timed out after {timeout:g} seconds and was "
                        f"stopped (with every process it started). If it needs more "
                        f"time, run it again with a larger timeout.")
    if ran.status < 0:  # the shell itself died from a signal we did not send
        name = signal.strsignal(-ran.status) or "unknown signal"
        raise ToolError(f"{text}\n\nCommand was killed by signal {-ran.status} ({name})")
    if ran.status != 0:
        raise ToolError(f"{text}\n\nCommand exited with code {ran.status}")
    return text_result(text, ran.details)
