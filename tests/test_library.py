"""miniagent as a library: the names `from miniagent import ...` gives, and the two programs
the documentation shows (embedding the agent, in the README; driving `--mode rpc` from
another program, in docs/frontends.md), run as written.

The programs live in tests/readme_example.py and tests/rpc_client_example.py; the README
and docs/ show the same text under the headings below, and the test checks that they agree.
docs/project.md also shows the example extension, miniagent/examples/gate_rm_rf.py. That
file is EXERCISES.md's step 7, which a student rewrites, so the shown block is held to what
a correct rewrite keeps: the functions it shows, with the same arguments, and a gate that
works (a doc compared byte for byte would turn a correct solution's suite red)."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from fake_server import FakeServer
from helpers import KEYS
from miniagent.project.extension_loader import load_extensions

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
EMBEDDING = HERE / "readme_example.py"
RPC_CLIENT = HERE / "rpc_client_example.py"
GATE = ROOT / "miniagent" / "examples" / "gate_rm_rf.py"
# (document, heading) -> the file its first ```python block under that heading must equal.
SHOWN_FILES = {("README.md", "## Embedding miniagent"): EMBEDDING,
               ("docs/frontends.md", "## Driving the RPC mode from a notebook"): RPC_CLIENT}


def run_python(path, cwd, **env):
    full_env = {key: value for key, value in os.environ.items() if key not in KEYS}
    full_env.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, str(path)], cwd=str(cwd), env=full_env,
                          capture_output=True, text=True, timeout=60)


def test_the_embedding_example_fixes_the_failing_test_and_shows_each_tool_call(tmp_path):
    made = tmp_path / "tmp"  # the example's project goes to a fresh temporary folder
    made.mkdir()
    done = run_python(EMBEDDING, tmp_path, TMPDIR=str(made))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "tool: bash {'command': 'python3 test_calc.py'}",
        "tool: edit {'path': 'calc.py', 'edits': [{'oldText': 'a - b', 'newText': 'a + b'}]}",
        "tool: bash {'command': 'python3 test_calc.py'}",
        "Fixed: add() subtracted."]
    (project,) = made.iterdir()
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert subprocess.run([sys.executable, "test_calc.py"], cwd=project).returncode == 0


def test_the_notebook_client_drives_the_rpc_mode(tmp_path):
    reply = {"content": [{"type": "text", "text": "There is one file: notes.txt."}]}
    (tmp_path / "notes.txt").write_text("hi\n")
    with FakeServer([reply]) as srv:  # stands in for the model server a user would have
        done = run_python(RPC_CLIENT, tmp_path,
                          OPENAI_BASE_URL=srv.base_url + "/v1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "There is one file: notes.txt.\n"
    assert "Which files are in this folder?" in str(srv.requests[0]["body"]["messages"])


def shown_block(document, heading):
    """The first ```python block under `heading` in `document`."""
    text = (ROOT / document).read_text(encoding="utf-8")
    assert heading + "\n" in text, f"{document} has no {heading!r} section"
    block = re.search(r"```python\n(.*?)```", text[text.index(heading + "\n"):], re.S)
    assert block is not None, f"no ```python block under {heading!r} in {document}"
    return block.group(1)


def test_the_documents_show_the_examples_exactly_as_tested():
    for (document, heading), path in SHOWN_FILES.items():
        assert shown_block(document, heading) == path.read_text(encoding="utf-8"), (
            f"{document}'s block under {heading!r} differs from {path.name}: keep them equal")


def definitions(source):
    """Each top-level function of `source` with its argument names."""
    return {node.name: [arg.arg for arg in node.args.args] for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)}


def test_the_shown_gate_has_the_shipped_functions_and_works(tmp_path):
    shown = shown_block("docs/project.md", "## Project context and trust")
    # A student's rewrite may add a helper of its own; the shown functions must be there.
    assert definitions(shown).items() <= definitions(GATE.read_text(encoding="utf-8")).items()
    example = tmp_path / "gate.py"
    example.write_text(shown)
    project = tmp_path / "app"
    project.mkdir()
    extensions = load_extensions(tmp_path / "no-home", str(project), False, [example])
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
