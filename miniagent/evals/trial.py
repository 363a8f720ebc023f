"""One trial: a task's files copied, the agent let loose on them, then the check.

A trial must measure the agent and nothing else, so each one starts from nothing it
could have learned from: a fresh temp copy of the task's repo/, a private miniagent
home holding only the user's models.json (no settings, extensions or AGENTS.md of the
user's), and a new process:

    TMP/work/          the copy of repo/: the agent's --cwd
    TMP/home/          MINIAGENT_HOME (or the user's own, with --with-home)
    TMP/python         the steps' $PYTHON (evals/check_python.py): the copy last on its path
    TMP                the child's working directory: outside the copy

    1. setup           `sh -c SETUP` in the copy                      (optional)
    2. the agent       python -I -m miniagent -p PROMPT --cwd TMP/work --sandbox MODE
                       --session OUT/sessions/TASK/trial-N.jsonl --max-turns ...
    3. check/          copied over the copy, now that the agent has stopped
    4. the check       `sh -c CHECK` in the copy, through the sandbox's launcher:
                       exit 0 means solved

MODE is workspace where the kernel can enforce it, else off (eval_command.py says so
once): the agent's commands and the check write only the copy and the temp folders
(TMP is one), and open no connection, so a task cannot reach the rest of the machine.

Each step is a process group of its own, bounded by the task's timeout, and killed
whole when it ends (what a test or the agent left running in the background dies
with it). At the timeout a step first gets SIGTERM and GRACE seconds: the agent then
stops its run as Ctrl-C would and its session keeps the aborted reply, so a trial that
timed out still shows what the agent did and what it cost. The setup and the check get PYTHON, the interpreter running miniagent, so a
check runs `"$PYTHON" -m unittest` whatever `python` means on the machine; and it runs
that interpreter with the copy last on its module path (evals/check_python.py), so a
`unittest.py` the agent left in the copy cannot stand in for the real one.

The trial's record (evals/results.py) comes from the session file, as `miniagent stats`
reads it, and from how the agent process ended:

    exit 0                             stop
    0, "the answer was cut off" said   length (the reply hit the model's output limit)
    1, "stopped at --max-turns" said   max_turns  (and --max-cost: max_cost)
    1, anything else                   error
    stopped at the timeout             timeout
    130, 143, 129 or a signal          aborted
    2 (usage: no key, a bad flag)      error, and a `failure`: the agent never ran
                                       (runner.py then stops the run: all would fail)

A `failure` is a trial that failed for a reason outside the agent (setup, a copy, a
crash); the eval ends with exit status 1 when one exists.

Left out: containers. The agent runs with your user's rights, as it does every day;
the copy, the private home and the sandbox keep trials apart; the sandbox confines
writes and connections, not reads.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from .. import __version__
from ..files.home import miniagent_home, models_file
from ..sandbox import launcher_argv, policy_for
from ..session.stats import compute_stats, sum_models
from ..tools.hardening.reaper import kill_tree
from .tasks import Task

# The child finds miniagent where this process found it, never on the copy's path (-I).
CHILD = "import sys; sys.path.insert(0, sys.argv.pop(1)); from miniagent.launch import main; " \
        "sys.exit(main())"
PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)
CHECK_PYTHON = str(Path(__file__).resolve().parent / "check_python.py")
LIMIT_LINES = {"stopped at --max-turns": "max_turns", "stopped at --max-cost": "max_cost"}
CUT_OFF = "miniagent: warning: the answer was cut off"  # print mode's line, at a line's start
ABORTED = (130, 143, 129)
NOT_TASK_FILES = shutil.ignore_patterns("__pycache__")  # compiled by an install, not the task's
CANNOT_START = "the agent could not start"  # a usage problem: every trial would fail alike
TAIL = 600  # characters of a step's output kept in a failure's line
GRACE = 5.0  # seconds a step stopped at its timeout has to end before it is killed


class Stopped(Exception):
    """The run is being stopped (Ctrl-C): this trial is dropped, not recorded."""


@dataclass
class Plan:
    """What every trial of one eval run shares."""
    suite: str
    out: Path  # the results folder
    agent_flags: List[str]  # the model flags, passed on: --provider, --model, ...
    scripted: bool  # --provider scripted: each task's reference.json is the script
    with_home: bool = False
    sandbox: str = "off"  # the agent's --sandbox, and whether the check runs confined


@dataclass
class Children:
    """The processes running now, so that Ctrl-C can stop every one of them."""
    running: Set[subprocess.Popen] = field(default_factory=set)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, argv: List[str], **options) -> subprocess.Popen:
        with self.lock:
            if self.stopping.is_set():  # the run is being stopped: start nothing more
                raise Stopped
            process = subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL,
                                       **options)
            self.running.add(process)
        return process

    def finished(self, process: subprocess.Popen) -> None:
        kill_tree(process.pid)  # what it left in the background goes with it
        with self.lock:
            self.running.discard(process)

    def stop_all(self) -> None:
        with self.lock:
            self.stopping.set()
            running = list(self.running)
        for process in running:
            kill_tree(process.pid)


def run_trial(task: Task, number: int, plan: Plan, children: Children) -> Dict:
    """Run trial `number` of `task` and return its record (evals/results.py); raises
    Stopped when the run is stopped before the trial ends."""
    session = Path("sessions") / task.name / f"trial-{number}.jsonl"
    log = session.with_suffix(".log")
    (plan.out / session.parent).mkdir(parents=True, exist_ok=True)
    (plan.out / session).unlink(missing_ok=True)  # an interrupted run's: never continued
    record = new_record(plan, task, number, session, log)
    scratch = tempfile.mkdtemp(prefix="miniagent-eval-")
    try:
        with open(plan.out / log, "wb", buffering=0) as output:  # shared with the steps
            run_steps(task, plan, children, Path(scratch), plan.out / session, output, record)
    except OSError as error:  # a copy or a log that cannot be written
        record.update(passed=False, failure=f"{type(error).__name__}: {error}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    add_figures(record, plan.out / session)
    return record


def new_record(plan: Plan, task: Task, number: int, session: Path, log: Path) -> Dict:
    return {"suite": plan.suite, "task": task.name, "trial": number, "passed": False,
            "stop_reason": "error", "failure": None, "turns": 0, "input_tokens": 0,
            "output_tokens": 0, "cached_tokens": 0, "cost": 0.0, "seconds": 0.0,
            "session": None, "log": str(log), "model": flag(plan, "--model"),
            "provider": flag(plan, "--provider"), "version": __version__,
            "sandbox": plan.sandbox}


def run_steps(task: Task, plan: Plan, children: Children, scratch: Path, session: Path,
              output, record: Dict) -> None:
    """Setup, agent, check: the record filled in as each one ends."""
    work = scratch / "work"
    shutil.copytree(task.folder / "repo", work, symlinks=True, ignore=NOT_TASK_FILES)
    env = step_environment(scratch, plan.with_home)
    if task.setup:
        status = run_step(["/bin/sh", "-c", task.setup], work, env, task.timeout, "setup",
                          output, children)
        if status != 0:
            record["failure"] = f"setup {describe(status, task.timeout)}: " \
                                f"{tail(output.name)}"
            return
    started = time.monotonic()
    start = output.tell()
    status = run_step(agent_command(task, plan, work, session), scratch, env, task.timeout,
                      "agent", output, children)
    record["seconds"] = round(time.monotonic() - started, 2)
    record["stop_reason"], record["failure"] = stop_reason(status, read_from(output.name, start))
    if session.exists():
        record["session"] = str(session.relative_to(plan.out))
    if record["failure"]:
        return
    if (task.folder / "check").is_dir():
        shutil.copytree(task.folder / "check", work, symlinks=True, dirs_exist_ok=True,
                        ignore=NOT_TASK_FILES)
    status = run_step([*check_launcher(plan, work, scratch), "/bin/sh", "-c", task.check],
                      work, env, task.timeout, "check", output, children)
    record["passed"] = status == 0


def check_launcher(plan: Plan, work: Path, scratch: Path) -> Tuple[str, ...]:
    """What the check starts through: the agent's sandbox for the copy (the trial's
    folder, home and $PYTHON included), or nothing when the eval runs unconfined."""
    if plan.sandbox == "off":
        return ()
    return launcher_argv(policy_for(plan.sandbox, str(work), (str(scratch),)))


def step_environment(scratch: Path, with_home: bool) -> Dict[str, str]:
    """The user's environment (keys included), the trial's home, and PYTHON."""
    env = dict(os.environ, PYTHON=str(write_check_python(scratch)))
    home = scratch / "home"
    if with_home:
        env["MINIAGENT_HOME"] = str(miniagent_home())
        return env
    home.mkdir()
    if models_file().is_file():  # the one file of the user's home a trial may see
        shutil.copyfile(models_file(), home / "models.json")
    env["MINIAGENT_HOME"] = str(home)
    return env


def write_check_python(scratch: Path) -> Path:
    """SCRATCH/python: this interpreter, isolated, running evals/check_python.py. It is
    outside the copy, so nothing the agent writes there stands in for it."""
    script = scratch / "python"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -I "
                      f"{shlex.quote(CHECK_PYTHON)} \"$@\"\n")
    script.chmod(0o755)
    return script


def agent_command(task: Task, plan: Plan, work: Path, session: Path) -> List[str]:
    command = [sys.executable, "-I", "-c", CHILD, PACKAGE_ROOT, "--cwd", str(work),
               "--session", str(session), "--max-turns", str(task.max_turns),
               "--sandbox", plan.sandbox, *plan.agent_flags]
    if task.max_cost is not None:
        command += ["--max-cost", str(task.max_cost)]
    if plan.scripted:
        command += ["--script", str(task.reference)]
    return command + ["-p", "--", task.prompt]  # after --: a prompt may start with "-"


def run_step(argv: List[str], cwd: Path, env: Dict[str, str], timeout: float, name: str,
             output, children: Children) -> Optional[int]:
    """Run one step with its output into the log; its exit status, None at the timeout."""
    output.write(f"--- {name} ---\n".encode())
    output.flush()
    process = children.start(argv, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        output.write(f"\n--- {name}: stopped after {timeout:g} s ---\n".encode())
        stop_gently(process)
        return None
    finally:
        children.finished(process)
        process.wait()


def stop_gently(process: subprocess.Popen) -> None:
    """SIGTERM, then up to GRACE seconds to end: time for the agent to save the reply it
    was waiting for as aborted (killed at once, a trial stopped before the first answer
    would leave no session at all). What is left is killed by Children.finished."""
    process.terminate()
    try:
        process.wait(GRACE)
    except subprocess.TimeoutExpired:
        pass  # it did not stop: killed with its whole group next


def stop_reason(status: Optional[int], said: str):
    """(stop reason, failure or None) of the agent step, from its status and output."""
    if status is None:
        return "timeout", None
    if status == 0:  # the answer follows the warning: only a whole line of ours counts
        cut_off = any(line.startswith(CUT_OFF) for line in said.splitlines())
        return ("length" if cut_off else "stop"), None
    if status in ABORTED or status < 0:
        return "aborted", None
    if status == 1:
        reasons = [reason for line, reason in LIMIT_LINES.items() if line in said]
        return (reasons[0] if reasons else "error"), None
    return "error", f"{CANNOT_START} (exit status {status}): {first_complaint(said)}"


def add_figures(record: Dict, session: Path) -> None:
    """Turns, tokens, cost and the model, as `miniagent stats` counts them."""
    if record["session"] is None:
        return
    stats, _, errors = compute_stats([str(session)])
    if errors:
        return
    totals = sum_models(stats[0])
    record.update(turns=stats[0].assistant_turns, input_tokens=totals["input"],
                  output_tokens=totals["output"], cached_tokens=totals["cacheRead"],
                  cost=round(totals["cost"], 6))
    if stats[0].main_model:
        record["provider"], _, record["model"] = stats[0].main_model.partition("/")


def flag(plan: Plan, name: str) -> Optional[str]:
    """The value of a model flag given to the eval, or None."""
    flags = plan.agent_flags
    return flags[flags.index(name) + 1] if name in flags[:-1] else None


def describe(status: Optional[int], timeout: float) -> str:
    return f"timed out after {timeout:g} s" if status is None else f"exited with status {status}"


def read_from(path: str, offset: int) -> str:
    with open(path, "rb") as log:
        log.seek(max(offset, os.path.getsize(path) - 65536))  # a limit's line is near the end
        return log.read().decode("utf-8", "replace")


def tail(path: str) -> str:
    return " ".join(read_from(path, 0)[-TAIL:].split())


def first_complaint(text: str) -> str:
    """The first "miniagent: ..." line of the agent's output (the rest explains it)."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("---")]
    said = [line[len("miniagent: "):] for line in lines if line.startswith("miniagent: ")]
    return (said or lines or ["no output"])[0][:TAIL]
