"""The core stands alone, and stays small enough to read in an afternoon.

miniagent/core/ imports only the standard library, `requests` and itself (checked twice:
in the parsed source, and in a child process that imports all of it and finds no other
module of miniagent loaded than the package's own light __init__); its tests run
without the product; and it holds the issue's line budgets, docstrings included:

  * the whole core (every .py in core/, the demo project aside): at most 2,800 lines;
  * the first hour (messages, events, loop, toolcalls, agent, the Tool contract in
    tools.py, scripted): at most 1,100 lines.

An exercise step whose function lives in the core (EXERCISES.md; its second solution in
tests/exercise_solutions/ names the FILE) is the student's to write: its function is
left out of the count and ROOM lines are kept for it instead, so a correct solution of
any length within reason breaks nothing. `python -m pytest tests/core/test_core_alone.py
-n 0 -s` prints today's totals and the room left under each budget.
"""

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "miniagent" / "core"
SOLUTIONS = ROOT / "tests" / "exercise_solutions"
WHOLE_BUDGET, FIRST_HOUR_BUDGET = 2800, 1100
FIRST_HOUR = ["messages.py", "events.py", "loop.py", "toolcalls.py", "agent.py", "tools.py",
              "scripted.py"]
ROOM = 60  # lines kept for a student's body of each exercise function in the core


def core_files():
    """Every Python file of the core, the demo project (data for the demo) aside."""
    return sorted(path for path in CORE.rglob("*.py")
                  if "demo" not in path.relative_to(CORE).parts and "__pycache__" not in path.parts)


def imported_modules(path: Path):
    """The top-level names a file imports, with relative imports marked by a dot."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or "")


def allowed(module: str) -> bool:
    top = module.split(".")[0]
    return module.startswith(".") and not module.startswith("..") or \
        module == "miniagent.core" or module.startswith("miniagent.core.") or \
        top == "requests" or top in sys.stdlib_module_names


def test_the_core_imports_only_the_standard_library_requests_and_itself():
    foreign = [(str(path.relative_to(CORE)), module) for path in core_files()
               for module in imported_modules(path) if not allowed(module)]
    assert not foreign, f"the core imports beyond the standard library and requests: {foreign}"


def test_importing_all_of_the_core_loads_no_other_miniagent_module():
    names = ["miniagent.core." + ".".join(path.relative_to(CORE).with_suffix("").parts)
             for path in core_files() if path.name != "__init__.py"]
    probe = ("import importlib, sys\n"
             f"for name in {names!r}: importlib.import_module(name)\n"
             "print(sorted(m for m in sys.modules if m.startswith('miniagent')\n"
             "             and m != 'miniagent' and not m.startswith('miniagent.core')))")
    child = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                           text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "[]", f"the core loaded the product's {child.stdout}"


# --- The budgets ---------------------------------------------------------------------------


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n")  # what `wc -l` says


def exercise_functions():
    """{core file: [(class or "", function name)]} of the exercise steps whose code
    lives in the core, as their second solutions name them."""
    found = {}
    for solution in sorted(SOLUTIONS.glob("ex_*.py")):
        tree = ast.parse(solution.read_text(encoding="utf-8"))
        names = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
                 if isinstance(node, ast.Assign)}
        if names["FILE"].startswith("miniagent/core/"):
            found.setdefault(ROOT / names["FILE"], []).extend(
                (names["CLASS"] or "", node.name) for node in tree.body
                if isinstance(node, ast.FunctionDef))
    return found


def counted_lines(path: Path, exercises) -> int:
    """The file's lines, each exercise function in it counted as ROOM lines."""
    total = line_count(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for class_name, name in exercises.get(path, []):
        body = tree.body
        if class_name:
            body = next(node for node in body if getattr(node, "name", None) == class_name).body
        function = next(node for node in body
                        if isinstance(node, ast.FunctionDef) and node.name == name)
        total += ROOM - (function.end_lineno - function.lineno + 1)
    return total


def test_the_core_holds_its_line_budgets():
    exercises = exercise_functions()
    whole = sum(counted_lines(path, exercises) for path in core_files())
    first_hour = sum(counted_lines(CORE / name, exercises) for name in FIRST_HOUR)
    print(f"\nthe core: {whole} of {WHOLE_BUDGET} lines; the first hour: {first_hour} of "
          f"{FIRST_HOUR_BUDGET}; {len(sum(exercises.values(), []))} exercise functions "
          f"counted as {ROOM} lines each")
    assert whole <= WHOLE_BUDGET, f"the core has {whole} lines, over its {WHOLE_BUDGET}"
    assert first_hour <= FIRST_HOUR_BUDGET, \
        f"the first hour ({', '.join(FIRST_HOUR)}) has {first_hour} lines, over {FIRST_HOUR_BUDGET}"


# --- The core's tests, without the product -------------------------------------------------


def test_the_cores_tests_pass_without_the_product(tmp_path):
    """A copy holding only the core (under a package __init__ that is a docstring) and
    its tests (with fake_server and the captured streams they read): they pass there,
    so they need nothing of the product."""
    package = tmp_path / "miniagent"
    shutil.copytree(CORE, package / "core", ignore=shutil.ignore_patterns("__pycache__"))
    (package / "__init__.py").write_text('"""The core alone."""\n')
    shutil.copytree(Path(__file__).parent, tmp_path / "tests" / "core",
                    ignore=shutil.ignore_patterns("__pycache__", Path(__file__).name))
    shutil.copy(ROOT / "tests" / "fake_server.py", tmp_path / "tests")
    shutil.copytree(ROOT / "tests" / "fixtures" / "llama-server",  # captured streams
                    tmp_path / "tests" / "fixtures" / "llama-server")
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    environment["PYTHONPATH"] = str(tmp_path)
    started = time.monotonic()
    # The exercise steps' markers are declared in setup.cfg, which the copy has not.
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-n", "0", "-W", "ignore::pytest.PytestUnknownMarkWarning",
                          "tests/core"], cwd=tmp_path, env=environment,
                         capture_output=True, text=True, timeout=300)
    print(f"\nthe core's tests alone: {time.monotonic() - started:.1f} s")
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
