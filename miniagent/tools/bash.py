"""bash, hardened: the core's bash tool run through process.py.

What the model sends and sees, and the words for how a command ended, are the core's
(core/bash.py); this module is the `run` the product passes through its seam. The model sends one command string; it runs as `bash -c <command>` (or `sh -c` where
there is no bash) in the session's working directory, with stdout and stderr merged in
the order they were written, and stdin empty. Nothing may wait for a terminal the
command does not have: pagers, editors and git's password prompt are switched off
(process.NON_INTERACTIVE_ENV says how and why).

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

How the command is run lives in process.py: its output streams into an OutputSink that keeps only the last
~100 KB in memory and every byte in a temp file, a timeout or an abort kills the
command's whole process group within 100 ms, and a background job (`server &`) does not
keep the call waiting: the result says what kept running ("[Still running after the
command ended: pid 4242 (sleep 1000). ...]") and lists it in details["leftRunning"]. Two endings are worded here, not in the core: a working
directory that no longer exists ("Working directory does not exist: ...", the command
is not run) and a shell killed by a signal nobody here sent (check_signal).

Under a sandbox (sandbox/confine.py) the shell is started through its launcher, and a
failed command whose output reads like a denial gains one line saying the sandbox may
have refused it, so the model asks the user instead of retrying.

Left out: interactive commands (stdin is empty), a command prefix from settings (the
shell itself can be chosen: settings.json's shellPath reaches `create_tool(shell)`),
and cleaning up old temp files.
"""

import os
import signal
from typing import Dict, List, Optional, Tuple

from ..core.bash import Ran, create_bash_tool, outcome
from ..core.tools import Tool, ToolContext, ToolError, ToolResult, text_result
from . import Unconfined
from ..files.text import one_line
from .hardening.process import OutputSink, run_command
from .hardening.reaper import command_line
from .hardening.truncate import DEFAULT_MAX_BYTES, format_size


def create_tool(shell: Optional[str] = None, sandbox: Unconfined = Unconfined()) -> Tool:
    """The core's bash tool run through process.py; `shell` (settings.json's shellPath)
    replaces the bash found on PATH; `sandbox` confines the commands."""
    return create_bash_tool(lambda command, cwd, timeout, ctx: run(command, cwd, timeout,
                                                                   ctx, shell, sandbox))


def run(command: str, cwd: str, timeout: Optional[float], ctx: ToolContext,
        shell: Optional[str] = None, sandbox: Unconfined = Unconfined()) -> Ran:
    """The core bash's `run` seam, hardened: process.py's run_command into an OutputSink,
    through the sandbox's launcher."""
    if not os.path.isdir(cwd):  # else the error would be Popen's, naming no directory
        raise ToolError(f"Working directory does not exist: {cwd}\n"
                        f"The command was not run.")
    with OutputSink() as sink:
        status, stopped_by, left = run_command(
            command, cwd, sink, timeout, ctx.abort,
            on_output=lambda: ctx.on_update(partial_result(sink)), shell=shell,
            launcher=sandbox.launcher())
        ran = check_signal(Ran(status, stopped_by, *final_text(sink)))
    return with_left_running(with_sandbox_note(ran, sandbox), left)


def with_left_running(ran: Ran, pids: List[int]) -> Ran:
    """The result of a command that left processes running (`server &`) says so, naming
    them, and its details list them ("leftRunning": [{"pid", "command"}]) for whoever
    wants to manage them (the background extension makes them jobs)."""
    left = [{"pid": pid, "command": one_line(command_line(pid), 80)} for pid in pids]
    if not left:
        return ran
    named = ", ".join(f"pid {item['pid']} ({item['command'] or '?'})" for item in left)
    it = "it" if len(left) == 1 else "them"
    output = ran.output.rstrip("\n")
    ran.output = (f"{output}\n\n[Still running after the command ended: {named}. "
                  f"Output from {it} is no longer read; miniagent stops {it} when it exits.]")
    ran.details = {**(ran.details or {}), "leftRunning": left}
    return ran


def with_sandbox_note(ran: Ran, sandbox: Unconfined) -> Ran:
    """A failed command's output with the sandbox's note added when it reads like a
    denial (sandbox/confine.py decides); any other ending as it is."""
    note = sandbox.explain_failure(ran.output) if ran.status > 0 else None
    if note:
        output = ran.output.rstrip("\n")
        ran.output = f"{output}\n\n{note}"
    return ran


def finish(sink: OutputSink, returncode: int, stopped_by: Optional[str],
           timeout: Optional[float], sandbox: Unconfined = Unconfined()) -> ToolResult:
    """The core's outcome for a command run outside the tool (the user's `!cmd`)."""
    ran = check_signal(Ran(returncode, stopped_by, *final_text(sink)))
    return outcome(with_sandbox_note(ran, sandbox), timeout)


def check_signal(ran: Ran) -> Ran:
    """The ending the core words as an exit code: the shell killed by a signal nobody here
    sent (the OOM killer, a crash). "Command was killed by signal 9 (Killed)" says so."""
    if ran.status < 0 and ran.stopped_by is None:
        name = signal.strsignal(-ran.status) or "unknown signal"
        raise ToolError(f"{ran.output or '(no output)'}\n\nCommand was killed by signal "
                        f"{-ran.status} ({name})")
    return ran


def final_text(sink: OutputSink) -> Tuple[str, Optional[Dict]]:
    """(text, details) of the finished command: its output tail plus a notice if cut.

    The notice gives line numbers of the whole output and the file that holds all of
    it, so the model can read any part with `read` or `sed`.
    """
    truncation = sink.truncation()
    text = truncation.content or "(no output)"
    if not truncation.truncated:
        return text, None
    path = sink.save_full_output()
    # A full disk must not cost the model the output it can see: only the pointer goes.
    full = (f"Full output: {path}" if path else
            f"The full output could not be saved: {sink.save_error}")
    last = truncation.total_lines
    first = last - truncation.output_lines + 1
    if truncation.last_line_partial:  # one line longer than 50 KB: only its end is shown
        notice = (f"[Showing the last {format_size(truncation.output_bytes)} of line "
                  f"{first}. {full}]")
    elif truncation.truncated_by == "lines":
        notice = f"[Showing lines {first}-{last} of {last}. {full}]"
    else:
        notice = (f"[Showing lines {first}-{last} of {last} "
                  f"({format_size(DEFAULT_MAX_BYTES)} limit). {full}]")
    details = {"truncation": truncation.to_details(), "fullOutputPath": path}
    return f"{text}\n\n{notice}", details


def partial_result(sink: OutputSink) -> ToolResult:
    """What a front end shows while the command runs: the tail so far."""
    truncation = sink.truncation()
    details = {"truncation": truncation.to_details() if truncation.truncated else None,
               "fullOutputPath": sink.path}
    return text_result(truncation.content, details)
