"""RPC mode, driven as a program drives it: `python -m miniagent --mode rpc` in a subprocess,
JSON commands on its stdin, events and responses read from its stdout."""

import json
import os

from fake_server import FakeServer
from helpers import answer, bash_turn, wait_gone, write_script
from rpc_driver import WAIT, Rpc, of_type
from miniagent.session.tree import Session


def test_a_prompt_is_answered_at_once_then_its_events_follow_to_agent_settled(tmp_path):
    turns = [bash_turn("echo hi"), answer("Done.", input=10, output=5)]
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, turns))
    try:
        rpc.send({"id": "p1", "type": "prompt", "message": "go"})
        records = rpc.until(lambda r: r["type"] == "agent_settled")
        assert records[0] == {"id": "p1", "type": "response", "command": "prompt",
                              "success": True, "data": {"disposition": "started"}}
        assert records[1]["type"] == "agent_start"
        assert records[-1] == {"type": "agent_settled", "aborted": False}
        assert records[-2]["type"] == "agent_end" and records[-2]["willRetry"] is False
        ended = of_type(records, "tool_execution_end")[0]
        assert ended["result"]["content"][0]["text"] == "hi\n"
        assert isinstance(ended["durationMs"], int) and ended["durationMs"] >= 0
        updates = [r["assistantMessageEvent"] for r in of_type(records, "message_update")]
        started = next(u for u in updates if u["type"] == "toolcall_start")
        assert started["toolName"] == "bash" and started["id"] == ended["toolCallId"]
        assert rpc.call({"type": "get_last_assistant_text"}) == {"text": "Done."}
        messages = rpc.call({"type": "get_messages"})["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"]
        stats = rpc.call({"type": "get_session_stats"})
        assert {key: stats[key] for key in ("userMessages", "assistantMessages", "toolCalls",
                                            "toolResults", "totalMessages", "toolCallsByName",
                                            "toolErrors")} == {
            "userMessages": 1, "assistantMessages": 2, "toolCalls": 1, "toolResults": 1,
            "totalMessages": 5,  # every message entry, the system entry too, as pi 1.6
            "toolCallsByName": {"bash": 1}, "toolErrors": 0}
        assert stats["tokens"]["input"] == 10 and stats["tokens"]["total"] == 15
        assert stats["models"]["scripted/scripted"]["turns"] == 2
        assert stats["sessionFile"] == rpc.call({"type": "get_state"})["sessionFile"]
        usage = stats["contextUsage"]
        assert usage["contextWindow"] == 128000 and usage["tokens"] > 0
        assert usage["percent"] == usage["tokens"] / 128000 * 100
        status, rest, _ = rpc.close()
    finally:
        rpc.kill()
    assert status == 0 and rest == []


def test_a_steer_during_a_slow_tool_lands_in_the_next_request(tmp_path):
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    # The command says it started, then waits (at most 30 s) for the test to open the gate.
    turns = [bash_turn("echo waiting; read -t 30 line <> gate; echo got $line"), answer("ok")]
    with FakeServer(turns) as srv:
        rpc = Rpc(tmp_path, "--base-url", srv.base_url + "/v1", "--no-session")
        try:
            rpc.send({"id": "p", "type": "prompt", "message": "run it"})
            rpc.until(lambda r: r["type"] == "tool_execution_update")  # the tool is running
            busy = rpc.ask({"type": "prompt", "message": "another"})
            assert not busy["success"] and "streamingBehavior" in busy["error"]
            rpc.call({"type": "steer", "message": "Use tabs, not spaces."})
            assert rpc.call({"type": "get_state"})["pendingMessageCount"] == 1
            with open(gate, "w") as opened:
                opened.write("go\n")
            records = rpc.until(lambda r: r["type"] == "agent_end")
            rpc.close()
        finally:
            rpc.kill()
    assert of_type(records, "tool_execution_end")[0]["result"]["content"][0]["text"] == \
        "waiting\ngot go\n"
    second = srv.requests[1]["body"]["messages"]
    assert [m["role"] for m in second[-3:]] == ["assistant", "tool", "user"]
    assert second[-1]["content"] in ("Use tabs, not spaces.",
                                     [{"type": "text", "text": "Use tabs, not spaces."}])


