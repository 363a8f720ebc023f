"""A command left running on purpose: started as bash starts one, stopped as bash stops one.

bash (process.py) runs a command until it ends. A background job (the `background`
extension, miniagent/extensions/background.py) needs the same start and the same end,
without the wait in between: the same shell (settings.json's shellPath), the same
environment (NON_INTERACTIVE_ENV), a process group of its own, the sandbox's launcher;
killed with everything it started when it is stopped, and by the reaper's sweep when
miniagent exits. This class is that handle; extensions get it through `api.ctx.spawn`.

    job = Spawned.start("python3 -m http.server", "/repo")
    job.stdout.read1(65536)   # its output, stderr merged: the caller reads it (or it blocks)
    job.running()             # True until the shell ends; then job.returncode is its status
    job.kill()                # SIGKILL its process group and descendants (reaper.kill_tree)

    Spawned.adopt(4242)       # a process a bash call left running (bash's details name it)

An adopted process is not one we started: it was a background job of a shell that has
ended. On Linux the reaper makes miniagent a subreaper, so it is our child now and its
status can be collected by pid; elsewhere it is someone else's, known by its pid and its
start time (a pid is reused once a process is gone; the pair is not). Its output went to
the ended call's pipe, which nobody reads any more.

Left out: reading the output (the caller's: it decides what to keep), a terminal for the
job (stdin is empty), and stopping politely (SIGTERM first): a job is stopped as a timed
out command is.
"""

import os
import subprocess
from typing import IO, Optional, Sequence

from .process import start
from .reaper import kill_tree, stat_of, track, untrack

START_TIME = 19
"""Where the start time sits in reaper.stat_of's fields (field 22 of /proc/PID/stat)."""


class Spawned:
    """A process that runs until it ends or is killed (see the module docstring)."""

    def __init__(self, pid: int, proc: Optional[subprocess.Popen] = None):
        self.pid = pid
        self.returncode: Optional[int] = None
        """The exit status once it ended, where it is ours to know (else None)."""
        self._proc = proc
        self._started = started_at(pid)
        self._gone = False

    @classmethod
    def start(cls, command: str, cwd: str, shell: Optional[str] = None,
              launcher: Sequence[str] = ()) -> "Spawned":
        """Start `command` exactly as bash starts one, and keep it known to the sweep."""
        proc = start(command, cwd, shell, launcher)
        track(proc)  # until it is reaped: then its pid may be reused
        return cls(proc.pid, proc)

    @classmethod
    def adopt(cls, pid: int) -> "Spawned":
        """A process a finished bash call left running (no output to read)."""
        return cls(pid)

    @property
    def stdout(self) -> Optional[IO[bytes]]:
        """The job's output and errors, merged; None for an adopted process."""
        return self._proc.stdout if self._proc else None

    def running(self) -> bool:
        """True until it has ended (then `returncode` holds its status, where known)."""
        if self._gone:
            return False
        if self._proc is not None:
            self.returncode = self._proc.poll()
            self._gone = self.returncode is not None
            if self._gone:
                untrack(self._proc)
        else:
            self._gone = not self._adopted_alive()
        return not self._gone

    def _adopted_alive(self) -> bool:
        try:  # our child once its shell ended, where we are a subreaper: reap it by pid
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.returncode = os.waitstatus_to_exitcode(status)
            return not done
        except ChildProcessError:  # someone else's: alive while /proc shows the same one
            fields = stat_of(self.pid)
            return (fields is not None and fields[0] != b"Z"
                    and started_at(self.pid) == self._started)

    def kill(self) -> None:
        """Stop it with everything it started; reaped, and forgotten by the sweep."""
        if not self.running():
            return  # a pid that ended may already belong to another process
        kill_tree(self.pid)
        # Reaped, as process.py reaps a killed command: no zombie left behind.
        if self._proc is not None:
            self._proc.wait()
        else:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass  # an adopted process that is not our child: its parent reaps it
        self.running()  # the status is collected, the sweep forgets it


def started_at(pid: int) -> Optional[bytes]:
    """The process's start time (clock ticks after boot), or None once it is gone."""
    fields = stat_of(pid)
    return fields[START_TIME] if fields else None
