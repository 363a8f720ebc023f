"""bash: run a shell command and give the model the end of its output.

The command runs as `bash -c <command>` in the working directory, stdout and stderr
merged, stdin empty. The model sees the END of the output (where a build log's error
is), at most 2000 lines or 50 KB, the whole saved in a file when cut. Any ending but
exit status 0 is an error the model reads:

    echo x; exit 3   -> error "x\\n\\n\\nCommand exited with code 3"

The seam: `run` (plain `run_plain`: the shell in its own process group, so one kill on
abort or timeout stops all it started); the product's tools/bash.py passes its own (live
output, a bounded tail, the reaper, a missing directory and a signal death worded).
Left out: live output; a background job holding the pipe open is waited for 1 s at most.
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

from .read import MAX_BYTES, MAX_LINES, cap
from .tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result

DESCRIPTION = (
    "Run a bash command in the working directory. Its stdout and stderr come back merged. "
    f"Only the end of the output is returned: the last {MAX_LINES} lines or "
    f"{MAX_BYTES // 1024}KB, whichever is smaller; when output is cut, the full "
    "output is saved to a temp file whose path is given. A non-zero exit status makes the "
    "result an error. There is no default time limit: pass timeout (seconds) for commands "
    "that might not finish. stdin is empty, so interactive commands cannot be answered.")

PARAMETERS = {"type": "object", "required": ["command"], "properties": {
    "command": {"type": "string", "description": "The command to run"},
    "timeout": {"type": "number",
                "description": "Stop the command after this many seconds (default: no limit)"},
}}


@dataclass
class Ran:
    """How a command ended: what `run` returns."""
    status: int  # the exit status (below 0: killed by that signal)
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
    deadline = time.monotonic() + (timeout or float("inf"))
    stopped_by = None
    while proc.poll() is None and stopped_by is None:
        if ctx.abort.wait(0.05):
            stopped_by = "aborted"
        elif time.monotonic() > deadline:
            stopped_by = "timeout"
    if stopped_by:
        os.killpg(proc.pid, signal.SIGKILL)  # the shell's whole group: `sleep 9 & wait` too
    status = proc.wait()
    reader.join(1)
    return Ran(status, stopped_by, tail(b"".join(chunks)))


def tail(data: bytes) -> str:
    """The end of the output; when cut, a notice and the whole of it saved in a file."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    kept, cut_by = cap(lines[::-1])  # read's limits, counted from the end
    if cut_by is None:
        return "\n".join(lines)
    with tempfile.NamedTemporaryFile(prefix="miniagent-bash-", suffix=".log", delete=False) as f:
        f.write(data)
    first = len(lines) - len(kept) + 1
    return "\n".join(reversed(kept)) + f"\n\n[Showing lines {first}-{len(lines)} of " \
                                      f"{len(lines)}. Full output: {f.name}]"


def create_bash_tool(run: Callable[..., Ran] = run_plain) -> Tool:
    """The bash tool; `run` is the seam (see the module docstring)."""
    def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
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
    if ran.status != 0:
        raise ToolError(f"{text}\n\nCommand exited with code {ran.status}")
    return text_result(text, ran.details)
