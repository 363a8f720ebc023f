"""Running one eval task with its scripted reference, for the suites' tests.

A plain stand-in for the eval runner (miniagent/evals/trial.py will do this for real):
copy the task's repo/ to a temp folder, run the agent on it with `--provider scripted`
replaying reference.json, then copy check/ over the copy and run the task's check.
What the tests learn is whether the reference solves the task, and whether the check
can tell a solved task from an unsolved one.

Left out: sessions, timeouts reported as a stop reason, results files, setup commands
(no task here has one).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

from miniagent.project.skills import split_front_matter

WORKTREE = Path(__file__).resolve().parents[2]


def read_task(task_dir: Path) -> Dict[str, str]:
    """TASK.md's fields, with the prompt (the body when there is no `prompt` field)."""
    fields, body = split_front_matter((task_dir / "TASK.md").read_text(encoding="utf-8"))
    fields.setdefault("prompt", body.strip())
    return fields


def run_task_with_reference(task_dir: Path, tmp_path: Path) -> Tuple[int, str]:
    """The check's exit status and output after the agent replayed the reference."""
    task_dir = Path(task_dir).resolve()  # the agent runs elsewhere: --script must be absolute
    task = read_task(task_dir)
    copy = copy_repo(task_dir, tmp_path)
    run_agent(task, task_dir / "reference.json", copy, tmp_path)
    return run_check(task, task_dir / "check", copy)


def run_task_untouched(task_dir: Path, tmp_path: Path) -> Tuple[int, str]:
    """The check's exit status and output on repo/ as it is: no agent ran."""
    task_dir = Path(task_dir).resolve()
    copy = copy_repo(task_dir, tmp_path)
    return run_check(read_task(task_dir), task_dir / "check", copy)


def copy_repo(task_dir: Path, tmp_path: Path) -> Path:
    """A fresh copy of repo/, without the __pycache__ folders a test run may leave there
    (the suite's conftest compiles every .py file under miniagent/, tasks included)."""
    copy = tmp_path / "copy"
    shutil.copytree(task_dir / "repo", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def run_agent(task: Dict[str, str], script: Path, copy: Path, tmp_path: Path) -> None:
    """The agent as the runner starts it: -I, a private home, a cwd outside the copy."""
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    # PYTHONPATH names this checkout, as helpers.run_cli_process does, for a python
    # started without -I; under -I python ignores it, and the agent finds the checkout
    # through the test venv's editable install (pip install -e).
    env = dict(os.environ, MINIAGENT_HOME=str(home), PYTHONPATH=str(WORKTREE))
    command = [sys.executable, "-I", "-m", "miniagent", "-p", task["prompt"],
               "--cwd", str(copy), "--no-session", "--provider", "scripted",
               "--script", str(script), "--max-turns", task.get("max_turns", "30")]
    done = subprocess.run(command, cwd=outside, env=env, capture_output=True, text=True,
                          timeout=float(task.get("timeout", "300")))
    assert done.returncode == 0, f"the agent exited {done.returncode}: {done.stderr[-2000:]}"


def run_check(task: Dict[str, str], check_dir: Path, copy: Path) -> Tuple[int, str]:
    """Copy check/ over the copy, then run the check there with $PYTHON set."""
    shutil.copytree(check_dir, copy, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    command = task.get("check", "sh check.sh")
    env = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run(["/bin/sh", "-c", command], cwd=copy, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=float(task.get("timeout", "300")))
    return done.returncode, done.stdout
