"""Nothing the agent started outlives it: the processes we track, and the final sweep.

A command the model runs may start others that are meant to keep running between calls
(`npm run dev &` must still serve the next call's `curl`). But once miniagent ends, by
itself or by a signal, none of them may be left behind. Three kinds of leftovers, three
answers:

    still running when we stop     every child we start is tracked here (`tracked`,
                                   or `watch` for one that outlives its call):
                                   its process group, and its descendants found in /proc
                                   (a `setsid` job left the group), are killed
    a background job of a call     on Linux the process makes itself a "child subreaper"
    that already ended             (prctl): an orphan of our commands is re-parented to
                                   us instead of to init, so at exit it is one of our
                                   children, and `sweep` kills it and reaps it by pid
    a call that is aborted or      its shell's process group and its descendants
    times out                      (`kill_tree`), at once

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
from typing import Any, Callable, Dict, Iterator, List

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
    with _running_lock:
        _running.add(proc)
    try:
        yield proc
    finally:
        with _running_lock:
            _running.discard(proc)


def watch(proc: subprocess.Popen) -> None:
    """Keep `proc` known until it ends, for a child that outlives the call that started
    it (an extension's, ctx.spawn); the ones already waited for are forgotten here."""
    with _running_lock:
        _running.difference_update([old for old in _running if old.returncode is not None])
        _running.add(proc)


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
    result = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return result
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # it ended while we looked
        # "pid (command) state ppid ...": the command may hold spaces and ")".
        result[int(name)] = int(stat.rsplit(b")", 1)[1].split()[1])
    return result


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
        if proc.returncode is None:  # a watched child already waited for: its pid is free
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
