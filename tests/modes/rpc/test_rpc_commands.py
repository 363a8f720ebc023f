"""pi 1.6's rpc commands and events, as its docs (rpc-commands.md, json.md) write them:
one rpc process per test serves every command the test needs."""

import json
import os

from fake_server import FakeServer
from helpers import answer, bash_turn, write_script
from rpc_driver import Rpc, of_type


def test_queue_commands_dispositions_and_queue_update(tmp_path):
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    turns = [bash_turn("echo waiting; read -t 30 line <> gate"), answer("ok")]
    with FakeServer(turns) as srv:
        rpc = Rpc(tmp_path, "--base-url", srv.base_url + "/v1", "--no-session")
        try:
            assert rpc.call({"type": "prompt", "message": "run it"}) == {"disposition": "started"}
            rpc.until(lambda r: r["type"] == "tool_execution_update")  # the tool is running
            assert rpc.call({"type": "steer", "message": "s1"}) == {"disposition": "queued"}
            assert rpc.call({"type": "follow_up", "message": "f1"}) == {"disposition": "queued"}
            rpc.send({"id": "q", "type": "prompt", "message": "f2",
                      "streamingBehavior": "followUp"})
            records = rpc.until(lambda r: r.get("id") == "q")
            assert records[-1]["data"] == {"disposition": "queued"}
            assert of_type(records, "queue_update")[-1] == {
                "type": "queue_update", "steering": ["s1"], "followUp": ["f1", "f2"]}
            rpc.send({"id": "c", "type": "clear_queue"})
            records = rpc.until(lambda r: r.get("id") == "c")
            assert records[-1]["data"] == {"steering": ["s1"], "followUp": ["f1", "f2"]}
            assert records[-2] == {"type": "queue_update", "steering": [], "followUp": []}
            for mode in ("set_steering_mode", "set_follow_up_mode"):
                rpc.call({"type": mode, "mode": "all"})
            bad = rpc.ask({"type": "set_steering_mode", "mode": "sometimes"})
            assert not bad["success"] and "all, one-at-a-time" in bad["error"]
            state = rpc.call({"type": "get_state"})
            assert (state["steeringMode"], state["followUpMode"]) == ("all", "all")
            assert state["pendingMessageCount"] == 0 and state["isStreaming"] is True
            assert state["sandbox"] == {"mode": "off", "writableRoots": [], "network": False}
            with open(gate, "w") as opened:
                opened.write("go\n")
            rpc.until(lambda r: r["type"] == "agent_settled")
            rpc.close()
        finally:
            rpc.kill()
    assert len(srv.requests) == 2  # the cleared messages were never sent