def test_abort_ends_the_turn_as_aborted_and_kills_the_tools_process_group(tmp_path):
    turns = [bash_turn("sleep 60 & echo pids $$ $!; sleep 60"), answer("never")]
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, turns), "--no-session")
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        update = rpc.until(lambda r: r["type"] == "tool_execution_update")[-1]
        shell, child = map(int, update["partialResult"]["content"][0]["text"].split()[1:3])
        rpc.send({"id": "a", "type": "abort"})
        records = rpc.until(lambda r: r.get("id") == "a")
        assert records[-1]["success"]
        # answered once the run has ended: a new prompt may follow at once
        assert records[-2] == {"type": "agent_settled", "aborted": True}
        assert records[-3]["type"] == "agent_end"
        assert records[-3]["messages"][-1]["stopReason"] == "aborted"
        assert "Command aborted" in of_type(records, "tool_execution_end")[0]["result"][
            "content"][0]["text"]
        assert rpc.call({"type": "get_state"})["isStreaming"] is False
        status, _, _ = rpc.close()
    finally:
        rpc.kill()
    assert status == 0
    assert wait_gone(shell) and wait_gone(child)


LAB = {"providers": {"lab": {
    "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "local-key",
    "models": [{"id": "thinker", "reasoning": True, "contextWindow": 32000,
                "thinkingLevelMap": {"xhigh": "xhigh", "max": None}},
               {"id": "plain", "contextWindow": 8000}]}}}


def test_get_state_and_set_model_carry_pi_s_model_object_and_levels_are_clamped(
        tmp_path, private_home):
    (private_home / "models.json").write_text(json.dumps(LAB))
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("hi")]))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "hi"})  # the file exists from here
        rpc.until(lambda r: r["type"] == "agent_settled")
        scripted = rpc.call({"type": "get_state"})["model"]
        assert {k: scripted[k] for k in ("provider", "id", "api", "reasoning", "contextWindow")} \
            == {"provider": "scripted", "id": "scripted", "api": "scripted",
                "reasoning": False, "contextWindow": 128000}
        assert rpc.call({"type": "get_available_thinking_levels"}) == {"levels": ["off"]}
        assert rpc.call({"type": "cycle_thinking_level"}) is None
        assert rpc.call({"type": "cycle_model"}) is None  # the scripted provider has one
        model = rpc.call({"type": "set_model", "provider": "lab", "modelId": "thinker"})
        assert model == {"id": "thinker", "name": "thinker", "api": "openai-completions",
                         "provider": "lab", "baseUrl": "http://127.0.0.1:9/v1",
                         "reasoning": True, "input": ["text"], "contextWindow": 32000,
                         "maxTokens": 16384, "thinkingLevelMap": {"xhigh": "xhigh", "max": None},
                         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}
        assert rpc.call({"type": "get_available_thinking_levels"}) == {
            "levels": ["off", "minimal", "low", "medium", "high", "xhigh"]}
        rpc.send({"id": "t", "type": "set_thinking_level", "level": "max"})  # lacks max
        changed, answered = rpc.until(lambda r: r.get("id") == "t")[-2:]
        assert changed == {"type": "thinking_level_changed", "level": "xhigh"}
        assert answered["success"] and "data" not in answered
        state = rpc.call({"type": "get_state"})
        assert state["model"] == model and state["thinkingLevel"] == "xhigh"
        assert rpc.call({"type": "cycle_thinking_level"}) == {"level": "off"}
        rpc.call({"type": "set_thinking_level", "level": "minimal"})
        cycled = rpc.call({"type": "cycle_model"})  # to lab/plain, which does not reason
        assert (cycled["model"]["id"], cycled["thinkingLevel"], cycled["isScoped"]) == \
            ("plain", "off", False)
        unknown = rpc.ask({"type": "set_model", "provider": "nobody", "modelId": "x"})
        assert not unknown["success"] and "nobody" in unknown["error"]
        level = rpc.ask({"type": "set_thinking_level", "level": "ultra"})
        assert not level["success"] and "off, minimal, low, medium, high, xhigh, max" in \
            level["error"]
        models = rpc.call({"type": "get_available_models"})["models"]
        assert {"thinker", "plain", "claude-sonnet-4-5"} <= {m["id"] for m in models}
        rpc.close()
    finally:
        rpc.kill()
    recorded = [e["thinkingLevel"] for e in Session.open(state["sessionFile"]).entries
                if e["type"] == "thinking_level_change"]
    assert recorded == ["off", "xhigh", "off", "minimal", "off"]  # what ran, never "max"


