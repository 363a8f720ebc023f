"""The shipped `basic` suite and the tiny fixture suite: every reference solves its task,
no check passes on a task nobody worked on, and a wrong reference fails."""

import shutil
from pathlib import Path

import pytest
from evals.check_suite import read_task, run_task_untouched, run_task_with_reference

ROOT = Path(__file__).resolve().parents[2]
BASIC = ROOT / "miniagent" / "evals" / "basic"
FIXTURES = ROOT / "tests" / "fixtures" / "evals"
TINY = FIXTURES / "tiny"

BASIC_TASKS = ["answer-question", "change-config-value", "create-file-from-spec",
               "fix-typo-bug", "implement-from-docstring", "make-test-pass",
               "rename-symbol", "two-step-refactor"]
TINY_TASKS = ["fix-add", "write-greeting"]
ALL_TASKS = [BASIC / name for name in BASIC_TASKS] + [TINY / name for name in TINY_TASKS]


def task_id(task_dir):
    return f"{task_dir.parent.name}/{task_dir.name}"


def test_basic_holds_the_eight_tasks_each_complete():
    assert sorted(path.name for path in BASIC.iterdir()) == BASIC_TASKS
    for name in BASIC_TASKS:
        task = BASIC / name
        assert sorted(path.name for path in task.iterdir()) == \
            ["TASK.md", "check", "reference.json", "repo"], name
        fields = read_task(task)
        assert fields["prompt"] and fields["check"], name
        assert (fields["timeout"], fields["max_turns"]) == ("120", "15"), name


def test_no_init_py_in_the_suite():
    # a task folder is copied, not imported: an __init__.py would make repo/ a package
    assert list(BASIC.rglob("__init__.py")) == []


@pytest.mark.parametrize("task_dir", ALL_TASKS, ids=task_id)
def test_the_reference_solves_the_task(task_dir, tmp_path):
    status, output = run_task_with_reference(task_dir, tmp_path)
    assert status == 0, output


@pytest.mark.parametrize("task_dir", ALL_TASKS, ids=task_id)
def test_the_check_fails_on_the_untouched_repo(task_dir, tmp_path):
    status, output = run_task_untouched(task_dir, tmp_path)
    assert status != 0, output
    assert output.strip(), "a failing check says why"


def test_the_wrong_reference_fails_its_task(tmp_path):
    task = tmp_path / "fix-typo-bug"
    shutil.copytree(BASIC / "fix-typo-bug", task)
    shutil.copy(FIXTURES / "wrong-reference.json", task / "reference.json")
    run = tmp_path / "run"
    run.mkdir()
    status, output = run_task_with_reference(task, run)
    assert status != 0
    assert "['apples', 'pears', 'plums', 'figs'] != ['pears', 'plums']" in output
