"""The reading path matches the files on disk.

AGENTS.md holds the one map of the package: every module once, in reading order, the
core first by the hour, with a line count that is a reader's budget. The package
docstring and the README give the core's reading order and point to that map; the
README's hours say about how many lines each is. A missing file, a file listed twice,
or a count far from the truth is a broken promise, so these tests fail on each; a
count only a little off (an exercise solved with a longer, correct body) is not.
"""

import ast
import re
from pathlib import Path

import miniagent

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "miniagent"
# "- `loop.py` (189 lines): ..." in AGENTS.md's map
LISTED = re.compile(r"^- `([\w/]+\.py)` \((\d+) lines\)", re.M)
# The core, read by the hour (README's "Reading the code", the package docstring,
# core/__init__.py): the map starts with it, in this order.
HOURS = [["core/messages.py", "core/events.py", "core/loop.py", "core/toolcalls.py",
          "core/agent.py", "core/tools.py", "core/scripted.py"],
         ["core/read.py", "core/bash.py", "core/edit.py", "core/write.py", "core/coerce.py",
          "core/__main__.py"],
         ["core/provider.py", "core/sse.py", "core/assembly.py", "core/openai.py"]]
SPINE = [name for hour in HOURS for name in hour]
# Then the bundled extensions, one mechanism each, smallest first.
EXTENSIONS_HOUR = ["extensions/todo.py", "extensions/plan.py",
                   "extensions/checkpoints/__init__.py", "extensions/checkpoints/store.py",
                   "extensions/background.py", "extensions/subagents/__init__.py",
                   "extensions/subagents/child.py", "extensions/subagents/agents.py"]
# "- **Hour 1, the loop and its data** (about 1,100 lines): `core/messages.py`, ..."
HOUR_LINE = re.compile(r"^- \*\*Hour (\d), [^*]+\*\* \(about ([\d,]+) lines\): (.*?)(?=^- |\Z)",
                       re.M | re.S)


def modules():
    """Every Python file of the package that holds code, relative to miniagent/ (a
    folder's __init__.py that is only its docstring is the folder's guide, not a
    module to read)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if "__pycache__" in path.parts or relative.parts[:2] == ("core", "demo") or \
                relative.parts[:2] == ("evals", "basic"):  # the demo and the suite: data
            continue
        if path.name == "__init__.py" and len(ast.parse(path.read_text()).body) == 1:
            continue
        found.append(str(relative))
    return found


def line_count(relative: str) -> int:
    with open(PACKAGE / relative, "rb") as f:
        return f.read().count(b"\n")  # what `wc -l` says


def close_enough(written: int, actual: int) -> bool:
    """A budget, not a checksum: within 60 lines or 30 %."""
    return abs(written - actual) <= max(60, 0.3 * actual)


def the_map():
    text = (ROOT / "AGENTS.md").read_text(encoding="utf-8")
    return [(name, int(count)) for name, count in LISTED.findall(text)]


def test_agents_md_maps_every_module_once():
    names = [name for name, _ in the_map()]
    missing, extra = set(modules()) - set(names), set(names) - set(modules())
    assert not missing and not extra, f"not in the map: {missing}; no such file: {extra}"
    assert len(names) == len(set(names)), "every module appears exactly once"


def test_the_maps_line_counts_are_a_fair_budget():
    far = [(name, count, line_count(name)) for name, count in the_map()
           if not close_enough(count, line_count(name))]
    assert not far, f"refresh these counts in AGENTS.md (file, written, actual): {far}"


def test_the_map_starts_with_the_core_by_the_hour():
    assert [name for name, _ in the_map()][:len(SPINE)] == SPINE


def spine_in(text: str):
    """The core's files named in `text`, in order, from core/messages.py to core/openai.py."""
    return re.findall(r"core/[\w_]+\.py", text[text.index("core/messages.py"):
                                              text.index("core/openai.py") + 14])


def test_the_package_docstring_and_the_readme_give_the_same_reading_order():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    reading = readme[readme.index("## Reading the code"):]
    assert spine_in(miniagent.__doc__) == SPINE
    assert spine_in(reading) == SPINE


def test_the_readmes_hours_are_within_its_first_120_lines_and_their_counts_honest():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme[:readme.index("- **Hour 3")].count("\n") < 120, "the hours moved down"
    hours = HOUR_LINE.findall(readme[readme.index("## Reading the code"):])
    assert [int(number) for number, _, _ in hours] == [1, 2, 3, 4]
    for (number, written, text), files in zip(hours, HOURS + [EXTENSIONS_HOUR]):
        assert re.findall(r"(?:core|extensions)/[\w_/]+\.py", text) == files
        actual = sum(line_count(name) for name in files)
        assert close_enough(int(written.replace(",", "")), actual), (
            f"README, hour {number}: about {written} lines written, {actual} now")


def test_no_module_is_over_400_lines():
    assert [m for m in modules() if line_count(m) > 400] == []
