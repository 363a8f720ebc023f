"""Background jobs: a command that keeps running while the conversation goes on.

The lesson. A tool call is a question and an answer: bash waits for the command to end.
A dev server or a watcher never ends, so the model needs another shape: START returns
at once with a job id, READ returns what the job printed since the last read (waiting a
little if nothing came yet), STOP ends it. In between, a thread per job empties its
pipe (a pipe nobody reads fills up, and the job then blocks on its next write) into
two places: a bounded buffer in memory, what READ serves, and a log file on disk with
every byte, which the model can `read` or `grep` when the buffer has moved on.

    bash {"command": "python3 -m http.server 8000", "background": true}
        -> "Started job 1 (pid 4242) in the background: python3 -m http.server 8000 ..."
    job_output {"id": 1, "wait_seconds": 5}
        -> "[job 1: running, pid 4242, 6s]\\nServing HTTP on 0.0.0.0 port 8000 ..."
    job_stop {"id": 1}
        -> "[job 1: stopped, pid 4242, 9s] python3 -m http.server 8000"

The user sees the same jobs: `/ps` lists them (age, state, last line), `/stop ID` ends
one. A foreground call that leaves something running (`npm run dev &`) is told so by
bash itself; with this extension on, each process it names becomes a job too (adopted:
its output went to the finished call's pipe, so none is captured, and /ps says so).

How the API carries it:
    api.extend_tool("bash", {"background": ...}, wrap)   the new argument, in bash's
                         schema only while this extension is loaded
    api.ctx.spawn(command, cwd)   the job started exactly as bash starts a command (the
                         shell, its environment, a process group of its own, the
                         sandbox); api.ctx.adopt(pid) for what a foreground call left
    api.register_tool / register_command      job_output, job_stop; /ps, /stop
    api.on("session_shutdown")    every job stopped when miniagent ends; the reaper
                         sweeps whatever is left on every way out (a signal too)

Left out: input to a job (stdin is empty), restarting one, jobs that outlive miniagent,
stopping what a job's shell left behind once that shell has ended (it ends with miniagent),
a job's output pushed to the model unasked (it reads when it chooses), and removing
the log files (they stay in the temp folder, as bash's full-output files do).
"""

import codecs
import os
import secrets
import tempfile
import threading
import time
from typing import Any, Dict, Optional

from miniagent.core.tools import Tool, ToolContext, ToolError, ToolResult, text_result

BUFFER_BYTES = 50 * 1024
"""Output kept in memory per job: the most one job_output returns."""
WAIT_CAP = 30.0
"""The longest job_output waits for output, whatever the model asks."""
STEP = 0.1
"""How often a wait looks at the abort flag."""

BACKGROUND = {"background": {
    "type": "boolean",
    "description": "Start the command as a background job and return at once with its id "
                   "(for servers, watchers, long builds). Read its output with job_output, "
                   "stop it with job_stop. timeout does not apply."}}