def test_session_commands_compaction_and_bash_streaming(tmp_path, private_home):
    (private_home / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    skill = private_home / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: review\ndescription: Review a diff.\n---\nRead the diff.\n")
    script = write_script(tmp_path, [answer("one " * 50), answer("two " * 50),
                                     answer("The summary."), answer("The turn so far.")])
    broken = tmp_path / "broken.py"
    broken.write_text("def setup(api):\n    def fail(event):\n        raise KeyError('oops')\n"
                      "    api.on('agent_start', fail)\n")
    rpc = Rpc(tmp_path, "--script", script, "-e", str(broken))
    try:
        for text in ("first prompt", "second prompt"):
            rpc.call({"type": "prompt", "message": text})
            records = rpc.until(lambda r: r["type"] == "agent_settled")
        assert of_type(records, "extension_error") == [{
            "type": "extension_error", "extensionPath": str(broken), "event": "agent_start",
            "error": "KeyError: 'oops'"}]
        rpc.send({"id": "n", "type": "set_session_name", "name": "  my work "})
        changed = rpc.until(lambda r: r.get("id") == "n")[-2]
        assert changed == {"type": "session_info_changed", "name": "my work"}
        assert rpc.call({"type": "get_state"})["sessionName"] == "my work"
        assert "empty" in rpc.ask({"type": "set_session_name", "name": " "})["error"]

        prompts = rpc.call({"type": "get_fork_messages"})["messages"]
        assert [p["text"] for p in prompts] == ["first prompt", "second prompt"]
        listed = rpc.call({"type": "get_entries"})
        ids = [entry["id"] for entry in listed["entries"]]
        assert listed["leafId"] == ids[-1] and prompts[0]["entryId"] in ids
        later = rpc.call({"type": "get_entries", "since": ids[-2]})
        assert [e["id"] for e in later["entries"]] == ids[-1:]
        assert rpc.ask({"type": "get_entries", "since": "nope"})["error"] == "Entry not found: nope"
        tree = rpc.call({"type": "get_tree"})
        node, depth = tree["tree"][0], 1
        while node["children"]:
            node, depth = node["children"][0], depth + 1
        assert depth == len(ids) and node["entry"]["id"] == tree["leafId"] == ids[-1]

        rpc.send({"id": "b", "type": "bash", "command": "echo one; echo two"})
        records = rpc.until(lambda r: r.get("id") == "b" and r["type"] == "response")
        streamed = "".join(r["delta"] for r in of_type(records, "bash_execution_update"))
        assert streamed == "one\ntwo\n" and all(r["id"] == "b" for r in
                                                of_type(records, "bash_execution_update"))
        assert records[-1]["data"]["output"] == "one\ntwo\n"

        rpc.send({"id": "k", "type": "compact"})
        records = rpc.until(lambda r: r.get("id") == "k")
        start, end = of_type(records, "compaction_start"), of_type(records, "compaction_end")
        assert start == [{"type": "compaction_start", "reason": "manual"}]
        assert (end[0]["reason"], end[0]["aborted"]) == ("manual", False)
        assert records[-1]["success"], records[-1]["error"]
        result = records[-1]["data"]
        assert result["summary"].startswith("The summary.") and result == end[0]["result"]
        assert {"firstKeptEntryId", "tokensBefore", "estimatedTokensAfter", "details"} <= set(result)
        stats = rpc.call({"type": "get_session_stats"})
        usage = stats["contextUsage"]
        assert usage["tokens"] is None and usage["percent"] is None  # no reply measured it yet
        # Every message entry, compacted ones too: the system entry, 2 prompts, 2 replies,
        # the bash run. pi 1.6 counts so (its getSessionStats reads every entry; checked
        # against pi itself), not the messages of the current context.
        assert stats["totalMessages"] == 6

        page = tmp_path / "page.html"
        assert rpc.call({"type": "export_html", "outputPath": str(page)}) == {"path": str(page)}
        assert "The summary." in page.read_text()
        before = rpc.call({"type": "get_state"})
        assert rpc.call({"type": "clone"}) == {"cancelled": False}
        cloned = rpc.call({"type": "get_state"})
        assert cloned["sessionId"] != before["sessionId"]
        assert cloned["messageCount"] == before["messageCount"]
        assert rpc.call({"type": "new_session", "parentSession": before["sessionFile"]}) == {
            "cancelled": False}
        skills = [command for command in rpc.call({"type": "get_commands"})["commands"]
                  if command["source"] == "skill"]  # the bundled extensions' come too
        assert skills == [{
            "name": "skill:review", "description": "Review a diff.", "source": "skill",
            "sourceInfo": {"path": str(skill), "source": "local", "scope": "user",
                           "origin": "top-level"}}]
        for switch in ("set_auto_compaction", "set_auto_retry"):
            assert rpc.ask({"type": switch})["error"] == f'{switch} needs "enabled" (true or false)'
            rpc.call({"type": switch, "enabled": False})
        assert rpc.call({"type": "get_state"})["autoCompactionEnabled"] is False
        rpc.call({"type": "abort_retry"})  # nothing waits: nothing to do, and no error
        status, rest, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0 and rest == [], stderr


ASKING = """
def setup(api):
    def before_switch(event):
        api.ctx.ui.set_widget("w", ["a", "b"])
        if not api.ctx.ui.confirm("Start over?", "The old session is kept."):
            return {"cancel": True}
    def before_fork(event):
        choice = api.ctx.ui.select("Clone?", ["yes", "no"])
        api.ctx.ui.notify(f"chose {choice}", "warning")
        return None if choice == "yes" else {"cancel": True}
    api.on("session_before_switch", before_switch)
    api.on("session_before_fork", before_fork)
    api.on("session_start", lambda event: api.ctx.ui.notify("start " + event["reason"]))
"""


def test_extension_ui_requests_ask_the_program_and_a_no_cancels_the_move(tmp_path):
    asking = tmp_path / "asking.py"
    asking.write_text(ASKING)
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("ok")]), "-e", str(asking))
    ui = lambda r: r["type"] == "extension_ui_request"  # noqa: E731
    try:
        started = rpc.until(ui)[-1]
        assert (started["method"], started["message"]) == ("notify", "start startup")
        for yes in (False, True):
            rpc.send({"id": "n", "type": "new_session"})
            widget, question = rpc.until(ui)[-1], rpc.until(ui)[-1]
            assert widget["method"] == "setWidget" and widget["widgetLines"] == ["a", "b"]
            assert (question["method"], question["title"]) == ("confirm", "Start over?")
            rpc.send({"type": "extension_ui_response", "id": question["id"], "confirmed": yes})
            records = rpc.until(lambda r: r.get("id") == "n")
            assert records[-1]["data"] == {"cancelled": not yes}
        assert [r["message"] for r in of_type(records, "extension_ui_request")] == ["start new"]
        rpc.call({"type": "prompt", "message": "hi"})
        rpc.until(lambda r: r["type"] == "agent_settled")
        rpc.send({"id": "c", "type": "clone"})
        question = rpc.until(ui)[-1]
        assert (question["method"], question["options"]) == ("select", ["yes", "no"])
        rpc.send({"type": "extension_ui_response", "id": question["id"], "value": "no"})
        told = rpc.until(ui)[-1]
        assert (told["message"], told["notifyType"]) == ("chose no", "warning")
        assert rpc.response("c")["data"] == {"cancelled": True}
        rpc.close()
    finally:
        rpc.kill()
