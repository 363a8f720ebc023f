"""miniagent as a library: the names `from miniagent import ...` gives, and the extension
docs/project.md shows, which is the shipped file itself.

The programs the documents show (embedding the agent, in the README; driving `--mode rpc`
from another program, in docs/frontends.md) run as written in tests/test_doc_examples.py."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GATE = ROOT / "miniagent" / "examples" / "gate_rm_rf.py"  # tests/test_examples.py tests it
HEADING = "## Project context and trust"


def test_docs_project_shows_the_shipped_extension_exactly():
    text = (ROOT / "docs" / "project.md").read_text(encoding="utf-8")
    assert HEADING + "\n" in text, f"docs/project.md has no {HEADING!r} section"
    block = re.search(r"```python\n(.*?)```", text[text.index(HEADING + "\n"):], re.S)
    assert block is not None, f"no ```python block under {HEADING!r} in docs/project.md"
    assert block.group(1) == GATE.read_text(encoding="utf-8"), (
        f"docs/project.md's block under {HEADING!r} differs from {GATE.name}: keep them equal")


def test_the_library_names_load_without_the_http_library():
    code = ("import sys, miniagent\n"
            "from miniagent import (Agent, Harness, Session, Model, resolve, Resolved, "
            "create_tools, Tool, ToolError, text_result, scripted_model, parse_script, "
            "load_script, text_of)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('requests', 'urllib3')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
