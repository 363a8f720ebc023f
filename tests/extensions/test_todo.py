"""The bundled `todo` extension: todo_write keeps the whole list, print mode shows each
new one on stderr, the session is its state (resume, /tree, the export), a compaction
hands the list to the model again, and a wrong list is refused with what to fix."""

import glob
import json
from dataclasses import replace
from functools import partial

import pytest

from helpers import answer, call, make_agent, run_cli, write_script
from miniagent.compaction.estimate import CompactionSettings
from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.harness.harness import Harness
from miniagent.project.extension_loader import load_extensions
from miniagent.project.settings import Settings
from miniagent.session.tree import Session
from miniagent.tools import Unconfined



def write_todos(*items):
    """A turn calling todo_write; items are (content, status)."""
    return {"content": [call("todo_write", todos=[{"content": content, "status": status}
                                                  for content, status in items])]}


PLAN = write_todos(("read the code", "in_progress"), ("fix the bug", "pending"))
PROGRESS = write_todos(("read the code", "completed"), ("fix the bug", "in_progress"))


def with_todo(tmp_path, turns, *args):
    return run_cli("--script", write_script(tmp_path, turns), "-e", "todo",
                   "--session-dir", str(tmp_path / "sessions"), *args, cwd=str(tmp_path))


def session_entries(tmp_path):
    [path] = glob.glob(str(tmp_path / "sessions" / "*.jsonl"))
    return path, [json.loads(line) for line in open(path)]


@pytest.mark.ex_todo
def test_print_mode_shows_each_new_list_on_stderr_and_the_session_keeps_it(tmp_path):
    result = with_todo(tmp_path, [PLAN, PROGRESS, answer("Done.")], "-p", "fix it")
    assert result.returncode == 0 and result.stdout.strip() == "Done.", result.stderr
    lines = result.stderr.splitlines()
    start = lines.index("miniagent: todo:")
    assert lines[start:start + 8] == [
        "miniagent: todo:", "  todos: 0 of 2 completed", "  [>] read the code",
        "  [ ] fix the bug",
        "miniagent: todo:", "  todos: 1 of 2 completed", "  [x] read the code",
        "  [>] fix the bug"]
    _, entries = session_entries(tmp_path)
    results = [e["message"] for e in entries if e["type"] == "message"
               and e["message"]["role"] == "toolResult"]
    assert results[-1]["details"] == {"todos": [
        {"content": "read the code", "status": "completed"},
        {"content": "fix the bug", "status": "in_progress"}]}
    assert "[>] fix the bug" in results[-1]["content"][0]["text"]  # the model reads it back


def test_the_system_prompt_says_when_to_use_it_in_one_line(tmp_path):
    extensions = load_extensions(str(tmp_path), ["todo"])
    from miniagent.project.system_prompt import tool_list
    assert tool_list(extensions.tools) == (
        "- todo_write: Keep a todo list for work of three or more steps, and update it as "
        "you go; skip it for a question or a one-step change.")


@pytest.mark.ex_todo
@pytest.mark.parametrize("items, wanted", [
    ([("a", "in_progress"), ("b", "in_progress")], "work on one at a time"),
    ([("a", "pending"), ("  ", "pending")], "Item 2 is empty"),
    ([("x" * 300, "pending")], "keep each under 200"),
    ([("a", "pending")] * 51, "keep it to 50 at most"),
])
def test_a_list_the_model_gets_wrong_is_refused_with_what_to_fix(tmp_path, items, wanted):
    [tool] = load_extensions(str(tmp_path), ["todo"]).tools
    args = validate_arguments(tool, write_todos(*items)["content"][0]["arguments"])
    with pytest.raises(ToolError, match=wanted):
        tool.execute("c1", args, ToolContext(str(tmp_path)))


def test_a_status_outside_the_three_is_refused_by_the_schema(tmp_path):
    [tool] = load_extensions(str(tmp_path), ["todo"]).tools
    with pytest.raises(ToolError, match='must be one of "pending", "in_progress", "completed"'):
        validate_arguments(tool, {"todos": [{"content": "a", "status": "done"}]})


def harness_with_todo(tmp_path, turns, **options):
    """A harness whose agent has the todo extension, as assemble.py wires it."""
    extensions = load_extensions(str(tmp_path), ["todo"])
    harness = Harness(partial(make_agent, turns, tools=extensions.tools, cwd=str(tmp_path)),
                      Session.create(str(tmp_path), session_dir=str(tmp_path / "s")),
                      **options)
    harness.project = type("Project", (), {"extensions": extensions, "sandbox": Unconfined(),
                                           "settings": Settings()})()
    extensions.bind(harness, lambda names: [])
    extensions.subscribe_all(harness.agent)
    return harness, extensions.commands["todos"].run


@pytest.mark.ex_todo
def test_todos_shows_the_list_as_it_was_where_a_tree_move_lands(tmp_path):
    harness, todos = harness_with_todo(tmp_path, [PLAN, answer("planned"),
                                                  PROGRESS, answer("going")])
    assert todos("") == "The todo list is empty."
    harness.run("plan it")
    harness.run("go on")
    assert todos("") == "todos (1 of 2 completed):\n[x] read the code\n[>] fix the bug"
    go_on = next(e for e in harness.session.entries if e["type"] == "message"
                 and e["message"]["role"] == "user" and "go on" in str(e["message"]))
    harness.navigate(go_on["id"])  # back to before the second prompt
    assert todos("") == "todos (0 of 2 completed):\n[>] read the code\n[ ] fix the bug"


