"""miniagent as a library: the names `from miniagent import ...` gives, and the example
extension docs/extensions.md shows.

The programs the documents show (embedding the agent, in the README; driving `--mode rpc`
from another program, in docs/frontends.md) run as written in tests/test_doc_examples.py.
docs/extensions.md also shows the example extension, miniagent/examples/gate_rm_rf.py. That
file is EXERCISES.md's step 7, which a student rewrites, so the shown block is held to what
a correct rewrite keeps: the functions it shows, with the same arguments, and a gate that
works (a doc compared byte for byte would turn a correct solution's suite red)."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from miniagent.project.extension_loader import load_extensions

ROOT = Path(__file__).resolve().parent.parent
GATE = ROOT / "miniagent" / "examples" / "gate_rm_rf.py"  # tests/test_examples.py tests it


def shown_block(document, heading):
    """The first ```python block under `heading` in `document`."""
    text = (ROOT / document).read_text(encoding="utf-8")
    assert heading + "\n" in text, f"{document} has no {heading!r} section"
    block = re.search(r"```python\n(.*?)```", text[text.index(heading + "\n"):], re.S)
    assert block is not None, f"no ```python block under {heading!r} in {document}"
    return block.group(1)


def definitions(source):
    """Each top-level function of `source` with its argument names."""
    return {node.name: [arg.arg for arg in node.args.args] for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)}


def test_the_shown_gate_has_the_shipped_functions_and_works(tmp_path):
    shown = shown_block("docs/extensions.md", "## Extension files")
    # A student's rewrite may add a helper of its own; the shown functions must be there.
    assert definitions(shown).items() <= definitions(GATE.read_text(encoding="utf-8")).items()
    example = tmp_path / "gate.py"
    example.write_text(shown)
    project = tmp_path / "app"
    project.mkdir()
    extensions = load_extensions(str(project), [str(example)])
    assert extensions.warnings == []
    verdicts = [extensions.before_tool_call({"toolCall": {"name": "bash"},
                                             "args": {"command": command}})
                for command in ("rm -rf build", "rm -rf ..")]
    assert verdicts[0] is None and verdicts[1]["block"] is True


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
