"""The subagents extension: a task tool whose child is miniagent itself, over rpc.

The parent runs in this process (run_cli); each child is a real `python -m miniagent`
process talking to the same scripted server, whose "children" turns are addressed by
the child's prompt (tests/fake_server.py)."""

import json
import subprocess
import threading

import pytest

from fake_server import FakeServer
from helpers import processes_below, run_cli, wait_gone
from pty_driver import Terminal
from rpc_driver import Rpc, of_type
from miniagent.extensions.subagents.agents import load_agents, parse_agent
from miniagent.sandbox import landlock


EXTENSION = "subagents"  # bundled: loaded by name


def task(description, prompt, **more):
    return {"type": "toolCall", "name": "task",
            "arguments": {"description": description, "prompt": prompt, **more}}


def says(text, **fields):
    return {"content": [{"type": "text", "text": text}], **fields}


def run_parent(srv, tmp_path, *flags, prompt="go", **kwargs):
    return run_cli("--base-url", srv.base_url + "/v1", "--model", "fake-model",
                   "-e", EXTENSION, *flags, "-p", prompt, cwd=str(tmp_path), **kwargs)


def session_entries(home):
    """The parent's session (the only file directly in a project folder) as entries."""
    [path] = [p for p in (home / "sessions").glob("*/*.jsonl")]
    return path, [json.loads(line) for line in path.read_text().splitlines()[1:]]


def tool_results(entries):
    return [e["message"] for e in entries
            if e["type"] == "message" and e["message"]["role"] == "toolResult"]


def test_two_tasks_run_side_by_side_and_answer_in_call_order(tmp_path, home):
    # Both children hold their reply until the server has seen all three requests
    # (the parent's and both children's): one after the other, they never would.
    held = {"fault": {"hold_after_pieces": 1}}
    script = {"turns": [{"content": [task("alpha", "Job alpha"), task("beta", "Job beta")]},
                        says("both done")],
              "children": {"Job alpha": [says("alpha answer", **held)],
                           "Job beta": [says("beta answer", **held)]}}
    with FakeServer(script) as srv:
        release = threading.Thread(target=lambda: srv.wait_for_requests(3) and srv.go_on.set())
        release.start()
        result = run_parent(srv, tmp_path)
        release.join()
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "both done"
    path, entries = session_entries(home)
    alpha, beta = tool_results(entries)
    assert [alpha["content"][0]["text"], beta["content"][0]["text"]] == \
        ["alpha answer", "beta answer"]
    for result_message in (alpha, beta):  # each child's session, linked, in the folder
        child = path.parent / result_message["details"]["childSession"]
        assert child.parent == path.with_suffix("") and child.is_file()
        texts = child.read_text()
        assert "Job alpha" in texts or "Job beta" in texts


def test_the_parents_stats_count_the_children_and_no_listing_picks_a_child(tmp_path, home):
    script = {"turns": [{"content": [task("alpha", "Job alpha"), task("beta", "Job beta")]},
                        says("both done")],
              "children": {"Job alpha": [says("a", usage={"input": 1000, "output": 7})],
                           "Job beta": [says("b", usage={"input": 2000, "output": 9})]}}
    with FakeServer(script) as srv:
        assert run_parent(srv, tmp_path).returncode == 0
    child_tools = [[tool["function"]["name"] for tool in request["body"]["tools"]]
                   for request in srv.requests[1:3]]
    assert child_tools == [["read", "grep", "find", "ls"]] * 2  # no task: no grandchildren
    path, _ = session_entries(home)
    stats = run_cli("stats", str(path))
    assert "sub-agents       2 sessions" in stats.stdout
    assert "(sub-agents)  2 turns  input 3000  output 16" in stats.stdout
    listing = run_cli("sessions", cwd=str(tmp_path))
    assert listing.stdout.count(".jsonl") == 1 and str(path) in listing.stdout


def test_a_session_naming_a_child_outside_its_folder_is_not_followed(tmp_path, home):
    elsewhere = tmp_path / "other.jsonl"
    elsewhere.write_text('{"type": "session", "version": 3, "id": "x", "cwd": "/"}\n')
    parent = tmp_path / "parent.jsonl"
    result = {"role": "toolResult", "toolCallId": "c", "toolName": "task", "isError": False,
              "content": [], "details": {"childSession": "other.jsonl"}, "timestamp": 1}
    parent.write_text(json.dumps({"type": "session", "version": 3, "id": "p", "cwd": "/"}) +
                      "\n" + json.dumps({"type": "message", "id": "1", "parentId": None,
                                         "timestamp": "t", "message": result}) + "\n")
    assert "sub-agents" not in run_cli("stats", str(parent)).stdout


def rpc_parent(srv, tmp_path, *flags):
    return Rpc(tmp_path, "--base-url", srv.base_url + "/v1", "--model", "fake-model",
               "-e", EXTENSION, *flags)


def is_widget(lines):
    return lambda r: r.get("method") == "setWidget" and r.get("widgetLines") == lines


