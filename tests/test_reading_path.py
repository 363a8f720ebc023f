"""The reading path (miniagent/__init__.py and the README) matches the files on disk.

A learner follows the package docstring's list, file by file, trusting its line counts;
a stale count or a missing file is a broken promise, so this test fails on either.
"""

import re
from pathlib import Path

import miniagent

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "miniagent"
# "`loop.py` (212 lines)" or "`tools/read.py` (180 lines)"
COUNTED = re.compile(r"`([\w/]+\.py)` \((\d+) lines\)")


def modules():
    """Every Python file of the package, as a path relative to miniagent/."""
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                  if "__pycache__" not in p.parts and "demo" not in p.parts)  # demo: data


def line_count(relative: str) -> int:
    with open(PACKAGE / relative, "rb") as f:
        return f.read().count(b"\n")  # what `wc -l` says


def counted_files(text: str):
    return [(name, int(count)) for name, count in COUNTED.findall(text)]


def readme_reading_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Reading the code")
    end = readme.find("\n## ", start + 1)
    return readme[start:end if end != -1 else None]


def check_listing(listed):
    """Every module exactly once, each with the count `wc -l` gives."""
    names = [name for name, _ in listed]
    missing, extra = set(modules()) - set(names), set(names) - set(modules())
    assert not missing and not extra, f"not listed: {missing}; no such file: {extra}"
    assert len(names) == len(set(names)), "every module appears exactly once"
    stale = [(name, count, line_count(name)) for name, count in listed
             if count != line_count(name)]
    assert not stale, f"stale line counts (file, written, actual): {stale}"


def test_package_docstring_lists_every_module_once_with_its_line_count():
    check_listing(counted_files(miniagent.__doc__))


def test_readme_reading_path_matches_the_files():
    check_listing(counted_files(readme_reading_section()))


def test_the_afternoon_path_starts_with_the_spine_top_down():
    """messages -> loop (and its tool calls) -> agent -> events -> tools -> provider
    contract -> ... -> cli."""
    names = [name for name, _ in counted_files(miniagent.__doc__)]
    spine = ["messages.py", "loop.py", "toolcalls.py", "agent.py", "events.py", "tools/__init__.py",
             "tools/read.py", "tools/bash.py", "tools/edit.py", "tools/write.py",
             "providers/__init__.py", "providers/scripted.py", "sse.py",
             "providers/builder.py", "providers/openai.py", "cli.py"]
    assert names[:len(spine)] == spine


def test_no_module_is_over_400_lines():
    assert [m for m in modules() if line_count(m) > 400] == []