def test_bad_lines_get_an_error_response_and_the_process_keeps_serving(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("hi")]), "--no-session")
    try:
        rpc.send(b"hello")
        reply = rpc.next()
        assert (reply["command"], reply["success"], "id" in reply) == ("parse", False, False)
        assert reply["error"].startswith("Failed to parse command: ")
        rpc.send(b"[1, 2]")
        reply = rpc.next()
        assert reply["command"] is None and not reply["success"] and "id" not in reply
        rpc.send({"id": 7, "type": "make_coffee"})
        reply = rpc.next()
        assert reply["id"] == 7 and reply["command"] == "make_coffee"
        assert reply["error"].startswith("Unknown command: make_coffee. Known commands: ")
        assert "get_state" in reply["error"]
        rpc.send({"id": "m", "type": "prompt"})
        assert rpc.next() == {"id": "m", "type": "response", "command": "prompt",
                              "success": False,
                              "error": 'prompt needs "message" (a non-empty string)'}
        rpc.send({"id": "crlf", "type": "get_state"}, end=b"\r\n")  # a CRLF line end
        assert rpc.next()["id"] == "crlf"
        rpc.send({"id": "last", "type": "get_messages"}, end=b"")  # no line end at all
        status, rest, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0
    assert [(r["id"], r["success"]) for r in rest] == [("last", True)], stderr


def test_closing_stdin_lets_the_running_turn_finish_then_exits_0(tmp_path):
    turns = [bash_turn("echo started $$; sleep 0.3; echo finished"), answer("All done.")]
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, turns), "--no-session")
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        update = rpc.until(lambda r: r["type"] == "tool_execution_update")[-1]
        shell = int(update["partialResult"]["content"][0]["text"].split()[1])
        status, rest, _ = rpc.close()  # while the command still runs
    finally:
        rpc.kill()
    assert status == 0
    assert "finished" in of_type(rest, "tool_execution_end")[0]["result"]["content"][0]["text"]
    assert [r["type"] for r in rest[-2:]] == ["agent_end", "agent_settled"]
    assert rest[-2]["messages"][-1]["content"][0]["text"] == "All done."
    assert wait_gone(shell)


def test_confirm_asks_the_program_and_only_a_yes_runs_the_call(tmp_path):
    turns = [bash_turn("touch refused"), bash_turn("touch allowed"), answer("ok")]
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, turns), "--no-session", "--confirm")
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        first = rpc.until(lambda r: r["type"] == "extension_ui_request")[-1]
        assert (first["method"], first["title"]) == ("confirm", "Allow bash?")
        assert first["message"] == "bash wants to run:\n  touch refused"
        assert first["toolName"] == "bash" and first["args"] == {"command": "touch refused"}
        rpc.send({"type": "extension_ui_response", "id": first["id"], "confirmed": False})
        second = rpc.until(lambda r: r["type"] == "extension_ui_request")
        refused = of_type(second, "tool_execution_end")[0]
        assert refused["isError"] and "refused" in refused["result"]["content"][0]["text"]
        # The 0.x record is still an answer, for one release.
        rpc.send({"type": "confirm_response", "id": second[-1]["id"], "confirmed": True})
        rpc.until(lambda r: r["type"] == "agent_end")
        rpc.close()
    finally:
        rpc.kill()
    assert not (tmp_path / "refused").exists()
    assert (tmp_path / "allowed").exists()


def test_bash_output_reaches_the_model_and_abort_bash_stops_a_command(tmp_path):
    with FakeServer([answer("I see it.")]) as srv:
        rpc = Rpc(tmp_path, "--base-url", srv.base_url + "/v1")
        try:
            assert rpc.call({"type": "bash", "command": "echo hello; exit 3"}) == {
                "output": "hello\n", "exitCode": 3, "cancelled": False, "truncated": False}
            last = rpc.call({"type": "get_messages"})["messages"][-1]
            assert last["role"] == "bashExecution" and last["command"] == "echo hello; exit 3"
            rpc.send({"id": "long", "type": "bash", "command": "sleep 60"})
            rpc.send({"id": "stop", "type": "abort_bash"})
            replies = [rpc.next(), rpc.next()]
            stopped = next(r for r in replies if r["id"] == "long")["data"]
            assert stopped["cancelled"] is True and stopped["exitCode"] is None
            rpc.send({"id": "p", "type": "prompt", "message": "what happened?"})
            rpc.until(lambda r: r["type"] == "agent_end")
            rpc.close()
        finally:
            rpc.kill()
    sent = json.dumps(srv.requests[0]["body"]["messages"])
    assert "I ran `echo hello; exit 3` in my shell" in sent and "code 3" in sent
    assert "I cancelled the command" in sent