def test_abort_stops_every_child_and_the_live_lines_follow_them(tmp_path):
    held = {"fault": {"hold_after_pieces": 1}}  # never released: only an abort ends them
    script = {"turns": [{"content": [task("alpha", "Job alpha"), task("beta", "Job beta")]}],
              "children": {"Job alpha": [says("a", **held)], "Job beta": [says("b", **held)]}}
    with FakeServer(script) as srv:
        rpc = rpc_parent(srv, tmp_path, "--no-session")
        try:
            rpc.send({"id": "p", "type": "prompt", "message": "go"})
            assert srv.wait_for_requests(3)
            rpc.until(lambda r: r.get("method") == "setWidget"
                      and len(r.get("widgetLines") or []) == 2)
            children = processes_below(rpc.proc.pid, b"miniagent")
            assert len(children) == 2
            rpc.send({"id": "a", "type": "abort"})
            records = rpc.until(lambda r: r["type"] == "agent_settled")
            ends = of_type(records, "tool_execution_end")
            assert [end["result"]["content"][0]["text"] for end in ends] == \
                ["The sub-agent was stopped."] * 2
            assert any(is_widget(None)(record) for record in records)
            rpc.close()
        finally:
            rpc.kill()
    assert all(wait_gone(pid) for pid in children)


WRITER = "---\nname: writer\ndescription: writes files\ntools: read, write\n---\nWrite.\n"


def writer_script(path="made.txt"):
    return {"turns": [{"content": [task("write it", "Job write", agent="writer")]},
                      says("parent done")],
            "children": {"Job write": [
                {"content": [{"type": "toolCall", "name": "write",
                              "arguments": {"path": path, "content": "x"}}]},
                says("child done")]}}


def test_confirm_asks_the_childs_write_in_the_parents_front_end(tmp_path, home):
    (home / "agents").mkdir()
    (home / "agents" / "writer.md").write_text(WRITER)
    with FakeServer(writer_script()) as srv:
        rpc = rpc_parent(srv, tmp_path, "--no-session", "--confirm")
        try:
            rpc.send({"id": "p", "type": "prompt", "message": "go"})
            question = rpc.until(lambda r: r["type"] == "extension_ui_request"
                                 and r["method"] == "confirm")[-1]
            assert question["message"].startswith("write wants to write made.txt")
            assert "made.txt" in question["message"]
            rpc.send({"type": "extension_ui_response", "id": question["id"], "confirmed": False})
            rpc.until(lambda r: r["type"] == "agent_settled")
            rpc.close()
        finally:
            rpc.kill()
        child_results = [m for m in srv.requests[2]["body"]["messages"] if m["role"] == "tool"]
    assert "refused" in child_results[0]["content"]
    assert not (tmp_path / "made.txt").exists()


def test_a_child_gets_no_tool_the_parent_lacks(tmp_path, home):
    # As in plan mode, where the parent keeps only tools that cannot write.
    (home / "agents").mkdir()
    (home / "agents" / "writer.md").write_text(WRITER)
    with FakeServer(writer_script()) as srv:
        result = run_parent(srv, tmp_path, "--tools", "read,grep,task")
    assert result.returncode == 0, result.stderr
    assert [t["function"]["name"] for t in srv.requests[1]["body"]["tools"]] == ["read"]
    child_results = [m for m in srv.requests[2]["body"]["messages"] if m["role"] == "tool"]
    assert "Tool write not found" in child_results[0]["content"]
    assert not (tmp_path / "made.txt").exists()


@pytest.mark.skipif(landlock.abi() == 0, reason="this kernel has no Landlock")
def test_the_parents_sandbox_confines_the_childs_commands(tmp_path, home):
    (home / "agents").mkdir()
    (home / "agents" / "shell.md").write_text("---\nname: shell\ntools: bash\n---\n")
    script = {"turns": [{"content": [task("touch", "Job touch", agent="shell")]},
                        says("parent done")],
              "children": {"Job touch": [{"content": [{"type": "toolCall", "name": "bash",
                                                       "arguments": {"command": "touch made"}}]},
                                         says("child done")]}}
    with FakeServer(script) as srv:
        result = run_parent(srv, tmp_path, "--sandbox", "read-only")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "made").exists()
    child_results = [m for m in srv.requests[2]["body"]["messages"] if m["role"] == "tool"]
    assert "sandbox" in child_results[0]["content"]


def git(tmp_path, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path,
                   check=True, capture_output=True)


