"""Nothing the agent started outlives it: the processes we track, and the final sweep.

A command the model runs may start others that are meant to keep running between calls
(`npm run dev &` must still serve the next call's `curl`). But once miniagent ends, by
itself or by a signal, none of them may be left behind. Three kinds of leftovers, three
answers:

    still running when we stop     every child we start is tracked here (`tracked`,
                                   or `track` for one that outlives its call):
                                   its process group, and its descendants found in /proc
                                   (a `setsid` job left the group), are killed
    a background job of a call     on Linux the process makes itself a "child subreaper"
    that already ended             (prctl): an orphan of our commands is re-parented to
                                   us instead of to init, so at exit it is one of our
                                   children, and `sweep` kills it and reaps it by pid
    a call that is aborted or      its shell's process group and its descendants
    times out                      (`kill_tree`), at once
    a job left running on purpose  tracked from its start until it is reaped
    (spawned.py)                   (`track`, `untrack`), so the sweep kills it too

A finished call's background job is named in its result (`group_members`: what is left
in the shell's process group, with `command_line`), so the model knows it kept running.

Only the real program does the second (`adopt_orphans`, from the command line's entry
point): a library or a test process may have children of its own that we must not
touch. Orphans are reaped by pid, never with waitpid(-1): that would also collect a
child that `subprocess` is about to wait for, and CPython then reports its status as 0.

Left out, and so not promised: macOS and other systems without /proc or a subreaper,
where only the process group of a command still running is killed (a finished call's
background job, or one that left the group, outlives us); SIGKILL of miniagent itself,
which runs no code of ours; and reaping orphans that end during the run (they wait as
zombies until we exit: a pid we did not start might be one `subprocess` owns).
"""

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional

from ...errors import STOP_SIGNALS, QuitNow

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
REAP_SECONDS = 1.0
"""How long the final sweep waits for the orphans it killed to be gone."""

# Every child still running, so that the sweep can kill it first: the commands run in
# sessions of their own, and a process that simply exits would leave them running (a
# second Ctrl-C during `sleep 30` must not orphan the sleep).
_running = set()
_running_lock = threading.Lock()
_adopting = False  # set once this process is a child subreaper


@contextmanager
def tracked(proc: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """Keep `proc` (a child that leads its own process group) known while it runs."""
    track(proc)
    try:
        yield proc
    finally:
        untrack(proc)


def track(proc: Any) -> None:
    """Known from now on to the sweep (`proc` has a .pid): for a child that outlives the
    call that started it (a background job, a sub-agent), until `untrack`, or until it
    has been waited for (those are forgotten here, as their pids may be reused)."""
    with _running_lock:
        _running.difference_update([old for old in _running
                                    if getattr(old, "returncode", None) is not None])
        _running.add(proc)


def untrack(proc: Any) -> None:
    """Forgotten by the sweep: `proc` ended and was reaped (its pid may now be reused)."""
    with _running_lock:
        _running.discard(proc)


def kill_tree(pid: int) -> None:
    """SIGKILL the process group `pid` leads and every descendant of `pid`.

    The descendants are listed before anything is killed: once a shell dies, its
    children are re-parented and the chain that leads to them is gone."""
    family = descendants(pid)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # already gone, or not a group leader (an adopted orphan)
    for member in [pid, *family]:
        try:
            os.kill(member, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def descendants(pid: int) -> List[int]:
    """The pids below `pid` in the process tree, from /proc ([] where there is none)."""
    children: Dict[int, List[int]] = {}
    for child, parent in parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def parents() -> Dict[int, int]:
    """{pid: parent pid} of every process /proc shows (empty without /proc)."""
    return {pid: int(fields[1]) for pid, fields in processes().items()}


def group_members(pgid: int) -> List[int]:
    """The live processes of the process group `pgid` (zombies left out): what a
    command's shell left running when it ended (`sleep 1000 &`)."""
    try:
        os.killpg(pgid, 0)  # signal 0 only asks: is anyone left? (the common case: no)
    except (ProcessLookupError, PermissionError):
        return []
    return [pid for pid, fields in processes().items()
            if int(fields[2]) == pgid and fields[0] != b"Z"]


def processes() -> Dict[int, List[bytes]]:
    """{pid: its /proc/PID/stat fields from the state on} for every process /proc shows
    (empty without /proc): [state, ppid, pgrp, ...], the start time at index 19."""
    result = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return result
    for name in names:
        fields = stat_of(int(name)) if name.isdigit() else None
        if fields is not None:  # else it ended while we looked
            result[int(name)] = fields
    return result


def stat_of(pid: int) -> Optional[List[bytes]]:
    """/proc/PID/stat's fields from the state on, or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # "pid (command) state ppid ...": the command may hold spaces and ")".
    return stat.rsplit(b")", 1)[1].split()


def command_line(pid: int) -> str:
    """'sleep 1000': the process's command line as ps shows it ('' once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def adopt_orphans() -> None:
    """Make this process the one that sweeps up at exit (the program's entry point only).

    On Linux it becomes a child subreaper, so the background jobs of finished calls
    stay its children; everywhere, `sweep` runs at exit."""
    global _adopting
    if sys.platform.startswith("linux"):
        import ctypes  # only here: a library user of the tools never needs it
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _adopting = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _adopting = False  # no prctl: the process-group kill still holds
    atexit.register(sweep)


def sweep() -> None:
    """The final sweep: kill every child still running with all it started, then the
    orphans we adopted (children of ours we did not start), and reap those by pid."""
    with _running_lock:
        running = list(_running)
    for proc in running:
        if proc.returncode is None:  # a child already waited for: its pid is free
            kill_tree(proc.pid)
    if not _adopting:
        return
    ours = {proc.pid for proc in running}
    me = os.getpid()
    orphans = [pid for pid, parent in parents().items() if parent == me and pid not in ours]
    for pid in orphans:
        kill_tree(pid)
    reap(orphans)


def reap(pids: List[int]) -> None:
    """Wait (at most REAP_SECONDS) for each of `pids`, by pid, so none stays a zombie."""
    deadline = time.monotonic() + REAP_SECONDS
    waiting = list(pids)
    while waiting and time.monotonic() < deadline:
        for pid in list(waiting):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not ours to wait for after all
            if done:
                waiting.remove(pid)
        if waiting:
            threading.Event().wait(0.01)  # SIGKILL is quick; a process in D state is not


def quit_now(code: int) -> None:
    """Sweep, then hand the exit status `code` to the entry point at once."""
    sweep()
    raise QuitNow(code)


def catch_stop_signals(on_first: Callable[[int], None]) -> List[int]:
    """Install the rule print and rpc modes share: the first stop signal calls
    `on_first(signum)` (which aborts the run, so its commands are killed), a second one
    quits at once (`quit_now`, exit status 128 + the signal). Returns the list the
    received signals are added to, for the caller's loop to look at."""
    received: List[int] = []

    def stop(signum: int, frame: Any) -> None:
        if received:
            quit_now(128 + signum)  # a second signal: kill the commands, exit at once
        received.append(signum)
        on_first(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    return received
