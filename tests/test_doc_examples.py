"""Worked examples run: every ```python block of README.md and docs/*.md, and the `>>>`
examples in the core's docstrings, executed as a reader would run them.

A block runs as a program of its own would: in a fresh namespace named `__main__`, in an
empty temporary folder (the suite gives each test its own MINIAGENT_HOME and TMPDIR),
with none of the developer's keys, and within a bound (a hang fails the test). It runs
in this process: it is the reader's own Python, and a subprocess would prove nothing
more. A block that cannot run offline (it needs a real key, say) carries a mark on the
line above it that gives the reason, `<!-- not run: needs an API key -->`; a mark
without a reason fails. A block that needs more than a folder, such as a model server,
gets it from a test of its own below (NEEDS_SETUP); those tests also check what the
block prints.

Docstrings: the `>>>` examples of the core's modules run with doctest. The one-line
`Example: f(x) -> y` notes the code also carries are prose; the module's own test file
asserts them (tests/test_messages.py for messages.py, for instance).
"""

import doctest
import importlib
import re
import tempfile
from pathlib import Path

import pytest

from fake_server import FakeServer
from helpers import KEYS, bounded

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
MARK = re.compile(r"<!-- not run: (?P<reason>.*?) -->")
# Blocks run by a test of their own, which gives them what they need: (document, heading).
EMBEDDING = ("README.md", "## Embedding miniagent")
RPC_CLIENT = ("docs/frontends.md", "## Driving the RPC mode from a notebook")
NEEDS_SETUP = {EMBEDDING, RPC_CLIENT}
# The core, by the hour (AGENTS.md's map): its `>>>` examples run.
SPINE = ["core.messages", "core.loop", "core.toolcalls", "core.agent", "core.events",
         "core.tools", "core.read", "core.bash", "core.edit", "core.write",
         "core.provider", "core.scripted", "core.sse", "core.assembly", "core.openai"]
# The modules whose usage examples are doctests: one turned back into prose fails here.
WITH_DOCTESTS = ["core.agent", "core.events", "core.tools", "core.scripted", "core.sse",
                 "core.assembly"]


class Block:
    """One ```python block: where it is, the heading it sits under, its mark if any."""

    def __init__(self, document, line, heading, code, mark):
        self.document, self.line, self.heading = document, line, heading
        self.code, self.mark = code, mark

    def __repr__(self):
        return f"{self.document}:{self.line}"


def find_blocks(document, text):
    """The ```python blocks of a Markdown text, each with the last heading above it and
    the line before its fence (a mark, or whatever text was there)."""
    blocks, heading, above, fence = [], "", "", None  # fence: the open block's language
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence, start, mark, code = stripped[3:], number, above, []
        elif fence is not None and stripped == "```":
            if fence == "python":
                blocks.append(Block(document, start, heading, "\n".join(code) + "\n", mark))
            fence = None
        elif fence is not None:  # inside a block, where "# ..." is a comment, no heading
            code.append(line)
            continue
        elif line.startswith("#"):
            heading = line
        if stripped:
            above = stripped
    return blocks


def all_blocks():
    return [block for document in DOCUMENTS
            for block in find_blocks(document, (ROOT / document).read_text(encoding="utf-8"))]


def reason_not_run(block):
    """The reason a block's mark gives for not running it; None for an unmarked block.
    A mark that gives no reason raises, so nobody can switch a block off silently."""
    if not block.mark.startswith("<!-- not run"):
        return None
    found = MARK.fullmatch(block.mark)
    if found is None or not found.group("reason").strip():
        raise ValueError(f"{block}: a `not run` mark must give its reason: "
                         f"<!-- not run: REASON -->")
    return found.group("reason")


def the_block(document, heading):
    (block,) = [b for b in all_blocks() if (b.document, b.heading) == (document, heading)]
    return block


def run_block(block, folder, monkeypatch, **env):
    """Run a block as a reader's program in `folder`, with the environment variables
    `env` and no others of ours: its namespace afterwards."""
    monkeypatch.chdir(folder)
    monkeypatch.setattr(tempfile, "tempdir", None)  # mkdtemp follows this test's TMPDIR
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # a `python -m miniagent` it starts
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    namespace = {"__name__": "__main__"}
    with bounded(60):
        exec(compile(block.code, str(block), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("block", [b for b in all_blocks()
                                   if (b.document, b.heading) not in NEEDS_SETUP], ids=repr)
def test_the_block_runs_as_written(block, tmp_path, monkeypatch):
    if reason_not_run(block) is not None:
        pytest.skip(f"{block}: not run: {reason_not_run(block)}")
    run_block(block, tmp_path, monkeypatch)


def test_the_embedding_example_fixes_the_failing_test_and_shows_each_tool_call(
        tmp_path, monkeypatch, capsys):
    namespace = run_block(the_block(*EMBEDDING), tmp_path, monkeypatch)
    assert capsys.readouterr().out.splitlines() == [
        "tool: bash {'command': 'python3 test_calc.py'}",
        "tool: edit {'path': 'calc.py', 'edits': [{'oldText': 'a - b', 'newText': 'a + b'}]}",
        "tool: bash {'command': 'python3 test_calc.py'}",
        "Fixed: add() subtracted."]
    assert (namespace["project"] / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    last_run = [m for m in namespace["agent"].messages if m["role"] == "toolResult"][-1]
    assert last_run["isError"] is False  # the test passes now


def test_the_notebook_client_drives_the_rpc_mode(tmp_path, monkeypatch, capsys):
    reply = {"content": [{"type": "text", "text": "There is one file: notes.txt."}]}
    (tmp_path / "notes.txt").write_text("hi\n")
    with FakeServer([reply]) as srv:  # stands in for the model server a user would have
        namespace = run_block(the_block(*RPC_CLIENT), tmp_path, monkeypatch,
                              OPENAI_BASE_URL=srv.base_url + "/v1")
    assert capsys.readouterr().out == "There is one file: notes.txt.\n"
    assert namespace["agent"].returncode == 0
    assert "Which files are in this folder?" in str(srv.requests[0]["body"]["messages"])


def test_the_blocks_that_need_a_set_up_are_still_where_they_were():
    found = {(block.document, block.heading) for block in all_blocks()}
    assert NEEDS_SETUP <= found, f"no ```python block under {NEEDS_SETUP - found}"


def test_a_mark_without_a_reason_fails_and_a_shell_comment_is_no_heading():
    text = ("# Doc\n<!-- not run -->\n```python\nx = 1\n```\n```sh\n# no heading\n```\n"
            "<!-- not run: needs an API key -->\n\n```python\ny = 2\n```\n"
            "```python\nz = 3\n```\n")
    no_reason, keyed, plain = find_blocks("doc.md", text)
    with pytest.raises(ValueError, match=r"doc.md:3: a `not run` mark must give its reason"):
        reason_not_run(no_reason)
    assert reason_not_run(keyed) == "needs an API key"
    assert reason_not_run(plain) is None and plain.code == "z = 3\n"
    assert {block.heading for block in (no_reason, keyed, plain)} == {"# Doc"}


@pytest.mark.parametrize("name", SPINE)
def test_the_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(f"miniagent.{name}")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []  # what doctest says of each failure: the example, expected and got
    for test in doctest.DocTestFinder().find(module):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    if name in WITH_DOCTESTS:
        assert runner.tries > 0, f"miniagent/{name}: its usage examples are no doctests any more"
