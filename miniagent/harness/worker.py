"""The worker: the one thread a run gets, its abort Event and the wait for its end.

The Agent runs in its caller's thread (agent.py). A front end cannot give it its own:
the terminal must keep reading the keyboard while the model works, rpc its stdin. So
the harness hands the run to this worker, which is the only place miniagent starts a
thread for a run:

    worker.start(work)      work(abort) runs on a new thread; start returns at once
    worker.abort()          sets `abort`: the run, a retry's wait, a compaction stop
    worker.wait(timeout)    True once the work is done (False: still running)
    worker.outcome()        what work returned, or raises what it raised

One piece of work at a time: starting a second while the first runs is a bug in the
caller, and says so. Each start gets a fresh abort Event, so an earlier Ctrl-C does not
stop the next prompt.

Left out: what the work is (harness/harness.py decides) and other threads, which keep
their own roles: HTTP reads and their abort, tool process pumps, parallel tool calls,
the terminal's spinner, rpc's stdin reader.
"""

import threading
from typing import Any, Callable, Dict, Optional

Work = Callable[[threading.Event], Any]  # work(abort) -> a result


class WorkerBusyError(RuntimeError):
    """start() was called while earlier work was still running."""


class Worker:
    def __init__(self):
        self.abort_event = threading.Event()  # the one stop of the current work
        # Set while idle. wait() waits on this Event rather than joining the thread: a
        # Ctrl-C that interrupts Thread.join() can leave the thread looking finished while
        # it still runs (a CPython quirk); Event.wait has no such issue.
        self._done = threading.Event()
        self._done.set()
        self._outcome: Dict[str, Any] = {}

    def renew_abort(self) -> threading.Event:
        """A fresh abort Event, for work run in the caller's thread instead (Harness.run)."""
        self.abort_event = threading.Event()
        return self.abort_event

    def start(self, work: Work) -> None:
        """Run `work(abort)` on a new thread and return at once."""
        if not self._done.is_set():
            raise WorkerBusyError("Already running: wait() for the run, or abort() it first.")
        abort = self.renew_abort()
        self._outcome = {}
        self._done.clear()
        threading.Thread(target=self._work, args=(work, abort), daemon=True,
                         name="miniagent-run").start()

    def _work(self, work: Work, abort: threading.Event) -> None:
        try:
            self._outcome["value"] = work(abort)
        except BaseException as error:  # noqa: BLE001 - handed to whoever asks outcome()
            self._outcome["error"] = error
        finally:
            self._done.set()

    def abort(self) -> None:
        self.abort_event.set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the work is done; False if the timeout passed first."""
        return self._done.wait(timeout)

    def outcome(self) -> Any:
        """What the last work returned (call after wait()); raises what it raised."""
        if "error" in self._outcome:
            raise self._outcome["error"]
        return self._outcome.get("value")