def test_new_session_switch_session_and_fork(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("one"), answer("two")]))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "first prompt"})
        rpc.until(lambda r: r["type"] == "agent_settled")  # idle from here (D21)
        first = rpc.call({"type": "get_state"})
        assert rpc.call({"type": "new_session"}) == {"cancelled": False}
        fresh = rpc.call({"type": "get_state"})
        assert fresh["messageCount"] == 0 and fresh["sessionId"] != first["sessionId"]
        rpc.call({"type": "switch_session", "sessionPath": first["sessionFile"]})
        assert rpc.call({"type": "get_state"})["messageCount"] == 2
        with open(first["sessionFile"]) as f:
            entries = [json.loads(line) for line in f][1:]
        prompt_id = next(e["id"] for e in entries if e.get("message", {}).get("role") == "user")
        assert rpc.call({"type": "fork", "entryId": prompt_id}) == {
            "text": "first prompt", "cancelled": False}
        forked = rpc.call({"type": "get_state"})
        assert forked["messageCount"] == 0 and forked["sessionId"] != first["sessionId"]
        missing = rpc.ask({"type": "switch_session"})
        assert missing["error"] == 'switch_session needs "sessionPath" (a non-empty string)'
        rpc.close()
    finally:
        rpc.kill()


def test_a_command_that_fails_while_it_runs_answers_with_its_id(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("hi")]), "--no-session")
    try:
        failed = rpc.ask({"type": "compact"})  # nothing to compact in an empty session
        assert failed["id"] == "compact" and failed["command"] == "compact"
        assert failed["success"] is False and "compact" in failed["error"].lower()
        assert rpc.call({"type": "get_state"})["isCompacting"] is False
        status, _, _ = rpc.close()
    finally:
        rpc.kill()
    assert status == 0


def test_sigterm_aborts_the_run_kills_its_commands_and_exits_143(tmp_path):
    import signal

    turns = [bash_turn("sleep 60 & echo pids $$ $!; sleep 60"), answer("never")]
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, turns), "--no-session")
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "go"})
        update = rpc.until(lambda r: r["type"] == "tool_execution_update")[-1]
        pids = map(int, update["partialResult"]["content"][0]["text"].split()[1:3])
        rpc.proc.send_signal(signal.SIGTERM)
        assert rpc.until(lambda r: r["type"] == "agent_end")[-1]["messages"][-1][
            "stopReason"] == "aborted"
        assert rpc.proc.wait(timeout=WAIT) == 143
    finally:
        rpc.kill()
    assert all(wait_gone(pid) for pid in pids)


def test_records_split_on_newline_only():
    from io import BytesIO

    from miniagent.modes.rpc.rpc_mode import read_records

    stdin = BytesIO(b'{"type": "abort"}\r\n\n{"a": "x\xe2\x80\xa8y"}\n{"last": 1}')
    assert list(read_records(stdin)) == ['{"type": "abort"}', '{"a": "x\u2028y"}', '{"last": 1}']


def test_set_model_of_the_same_provider_keeps_its_server_and_key(tmp_path):
    with FakeServer([answer("from the same server")]) as srv:
        rpc = Rpc(tmp_path, "--provider", "openai", "--base-url", srv.base_url + "/v1",
                  "--api-key", "sk-test", "--model", "gpt-4.1-mini")
        try:
            rpc.call({"type": "set_model", "provider": "openai", "modelId": "gpt-4.1"})
            rpc.call({"type": "prompt", "message": "hi"})
            rpc.until(lambda r: r["type"] == "agent_end")
            rpc.close()
        finally:
            rpc.kill()
        request = srv.requests[-1]
    assert request["body"]["model"] == "gpt-4.1"
    assert request["headers"]["authorization"] == "Bearer sk-test"


