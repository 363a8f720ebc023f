"""The shipped `basic` suite and the tiny fixture suite, as suites: complete, read by
evals/tasks.py, and with no check that passes on a task nobody worked on. (That each
reference solves its task is the full `basic` run in test_eval.py.)"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import ROOT
from miniagent.evals.tasks import find_suite
from miniagent.evals.trial import NOT_TASK_FILES

BASIC_TASKS = ["answer-question", "change-config-value", "create-file-from-spec",
               "fix-typo-bug", "implement-from-docstring", "make-test-pass",
               "rename-symbol", "two-step-refactor"]
TINY = Path(ROOT) / "tests" / "fixtures" / "evals" / "tiny"


def test_basic_holds_the_eight_tasks_each_complete():
    suite = find_suite("basic")
    assert suite.builtin and [task.name for task in suite.tasks] == BASIC_TASKS
    for task in suite.tasks:
        assert sorted(path.name for path in task.folder.iterdir()
                      if path.name != "__pycache__") == \
            ["TASK.md", "check", "reference.json", "repo"], task.name
        assert task.prompt and task.check, task.name
        assert (task.timeout, task.max_turns) == (120, 15), task.name


def test_no_init_py_in_the_suite():
    # a task folder is copied, not imported: an __init__.py would make repo/ a package
    assert list(find_suite("basic").folder.rglob("__init__.py")) == []


def test_no_check_passes_on_the_untouched_repo_and_each_says_why(tmp_path):
    # As a trial runs it (evals/trial.py), minus the agent: repo/, then check/ over it.
    for task in [*find_suite("basic").tasks, *find_suite(str(TINY)).tasks]:
        copy = tmp_path / task.name
        shutil.copytree(task.folder / "repo", copy, ignore=NOT_TASK_FILES)
        if (task.folder / "check").is_dir():
            shutil.copytree(task.folder / "check", copy, dirs_exist_ok=True,
                            ignore=NOT_TASK_FILES)
        done = subprocess.run(["/bin/sh", "-c", task.check], cwd=copy, capture_output=True,
                              text=True, env=dict(os.environ, PYTHON=sys.executable), timeout=60)
        assert done.returncode != 0, task.name
        assert (done.stdout + done.stderr).strip(), f"{task.name}: a failing check says why"
