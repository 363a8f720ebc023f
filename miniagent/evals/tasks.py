"""Tasks and suites: what an eval runs, read from folders.

An eval asks one question many times: given these files and this request, does the
agent leave the files in a state a check accepts? A task is one such question, as a
folder:

    fix-typo-bug/
      TASK.md          front matter (the fields below), and the prompt as its body
      repo/            the files the agent starts from (a fresh copy per trial)
      check/           files the agent never sees: copied in after it stopped, so that
                       deleting a failing test cannot "solve" the task
      reference.json   a scripted model's turns that solve it (--provider scripted)

    ---
    check: $PYTHON -m unittest -q test_hidden
    max_turns: 15
    timeout: 120
    ---
    The greeting is wrong for names with capitals. Fix it.

TASK.md is read by the skills' front-matter reader (project/skills.py), without the
rules skill names follow. Its fields: `name` (the folder's name by default), `prompt`
(the body by default), `check` (a shell command run in the copy; exit 0 means solved;
without one, `check/check.sh` is run), `setup` (a shell command run before the agent),
`timeout` (seconds, for setup, agent and check each), `max_turns`, `max_cost`. A wrong
field is one line naming the file and the field.

A suite is a folder of tasks. `basic` ships inside the package (evals/basic/); any other
name is a path. Its setup and check commands come from elsewhere, so a suite outside
the package runs only once the user trusts its folder (eval_command.py asks).

Left out: tasks that need network, services or a particular Python package; task
weights (every task counts the same).
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

from ..errors import ConfigError
from ..project.skills import split_front_matter

BUILTIN_SUITES = Path(__file__).parent  # evals/basic/ and any suite shipped beside it
FIELDS = ("name", "prompt", "check", "setup", "timeout", "max_turns", "max_cost")
DEFAULT_TIMEOUT = 300.0
DEFAULT_MAX_TURNS = 30
NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


class TaskError(ConfigError):
    """A suite or task that cannot be run: one line, naming the file and the field."""


@dataclass
class Task:
    name: str
    folder: Path
    prompt: str
    check: str  # a shell command, run in the trial's copy after check/ is copied in
    setup: Optional[str] = None
    timeout: float = DEFAULT_TIMEOUT
    max_turns: int = DEFAULT_MAX_TURNS
    max_cost: Optional[float] = None

    @property
    def reference(self) -> Path:
        return self.folder / "reference.json"


@dataclass
class Suite:
    name: str
    folder: Path
    tasks: List[Task]
    builtin: bool  # shipped inside the package: no question before its commands run


def find_suite(name: str) -> Suite:
    """A suite by its name (a built-in one) or its path; raises TaskError."""
    if name in built_in_names():  # a bare name is the package's: ./basic is a folder here
        return read_suite(BUILTIN_SUITES / name, builtin=True)
    folder = Path(name).expanduser()
    if not folder.is_dir():
        known = ", ".join(built_in_names())
        raise TaskError(f"{name}: no such suite folder (built-in suites: {known})")
    return read_suite(folder.resolve(), builtin=False)


def built_in_names() -> List[str]:
    return sorted(entry.name for entry in BUILTIN_SUITES.iterdir()
                  if entry.is_dir() and any(entry.glob("*/TASK.md")))


def read_suite(folder: Path, builtin: bool) -> Suite:
    """Every task folder (one holding a TASK.md) of `folder`, sorted by name."""
    tasks = [read_task(entry) for entry in sorted(folder.iterdir())
             if (entry / "TASK.md").is_file()]
    if not tasks:
        raise TaskError(f"{folder}: no tasks (a task is a folder with a TASK.md)")
    seen: Dict[str, Path] = {}
    for task in tasks:
        if task.name in seen:
            raise TaskError(f"{task.folder / 'TASK.md'}: name: {task.name!r} is also the "
                            f"name of {seen[task.name]}")
        seen[task.name] = task.folder
    return Suite(folder.name, folder, tasks, builtin)


def read_task(folder: Path) -> Task:
    """One task folder as a Task; raises TaskError naming TASK.md and the field."""
    path = folder / "TASK.md"
    try:
        fields, body = split_front_matter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise TaskError(f"{path}: {error}") from None
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise TaskError(f"{path}: {unknown[0]}: unknown field (known: {', '.join(FIELDS)})")
    if not (folder / "repo").is_dir():
        raise TaskError(f"{path}: repo/: missing (the files the agent starts from)")
    name = fields.get("name") or folder.name
    if not NAME.fullmatch(name):  # it names the trial's files in the results folder
        raise TaskError(f"{path}: name: must be letters, digits, '.', '_' or '-', "
                        f"not starting with '.' (got {name!r})")
    return Task(name=name, folder=folder,
                prompt=read_prompt(path, fields, body), check=read_check(path, fields),
                setup=fields.get("setup") or None,
                timeout=read_number(path, fields, "timeout", float, DEFAULT_TIMEOUT),
                max_turns=read_number(path, fields, "max_turns", int, DEFAULT_MAX_TURNS),
                max_cost=read_number(path, fields, "max_cost", float, None))


def read_prompt(path: Path, fields: Dict[str, str], body: str) -> str:
    prompt = fields.get("prompt") or body.strip()
    if not prompt:
        raise TaskError(f"{path}: prompt: missing (give a prompt field or a body)")
    return prompt


def read_check(path: Path, fields: Dict[str, str]) -> str:
    """The check command; a check/check.sh stands in for a command too long for a line."""
    if fields.get("check"):
        return fields["check"]
    if (path.parent / "check" / "check.sh").is_file():
        return "sh check.sh"
    raise TaskError(f"{path}: check: missing (a shell command, or a check/check.sh)")


def read_number(path: Path, fields: Dict[str, str], key: str, kind: type, default):
    """A positive int or float field; the default when absent."""
    if key not in fields:
        return default
    try:
        value = kind(fields[key])
    except ValueError:
        value = 0
    if value <= 0:
        raise TaskError(f"{path}: {key}: must be a positive {kind.__name__}, "
                        f"got {fields[key]!r}")
    return value