@pytest.mark.ex_todo
def test_an_empty_list_clears_it(tmp_path):
    harness, todos = harness_with_todo(tmp_path, [PLAN, write_todos(), answer("cleared")])
    harness.run("plan, then drop the plan")
    assert todos("") == "The todo list is empty."


@pytest.mark.ex_todo
def test_a_session_file_from_elsewhere_cannot_feed_it_a_malformed_list(tmp_path):
    harness, todos = harness_with_todo(tmp_path, [PLAN, answer("planned")])
    harness.run("plan it")
    planted = {"role": "toolResult", "toolCallId": "x", "toolName": "todo_write",
               "content": [{"type": "text", "text": "ok"}], "isError": False,
               "details": {"todos": [{"content": "\x1b[2Jgone", "status": "pending"},
                                     {"content": 5, "status": "pending"}]}}
    harness.session.append_message(planted)
    assert todos("").endswith("[>] read the code\n[ ] fix the bug")  # the last good one
    planted["details"]["todos"].pop()
    harness.session.append_message(planted)
    assert todos("").endswith("[ ]  [2Jgone")  # no escape code reaches the terminal


@pytest.mark.ex_todo
def test_a_compaction_during_a_run_hands_the_latest_list_to_the_next_call(tmp_path):
    big = {"content": [call("todo_write", todos=[
        {"content": f"step {n} " + "x" * 150, "status": "pending"} for n in range(5)])],
           "usage": {"input": 900, "output": 10, "cacheRead": 0, "cacheWrite": 0}}
    turns = [answer("earlier answer " * 40, input=100, output=50), PLAN, big,
             answer("SUMMARY of the work", input=300, output=20), answer("done")]
    harness, _ = harness_with_todo(tmp_path, turns,
                                   compaction=CompactionSettings(keep_recent_tokens=100),
                                   compact_after_run=False)
    harness.agent.model = replace(harness.agent.model, context_window=1000)
    harness.run("earlier prompt")
    harness.run("plan and work")
    context = harness.session.build_context().messages
    assert any(m["role"] == "compactionSummary" for m in context)
    kept = [m for m in context if m["role"] == "custom" and m["customType"] == "todo"]
    assert len(kept) == 1 and "[ ] step 4" in kept[0]["content"]
    assert context.index(kept[0]) < len(context) - 1  # before the last call, not after it


def test_the_html_export_shows_each_list_where_it_was_written(tmp_path):
    assert with_todo(tmp_path, [PLAN, PROGRESS, answer("Done.")], "-p", "fix it").returncode == 0
    path, _ = session_entries(tmp_path)
    out = tmp_path / "page.html"
    result = run_cli("export", path, "-o", str(out))
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    first, second = page.index("[&gt;] read the code"), page.index("[x] read the code")
    assert first < second and "[&gt;] fix the bug" in page[second:]


# --- In the REPL, in a terminal ---------------------------------------------------------

READY = "/help for commands"  # the greeting: the editor is live under it


def held(name):
    """A bash turn that runs until the test creates the file `name`."""
    return {"content": [call("bash", command=f"while [ ! -e {name} ]; do sleep 0.02; done")]}


def widget_rows(vt):
    """The live area's todo rows, scrollback included: a redraw in place leaves none."""
    return [row for row in vt.transcript().split("\n") if row.startswith("┆ ")]


def test_the_live_area_redraws_the_list_in_place_and_it_is_back_after_resume(tmp_path):
    from pty_driver import Terminal
    turns = [PLAN, held("go1"), PROGRESS, held("go2"), answer("Fixed.")]
    args = ["--script", write_script(tmp_path, turns), "-e", "todo"]
    env = {"MINIAGENT_HOME": str(tmp_path / "home")}
    with Terminal(args, env=env, cwd=str(tmp_path)) as term:
        term.expect_screen(READY)
        term.send("fix it\r")
        term.wait_screen(lambda vt: widget_rows(vt) == [
            "┆ todos: 0 of 2 completed", "┆ [>] read the code", "┆ [ ] fix the bug"])
        (tmp_path / "go1").touch()
        term.wait_screen(lambda vt: widget_rows(vt) == [
            "┆ todos: 1 of 2 completed", "┆ [x] read the code", "┆ [>] fix the bug"])
        (tmp_path / "go2").touch()
        term.expect_screen("Fixed.")
        term.wait_screen(lambda vt: widget_rows(vt) == [])  # the run is over: gone
        term.send("\x04")
        assert term.wait() == 0
    with Terminal(["-c", *args], env=env, cwd=str(tmp_path)) as term:
        term.expect_screen(READY)
        term.send("/todos\r")
        term.expect_screen("todos (1 of 2 completed):")
        term.expect_screen("[>] fix the bug")
        term.send("\x04")
        assert term.wait() == 0
