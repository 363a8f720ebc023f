"""Plan mode (miniagent/extensions/plan.py): driven as users drive it, in print, json and
rpc mode and in the REPL in a pty, against the scripted model server; what is refused,
what stays on disk, what the next request carries."""

import json

import pytest

import miniagent.extensions.plan as plan_module
from fake_server import FakeServer
from helpers import answer, call, run_cli
from pty_driver import Terminal
from rpc_driver import Rpc

PLAN_TEXT = "Plan:\n1. Add a greeting to hello.py\n2. Run the tests"
TRIES = [{"content": [call("write", path="new.txt", content="x")]},
         {"content": [call("bash", command="rm keep.txt")]},
         answer(PLAN_TEXT)]
READ_ONLY = ["read", "grep", "find", "ls", "bash"]


def served(srv):
    return ["--base-url", srv.base_url + "/v1", "--model", "m"]  # plan is on by default


def tools_of(request):
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def system_of(request):
    return request["body"]["messages"][0]["content"]


def user_texts(request):
    texts = []
    for message in request["body"]["messages"]:
        if message["role"] == "user":
            content = message["content"]
            texts += [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    return texts


def tool_results(request):
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def project(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep me\n")
    return folder


def test_print_plan_refuses_write_and_rm_and_prints_the_plan(tmp_path):
    folder = project(tmp_path)
    with FakeServer(TRIES) as srv:
        result = run_cli(*served(srv), "--no-session", "-p", "--plan", "make a plan",
                         cwd=str(folder))
    assert result.returncode == 0, result.stderr
    assert PLAN_TEXT in result.stdout
    assert (folder / "keep.txt").read_text() == "keep me\n" and not (folder / "new.txt").exists()
    first, last = srv.requests[0], srv.requests[-1]
    assert tools_of(first) == READ_ONLY
    assert "<plan_mode>" in system_of(first) and "Plan:" in system_of(first)
    write_result, rm_result = tool_results(last)
    assert "Tool write not found" in write_result
    assert "rm" in rm_result and ("plan mode" in rm_result.lower())
    assert "miniagent: plan: planning" in result.stderr  # the mode, on stderr


def test_without_a_sandbox_bash_runs_only_the_allow_list(tmp_path, monkeypatch):
    monkeypatch.setattr("miniagent.sandbox.confine.unavailable", lambda policy: "no Landlock")
    folder = project(tmp_path)
    turns = [{"content": [call("bash", command="rm keep.txt")]},
             {"content": [call("bash", command="ls && cat keep.txt 2>/dev/null | wc -l")]},
             answer(PLAN_TEXT)]
    with FakeServer(turns) as srv:
        result = run_cli(*served(srv), "--no-session", "-p", "--plan", "plan", cwd=str(folder))
    assert result.returncode == 0, result.stderr
    refused, listed = tool_results(srv.requests[-1])
    assert refused.startswith("Plan mode: not run, because rm is not on plan mode's list")
    assert "keep.txt" in listed and "1" in listed
    assert (folder / "keep.txt").exists()


@pytest.mark.parametrize("command, refused", [
    ("git log --oneline | head -5", False),
    ("grep -rn TODO . 2>/dev/null", False),
    ("echo hi > out.txt", True),
    ("find . -name '*.pyc' -delete", True),
    ("git commit -m x", True),
    ("cat a; rm -rf b", True),
    ("ls $(rm x)", True),
    ("python3 -c 'open(\"x\",\"w\")'", True),
])
def test_the_allow_list(command, refused):
    assert bool(plan_module.refusal(command)) is refused


class FakeApi:
    """Just what the gate reads: a plan mode that is on, tools narrowed."""
    ctx = None


def test_a_hidden_tool_still_in_the_run_is_refused_at_the_call():
    mode = plan_module.PlanMode(FakeApi())
    mode.planning = True
    verdict = mode.gate({"toolCall": {"name": "mcp__fs__write_file"}, "args": {}})
    assert verdict["block"] and verdict["reason"].startswith(
        "Plan mode: mcp__fs__write_file is not available while planning")
    assert mode.gate({"toolCall": {"name": "read"}, "args": {"path": "a"}}) is None
    mode.planning = False
    assert mode.gate({"toolCall": {"name": "write"}, "args": {}}) is None


LOOKUP = '''
from miniagent.core.tools import Tool, text_result


def setup(api):
    api.register_tool(Tool(name="lookup", description="Look a word up.",
                           parameters={"type": "object", "properties": {}},
                           execute=lambda call_id, args, ctx: text_result("found")))
'''


def test_plan_tools_adds_a_tool_and_never_write(tmp_path, private_home):
    (private_home / "settings.json").write_text(json.dumps({"planTools": ["lookup", "write"]}))
    (tmp_path / "lookup.py").write_text(LOOKUP)
    with FakeServer([answer("Plan: nothing")]) as srv:
        result = run_cli(*served(srv), "-e", str(tmp_path / "lookup.py"), "--no-session",
                         "-p", "--plan", "plan", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert tools_of(srv.requests[0]) == READ_ONLY + ["lookup"]


def test_json_mode_plans_without_asking_and_a_resumed_session_is_still_planning(tmp_path):
    folder = project(tmp_path)
    with FakeServer([answer(PLAN_TEXT), answer("More plan")]) as srv:
        first = run_cli(*served(srv), "--mode", "json", "--plan", "plan", cwd=str(folder))
        again = run_cli(*served(srv), "-c", "-p", "and more", cwd=str(folder))
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    assert [json.loads(line)["type"] for line in first.stdout.splitlines()][-1] == "agent_settled"
    assert tools_of(srv.requests[1]) == READ_ONLY  # -c without --plan: still planning
    assert "<plan_mode>" in system_of(srv.requests[1])


def test_rpc_asks_with_extension_ui_request_and_running_the_plan_restores_the_tools(tmp_path):
    folder = project(tmp_path)
    with FakeServer([answer(PLAN_TEXT), answer("Done.")]) as srv:
        rpc = Rpc(folder, *served(srv), "--plan")
        try:
            rpc.call({"type": "prompt", "message": "plan it"})
            question = rpc.until(lambda r: r["type"] == "extension_ui_request"
                                 and r["method"] == "select")[-1]
            assert question["options"][0] == "Run the plan"
            rpc.send({"type": "extension_ui_response", "id": question["id"],
                      "value": "Run the plan"})
            rpc.until(lambda r: r["type"] == "agent_end"
                      and "Done." in json.dumps(r["messages"]))
            status, _, stderr = rpc.close()
        finally:
            rpc.kill()
    assert status == 0, stderr
    planning, running = srv.requests
    assert tools_of(planning) == READ_ONLY and "write" in tools_of(running)
    assert "<plan_mode>" not in system_of(running)
    assert any(PLAN_TEXT in part for part in user_texts(running))


CTRL_D = "\x04"


def test_the_repl_plans_refuses_writes_then_runs_the_plan(tmp_path):
    folder = project(tmp_path)
    turns = TRIES + [answer("Done.")]
    env = {"MINIAGENT_HOME": str(tmp_path / "home")}
    with FakeServer(turns) as srv, Terminal(served(srv), env=env, cwd=str(folder)) as term:
        term.expect_screen("/help for commands")
        term.send("/plan\r")
        term.expect_screen("Plan mode on")
        term.wait_screen(lambda vt: any("plan: planning" in row for row in vt.lines()))
        term.send("make a plan\r")
        term.expect_screen("What next?")
        term.expect_screen("1. Run the plan")
        assert (folder / "keep.txt").exists() and not (folder / "new.txt").exists()
        term.send("1\r")
        term.expect_screen("Done.")
        term.wait_screen(lambda vt: not any("plan: planning" in row for row in vt.lines()))
        term.send(CTRL_D)
        assert term.wait() == 0
    planning, running = srv.requests[2], srv.requests[3]
    assert tools_of(planning) == READ_ONLY and "write" in tools_of(running)
    assert any(PLAN_TEXT in part for part in user_texts(running))
    write_result, rm_result = tool_results(planning)
    assert "Tool write not found" in write_result and "rm" in rm_result
    assert (folder / "keep.txt").read_text() == "keep me\n"


def test_shift_tab_toggles_plan_mode_at_the_prompt(tmp_path):
    env = {"MINIAGENT_HOME": str(tmp_path / "home")}
    with FakeServer([]) as srv, Terminal(served(srv), env=env, cwd=str(tmp_path)) as term:
        term.expect_screen("/help for commands")
        term.send("\x1b[Z")  # Shift+Tab
        term.expect_screen("Plan mode on")
        term.send("\x1b[Z")
        term.expect_screen("Plan mode off")
        term.send(CTRL_D)
        assert term.wait() == 0


def test_plan_without_the_extension_stops_instead_of_running_with_every_tool(tmp_path):
    with FakeServer([answer("I wrote it.")]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--no-session",
                         "--no-extension", "plan", "-p", "--plan", "plan", cwd=str(tmp_path))
    assert result.returncode == 2 and srv.requests == []
    assert "--plan needs the plan extension" in result.stderr