def test_a_lone_surrogate_in_a_command_is_answered_and_written_escaped(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("ok")]))
    try:
        # The JSON escape as a program sends it: half an emoji, no partner.
        rpc.send(b'{"id": "p", "type": "prompt", "message": "caf\\u00e9 \\ud800 half"}')
        records = rpc.until(lambda r: r["type"] == "agent_end")
        assert records[0] == {"id": "p", "type": "response", "command": "prompt",
                              "success": True, "data": {"disposition": "started"}}
        assert records[-1]["messages"][0]["content"][0]["text"] == "caf\u00e9 \ud800 half"
        session_file = rpc.call({"type": "get_state"})["sessionFile"]
        status, _, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0 and "Traceback" not in stderr, stderr
    # pi's bytes: non-ASCII as UTF-8, the lone surrogate as its six-character escape.
    with open(session_file, "rb") as file:
        lines = file.read().splitlines()
    assert any(b'"text":"caf\xc3\xa9 \\ud800 half"' in line for line in lines), lines


def test_a_line_nested_too_deeply_gets_a_parse_error_and_the_loop_goes_on(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("hi")]), "--no-session")
    try:
        rpc.send(b"[" * 100000)
        reply = rpc.next()
        assert (reply["command"], reply["success"]) == ("parse", False)
        assert reply["error"].startswith("Failed to parse command: ")
        # Around the decoder's limit an id may parse yet be too deep to write back:
        # every one of these lines still gets its one response.
        for depth in range(940, 1001, 5):
            rpc.send(b'{"type": "get_state", "id": ' + b"[" * depth + b"]" * depth + b"}")
            reply = rpc.lines.get(timeout=WAIT)  # raw: an echoed id may be too deep for us too
            assert reply.startswith(b'{"') and b'"type":"response"' in reply, reply
        assert rpc.ask({"type": "get_messages"})["success"]
        status, rest, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0 and rest == [] and "Traceback" not in stderr, stderr


def test_non_finite_numbers_are_refused_and_a_stray_confirmation_is_ignored(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("hi")]), "--no-session",
              "--confirm")
    try:
        for bad in (b"NaN", b"Infinity", b"-Infinity", b"1e999"):
            rpc.send(b'{"id": ' + bad + b', "type": "get_state"}')
            reply = rpc.next()  # json.loads in the test: a NaN echoed back would fail here
            assert (reply["command"], reply["success"], "id" in reply) == ("parse", False, False)
            assert bad.decode() in reply["error"]
        for stray in ({"type": "confirm_response", "id": "confirm-7", "confirmed": True},
                      {"type": "confirm_response"},
                      {"type": "confirm_response", "id": [{"deep": [1]}], "confirmed": "yes"}):
            rpc.send(stray)
        assert rpc.ask({"type": "get_messages"})["success"]
        status, rest, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0 and rest == [] and "Traceback" not in stderr, stderr
    assert stderr.count("not a pending question") == 3


def test_a_prompt_with_bad_images_is_refused_and_writes_nothing(tmp_path):
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("seen")]))
    good = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    bad = ["aGk=", {"data": "aGk="}, ["aGk="], ["not an object"], [{"mimeType": "image/png"}],
           [{"data": 5, "mimeType": "image/png"}], [{"data": "aGk=", "mimeType": None}],
           [good, {"data": "aGk=", "mimeType": ["png"]}]]
    try:
        for number, images in enumerate(bad):
            reply = rpc.ask({"type": "prompt", "message": f"bad {number}", "images": images})
            assert not reply["success"] and "images" in reply["error"], reply
        rpc.send({"id": "ok", "type": "prompt", "message": "look", "images": [good]})
        records = rpc.until(lambda r: r["type"] == "agent_end")
        assert records[0]["success"] is True
        path = rpc.call({"type": "get_state"})["sessionFile"]
        status, _, stderr = rpc.close()
    finally:
        rpc.kill()
    assert status == 0, stderr
    session = Session.open(path)
    assert session.warnings == []
    users = [e["message"] for e in session.entries
             if e["type"] == "message" and e["message"]["role"] == "user"]
    assert [user["content"] for user in users] == [[{"type": "text", "text": "look"}, good]]