class Job:
    """One command running in the background, its output pumped by a thread of its own."""

    def __init__(self, number: int, command: str, process: Any, adopted: bool = False):
        self.number, self.command, self.process = number, command, process
        self.adopted, self.stopped = adopted, False
        self.started = time.monotonic()
        self.buffer = bytearray()  # the last BUFFER_BYTES of output
        self.total = 0  # bytes received, all told
        self.read_upto = 0  # of `total`: what job_output has handed out
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.changed = threading.Condition()
        self.reading = process.stdout is not None
        self.log_path: Optional[str] = None
        self.log = None
        if self.reading:
            self.open_log()
            threading.Thread(target=self.pump, daemon=True,
                             name=f"job {number}").start()

    def open_log(self) -> None:
        """The log file, 0600 and new (never someone else's); none if it cannot be made."""
        path = os.path.join(tempfile.gettempdir(),
                            f"miniagent-job-{self.number}-{secrets.token_hex(4)}.log")
        try:
            self.log = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                                 "wb")
            self.log_path = path
        except OSError:
            self.log = None  # a full disk costs the log, not the job

    def pump(self) -> None:
        """Move output from the pipe into the buffer and the log until the pipe closes."""
        for data in iter(lambda: self.process.stdout.read1(64 * 1024), b""):
            self.keep(data)
        self.process.stdout.close()
        with self.changed:
            self.reading = False
            if self.log is not None:
                self.log.close()
            self.changed.notify_all()

    def keep(self, data: bytes) -> None:
        with self.changed:
            if self.log is not None:
                try:
                    self.log.write(data)
                    self.log.flush()  # so that `read` of the log sees it now
                except OSError:  # a full disk: the buffer goes on without the log
                    self.log.close()
                    self.log, self.log_path = None, None
            self.buffer += data
            del self.buffer[:-BUFFER_BYTES]
            self.total += len(data)
            self.changed.notify_all()

    def wait_for_output(self, seconds: float, abort: threading.Event) -> None:
        """Until new output arrives, the output ends, `seconds` pass or the run aborts."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while self.total == self.read_upto and self.reading and not abort.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.changed.wait(min(left, STEP))

    def take_new_output(self) -> str:
        """What arrived since the last take; a gap the buffer no longer holds is named."""
        with self.changed:
            start = max(self.read_upto, self.total - len(self.buffer))
            skipped = start - self.read_upto
            data = bytes(self.buffer[len(self.buffer) - (self.total - start):])
            self.read_upto = self.total
        if skipped:
            self.decoder.reset()  # the skipped bytes may have ended mid-character
        text = self.decoder.decode(data)
        if skipped:
            where = f"the log has every byte: {self.log_path}" if self.log_path else "no log"
            text = f"[{skipped} earlier bytes are no longer in memory; {where}]\n{text}"
        return text

    def last_line(self) -> str:
        if self.adopted:
            return "(output not captured: left running by a foreground bash call)"
        with self.changed:
            tail = bytes(self.buffer[-2000:]).decode("utf-8", errors="replace")
        lines = [line for line in tail.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""

    def state(self) -> str:
        if self.process.running():
            return "running"
        if self.stopped:
            return "stopped"
        code = self.process.returncode
        return "ended" if code is None else f"exited {code}"

    def header(self) -> str:
        return (f"[job {self.number}: {self.state()}, pid {self.process.pid}, "
                f"{age(time.monotonic() - self.started)}]")

    def stop(self) -> None:
        if self.process.running():
            self.stopped = True
            self.process.kill()


def age(seconds: float) -> str:
    """12 -> '12s', 300 -> '5m', 7200 -> '2h'."""
    if seconds < 60:
        return f"{int(seconds)}s"
    return f"{int(seconds // 60)}m" if seconds < 3600 else f"{int(seconds // 3600)}h"


def shorten(text: str, width: int = 70) -> str:
    """One line of at most `width` characters: a /ps row must not wrap."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 3] + "..."