def test_review_hands_the_uncommitted_diff_to_a_child_and_prints_its_findings(tmp_path, home):
    (tmp_path / "app.py").write_text("x = 1\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "app.py").write_text("x = 2  # changed\n")
    script = {"turns": [says("noted")], "children": {
        "Review these uncommitted changes": [says("app.py:1 the new value is untested")]}}
    with FakeServer(script) as srv:
        rpc = rpc_parent(srv, tmp_path)
        try:
            rpc.send({"id": "r", "type": "prompt", "message": "/review"})
            said = rpc.until(lambda r: r.get("method") == "notify")[-1]
            # a session file is written from its first message on: one prompt more
            rpc.send({"id": "p", "type": "prompt", "message": "thanks"})
            rpc.until(lambda r: r["type"] == "agent_settled")
            rpc.close()
        finally:
            rpc.kill()
    assert said["message"] == "app.py:1 the new value is untested"
    sent = srv.requests[0]["body"]["messages"]
    assert "+x = 2  # changed" in [m for m in sent if m["role"] == "user"][0]["content"][0]["text"]
    assert [t["function"]["name"] for t in srv.requests[0]["body"]["tools"]] == \
        ["read", "grep", "find", "ls"]
    path, _ = session_entries(home)  # the review's cost is the parent's too
    assert "sub-agents       1 sessions" in run_cli("stats", str(path)).stdout


def test_an_agent_definition_is_front_matter_then_the_prompt():
    agent = parse_agent("---\nname: scout\ntools: read, grep\nmodel: m1\n---\nBe brief.\n", "f")
    assert (agent.name, agent.tools, agent.model, agent.prompt) == \
        ("scout", ["read", "grep"], "m1", "Be brief.")
    for text in ("no front matter", "---\nname: two words\n---\n"):
        with pytest.raises(ValueError):
            parse_agent(text, "f")


def test_a_projects_definition_wins_and_a_bad_file_is_named(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir(), project.mkdir()
    (home / "scout.md").write_text("---\nname: scout\ndescription: mine\n---\n")
    (project / "scout.md").write_text("---\nname: scout\ndescription: theirs\n---\n")
    (project / "big.md").write_text("---\nname: big\n---\n" + "x" * 70_000)
    agents, problems = load_agents([home, project])
    assert agents["scout"].description == "theirs" and "big" not in agents
    assert len(problems) == 1 and "big.md" in problems[0] and "64 KB" in problems[0]


def test_an_untrusted_projects_agents_are_not_read(tmp_path, home):
    (tmp_path / ".miniagent" / "agents").mkdir(parents=True)
    (tmp_path / ".miniagent" / "agents" / "writer.md").write_text(WRITER)
    with FakeServer(writer_script()) as srv:
        result = run_parent(srv, tmp_path, "--no-approve")
    assert result.returncode == 0, result.stderr
    _, entries = session_entries(home)
    [refused] = tool_results(entries)
    assert refused["isError"] and "No agent named 'writer'" in refused["content"][0]["text"]
    assert not (tmp_path / "made.txt").exists()


def test_in_the_repl_each_child_is_a_live_line_and_esc_stops_both(tmp_path):
    held = {"fault": {"hold_after_pieces": 1}}
    script = {"turns": [{"content": [task("alpha", "Job alpha"), task("beta", "Job beta")]}],
              "children": {"Job alpha": [says("a", **held)], "Job beta": [says("b", **held)]}}
    env = {"MINIAGENT_HOME": str(tmp_path / "home")}
    with FakeServer(script) as srv, Terminal(
            ["--base-url", srv.base_url + "/v1", "--model", "fake-model", "-e", EXTENSION],
            env=env, cwd=str(tmp_path)) as term:
        term.expect_screen("/help for commands")
        term.send("go\r")
        assert srv.wait_for_requests(3)
        term.wait_screen(lambda vt: any("sub-agent alpha" in row for row in vt.lines())
                         and any("sub-agent beta" in row for row in vt.lines()))
        children = processes_below(term.process.pid, b"--mode")
        assert len(children) == 2
        term.send("\x1b")  # Esc
        term.expect_screen("(stopped)", timeout=10)
        term.wait_screen(lambda vt: not any(row.startswith("sub-agent") for row in vt.lines()))
        assert all(wait_gone(pid) for pid in children)
        term.send("\x04")  # Ctrl-D
        assert term.wait() == 0


def test_a_sub_agent_started_in_plan_mode_plans_too_and_cannot_write(tmp_path, home):
    # planTools lets the planning parent hand work to a sub-agent; the child is started
    # with --plan, so its write is refused there and nothing changes on disk.
    (home / "settings.json").write_text(json.dumps({"planTools": ["task"]}))
    script = {"turns": [{"content": [task("look", "Job look")]}, says("planned")],
              "children": {"Job look": [
                  {"content": [{"type": "toolCall", "name": "write",
                                "arguments": {"path": "made.txt", "content": "x"}}]},
                  says("Plan: nothing written")]}}
    with FakeServer(script) as srv:
        result = run_parent(srv, tmp_path, "--plan")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "made.txt").exists()
    path, entries = session_entries(home)
    [answer] = tool_results(entries)
    assert answer["content"][0]["text"] == "Plan: nothing written"
    child = (path.parent / answer["details"]["childSession"]).read_text().splitlines()
    child_entries = [json.loads(line) for line in child[1:]]
    refused = [e["message"] for e in child_entries if e["type"] == "message"
               and e["message"]["role"] == "toolResult"]
    assert [(r["toolName"], r["isError"]) for r in refused] == [("write", True)]
    modes = [e["data"]["enabled"] for e in child_entries if e.get("customType") == "plan"]
    assert modes == [True]  # the child was started in plan mode (--plan)
