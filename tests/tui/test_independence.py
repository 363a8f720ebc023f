"""tui/ is a library of its own: it imports nothing of the agent, so it can be read and
reused alone (as pi-tui imports nothing of pi's agent)."""

import ast
import subprocess
import sys
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "miniagent" / "tui"


def imports_of(path):
    """Every module a file imports: (level, name), level 0 for an absolute import."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
    return found


def test_tui_imports_only_the_standard_library_and_itself():
    outside = {}
    for path in sorted(TUI.glob("*.py")):
        for level, name in imports_of(path):
            top = name.split(".")[0]
            if level > 1 or (level == 0 and top not in sys.stdlib_module_names):
                outside.setdefault(path.name, []).append(("." * level) + name)
    assert outside == {}


def test_tui_loads_without_the_rest_of_the_package():
    script = ("import sys; import miniagent.tui.renderer, miniagent.tui.editor, "
              "miniagent.tui.markdown, miniagent.tui.terminal, miniagent.tui.diff_view, "
              "miniagent.tui.spinner; print(sorted(m for m in sys.modules "
              "if m.startswith('miniagent') and not m.startswith('miniagent.tui')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=TUI.parents[1], check=True).stdout.strip()
    assert loaded == "['miniagent']"  # the package's __init__, and nothing else of it