class Jobs:
    """The jobs of this run, numbered from 1."""

    def __init__(self, api: Any):
        self.api = api
        self.jobs: Dict[int, Job] = {}
        self.lock = threading.Lock()

    def add(self, command: str, process: Any, adopted: bool = False) -> Job:
        with self.lock:
            job = Job(len(self.jobs) + 1, command, process, adopted)
            self.jobs[job.number] = job
        return job

    def find(self, number: Any) -> Job:
        try:
            return self.jobs[int(str(number).lstrip("%"))]
        except (KeyError, ValueError):
            known = ", ".join(map(str, self.jobs)) or "none yet"
            raise ToolError(f"No job {number} (jobs: {known}). /ps lists them.") from None

    def stop_all(self, event: Optional[Dict[str, Any]] = None) -> None:
        if event is None or event.get("reason") == "quit":  # a session switch keeps them
            for job in list(self.jobs.values()):
                job.stop()

    # --- bash, extended ----------------------------------------------------------------

    def wrap_bash(self, execute: Any) -> Any:
        def run(call_id: str, args: Dict[str, Any], ctx: ToolContext) -> ToolResult:
            if args.get("background"):
                return self.start(args["command"], ctx.cwd)
            result = execute(call_id, args, ctx)
            return self.adopt_left_running(result)
        return run

    def start(self, command: str, cwd: str) -> ToolResult:
        job = self.add(command, self.api.ctx.spawn(command, cwd))
        return text_result(
            f"Started job {job.number} (pid {job.process.pid}) in the background: {command}\n"
            f"It runs until job_stop or the end of the session. Read its output with "
            f"job_output (id {job.number}); the full log is {job.log_path}.",
            {"job": job.number, "pid": job.process.pid, "logPath": job.log_path})

    def adopt_left_running(self, result: ToolResult) -> ToolResult:
        """What a foreground call left running (bash's details say) becomes a job each."""
        left = (result.details or {}).get("leftRunning") if isinstance(result.details, dict) else None
        if not left:
            return result
        numbers = [self.add(item["command"], self.api.ctx.adopt(item["pid"]), True).number
                   for item in left]
        said = ", ".join(f"job {number}" for number in numbers)
        note = f"\n(Now {said}: /ps lists it, job_stop stops it.)"
        content = [dict(block) for block in result.content]
        content[-1]["text"] = content[-1].get("text", "") + note
        return ToolResult(content, result.details, result.is_error, result.terminate)

    # --- the tools -------------------------------------------------------------------------

    def job_output(self, call_id: str, args: Dict[str, Any], ctx: ToolContext) -> ToolResult:
        job = self.find(args["id"])
        if job.adopted:
            return text_result(f"{job.header()} {job.last_line()}")
        wait = min(max(float(args.get("wait_seconds") or 0), 0.0), WAIT_CAP)
        job.wait_for_output(wait, ctx.abort)
        text = job.take_new_output()
        return text_result(f"{job.header()}\n{text or '(no new output)'}",
                           {"job": job.number, "logPath": job.log_path})

    def job_stop(self, call_id: str, args: Dict[str, Any], ctx: ToolContext) -> ToolResult:
        job = self.find(args["id"])
        job.stop()
        return text_result(f"{job.header()} {job.command}")

    # --- the commands ----------------------------------------------------------------------

    def ps(self, argument: str) -> str:
        """Two lines a job: its number, state, age, pid and command; its last line."""
        if not self.jobs:
            return "No background jobs."
        rows = []
        for job in self.jobs.values():
            rows.append(f"job {job.number}  {job.state()}  {age(time.monotonic() - job.started)}"
                        f"  pid {job.process.pid}  {shorten(job.command)}")
            rows.append(f"    {shorten(job.last_line() or '(no output yet)')}")
        return "\n".join(rows)

    def stop_command(self, argument: str) -> str:
        if not argument.strip():
            return "Usage: /stop ID (/ps lists the jobs)"
        try:
            job = self.find(argument.strip())
        except ToolError as error:
            return str(error)
        was = job.state()
        job.stop()
        return f"job {job.number} {job.state()} (was {was}): {job.command}"


def setup(api: Any) -> None:
    jobs = Jobs(api)
    api.extend_tool("bash", BACKGROUND, jobs.wrap_bash)
    api.register_tool(Tool(
        "job_output",
        "Read what a background job printed since the last read (its stdout and stderr "
        f"merged, at most the last {BUFFER_BYTES // 1024}KB), with its state. With "
        f"wait_seconds (at most {WAIT_CAP:g}), wait that long for output if none has come.",
        {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer", "description": "The job id bash returned"},
            "wait_seconds": {"type": "number",
                             "description": "Wait up to this long for new output (default 0)"},
        }}, jobs.job_output))
    api.register_tool(Tool(
        "job_stop", "Stop a background job and everything it started.",
        {"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer", "description": "The job id bash returned"}}},
        jobs.job_stop))
    api.register_command("ps", jobs.ps, "list the background jobs: age, state, last line")
    api.register_command("stop", jobs.stop_command, "ID  stop a background job")
    api.on("session_shutdown", jobs.stop_all)
