"""Running a suite: which trials, in what order, on how many workers, and what is kept.

An eval run is a list of (task, trial) pairs, sorted, so that every machine that runs
a part of it agrees on what the list is:

    (fix-typo-bug, 1) (fix-typo-bug, 2) (make-test-pass, 1) (make-test-pass, 2) ...

`--shard I/N` takes every N-th pair starting at the I-th (1-based, round-robin, so each
shard gets a share of every task), and writes a results folder of its own; `eval
report` merges any number of them. Nothing is shared between shards but the suite, so
a Slurm array, GNU parallel or a CI matrix runs a big suite with no coordinator.

A results folder that already holds trials is resumed: a pair recorded there without a
`failure` is not run again. Each finished trial is appended to results.jsonl at once,
so a run stopped by Ctrl-C (or a crash, or a killed job) keeps everything it finished.

Workers are threads: each trial is a child process (trial.py), so a thread only waits.
One line on stderr per finished trial, with the running pass count and cost:

    [3/16] make-test-pass #1  passed  stop      4 turns  $0.0021  6.3 s   (3/3 passed, $0.0052)

Left out: retries (a trial is a measurement: a failed one is a data point, not an error)
and scheduling across machines (that is the batch system's job).
"""

import queue
import threading
from typing import Callable, Dict, List, Optional, Tuple

from .results import append_result, done_trials
from .tasks import Suite, Task
from .trial import CANNOT_START, Children, Plan, Stopped, run_trial

Pair = Tuple[Task, int]


def trial_pairs(suite: Suite, trials: int) -> List[Pair]:
    """Every (task, trial number) of the run, sorted by task name, then number."""
    return [(task, number) for task in sorted(suite.tasks, key=lambda task: task.name)
            for number in range(1, trials + 1)]


def shard_of(pairs: List[Pair], shard: Optional[Tuple[int, int]]) -> List[Pair]:
    """The I-th of N round-robin slices (1-based); all of them without a shard.

    Example: 5 pairs, shard (2, 2) -> the 2nd and the 4th."""
    if shard is None:
        return pairs
    index, count = shard
    return pairs[index - 1::count]


class Progress:
    """The running counts, and one line per finished trial."""

    def __init__(self, total: int, say: Callable[[str], None]):
        self.total, self.say = total, say
        self.finished = self.passed = 0
        self.cost = 0.0

    def show(self, record: Dict) -> None:
        self.finished += 1
        self.passed += 1 if record["passed"] else 0
        self.cost += record["cost"]
        outcome = "passed" if record["passed"] else "FAILED"
        line = (f"[{self.finished}/{self.total}] {record['task']} #{record['trial']}  "
                f"{outcome}  {record['stop_reason']:<9} {record['turns']:>3} turns  "
                f"${record['cost']:.4f}  {record['seconds']:.1f} s   "
                f"({self.passed}/{self.finished} passed, ${self.cost:.4f})")
        if record["failure"]:
            line += f"\n    {record['failure']}"
        self.say(line)


def run_pairs(pairs: List[Pair], plan: Plan, workers: int, children: Children,
              say: Callable[[str], None]) -> List[Dict]:
    """Run the pairs not yet in the results folder; the records of those that finished
    (a stop through `children.stop_all()` drops the trials it cut short). The first
    agent that cannot start (a missing key) stops the run."""
    done = done_trials(str(plan.out))
    todo = [(task, number) for task, number in pairs if (task.name, number) not in done]
    if len(pairs) > len(todo):
        say(f"miniagent eval: resuming {plan.out}: {len(pairs) - len(todo)} of "
            f"{len(pairs)} trials already done")
    batch = Batch(todo, plan, children, say)
    threads = [threading.Thread(target=batch.work, name=f"eval-worker-{n}", daemon=True)
               for n in range(max(1, min(workers, len(todo))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # a stop signal's handler runs meanwhile (eval_command.py)
    return batch.records


class Batch:
    """The trials still to run, shared by the worker threads, and those they finished."""

    def __init__(self, todo: List[Pair], plan: Plan, children: Children,
                 say: Callable[[str], None]):
        self.todo: "queue.Queue[Pair]" = queue.Queue()
        for pair in todo:
            self.todo.put(pair)
        self.plan, self.children, self.say = plan, children, say
        self.progress = Progress(len(todo), say)
        self.records: List[Dict] = []
        self.lock = threading.Lock()  # one writer of results.jsonl and of stderr at a time

    def work(self) -> None:
        """A worker's loop: take a trial, run it, keep its record; until none is left."""
        while not self.children.stopping.is_set():
            try:
                task, number = self.todo.get_nowait()
                self.keep(run_trial(task, number, self.plan, self.children))
            except (queue.Empty, Stopped):
                return

    def keep(self, record: Dict) -> None:
        """Append the record to results.jsonl and show it; stop the run when nothing
        more could be measured (a folder that cannot be written, an agent that cannot
        start)."""
        with self.lock:
            if self.children.stopping.is_set():  # cut short by the stop: not a measurement
                return
            try:
                append_result(str(self.plan.out), record)
            except OSError as error:  # a full disk: every later trial would be lost too
                self.stop(f"{self.plan.out} cannot be written ({error.strerror or error})")
                return
            self.records.append(record)
            self.progress.show(record)
            if (record["failure"] or "").startswith(CANNOT_START):  # no key, a bad flag
                self.stop(f"every trial would fail the same way (the agent's whole output: "
                          f"{self.plan.out / record['log']})")

    def stop(self, reason: str) -> None:
        self.say(f"miniagent eval: stopped: {reason}")
        self.children.stop_all()
