"""bash: run a shell command and give the model the end of its output.

The model sends one command string; it runs as `bash -c <command>` (or `sh -c` where
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

This file is the tool: what the model sends, what it gets back. How the command is run
lives in process.py: its output streams into an OutputSink that keeps only the last
~100 KB in memory and every byte in a temp file, a timeout or an abort kills the
command's whole process group within 100 ms, and a background job (`server &`) does not
keep the call waiting.

Left out: interactive commands (stdin is empty), a command prefix from settings (the
shell itself can be chosen: settings.json's shellPath reaches `create_tool(shell)`),
and cleaning up old temp files.
"""

import os
import signal
from typing import Dict, Optional, Tuple

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .hardening.process import OutputSink, run_command
from .hardening.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

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


def create_tool(shell: Optional[str] = None) -> Tool:
    """The bash tool; `shell` (settings.json's shellPath) replaces the bash found on PATH."""
    return Tool("bash", DESCRIPTION, PARAMETERS,
                lambda call_id, args, ctx: execute(call_id, args, ctx, shell))


def execute(call_id: str, args: Dict, ctx: ToolContext,
            shell: Optional[str] = None) -> ToolResult:
    check_not_aborted(ctx.abort)
    if not os.path.isdir(ctx.cwd):
        raise ToolError(f"Working directory does not exist: {ctx.cwd}\n"
                        f"The command was not run.")
    timeout = args.get("timeout")
    timeout = timeout if timeout and timeout > 0 else None  # 0 or less means no limit
    with OutputSink() as sink:
        returncode, stopped_by = run_command(
            args["command"], ctx.cwd, sink, timeout, ctx.abort,
            on_output=lambda: ctx.on_update(partial_result(sink)), shell=shell)
        return finish(sink, returncode, stopped_by, timeout)


def finish(sink: OutputSink, returncode: int, stopped_by: Optional[str],
           timeout: Optional[float]) -> ToolResult:
    """The final result; any ending but a zero exit status raises an error with the output."""
    text, details = final_text(sink)
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
