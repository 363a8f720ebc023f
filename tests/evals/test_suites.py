"""The shipped `basic` suite and the tiny fixture suite, as suites: complete, read by
evals/tasks.py, and with no check that passes on a task nobody worked on. (That each
reference solves its task is the full `basic` run in test_eval.py.)"""

import json
import shutil
from pathlib import Path

from helpers import ROOT, run_cli
from miniagent.evals.tasks import find_suite

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


def test_no_check_passes_without_the_agents_work(tmp_path):
    suite = tmp_path / "untouched"
    for source in [*find_suite("basic").tasks, *find_suite(str(TINY)).tasks]:
        task = suite / source.name
        shutil.copytree(source.folder, task, ignore=shutil.ignore_patterns("__pycache__"))
        (task / "reference.json").write_text(json.dumps(
            [{"content": [{"type": "text", "text": "I changed nothing."}]}]))
    out = tmp_path / "out"
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted", "--out", str(out),
                   "-j", "2", bound=120)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 10 and not any(record["passed"] for record in records)
    for record in records:  # and a failing check says why, in the trial's log
        check_output = (out / record["log"]).read_text().split("--- check ---\n")[1]
        assert check_output.strip(), record["task"]
