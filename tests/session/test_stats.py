"""`miniagent stats`: counts from the session ledger, per file and in total."""

import json
import os

from helpers import FIXTURES, peak_memory, write_big_session
from miniagent.session.stats import compute_stats, format_stats_text, session_totals, stats_json
from miniagent.session.tree import Session

PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"
PI_V3 = FIXTURES / "pi-run" / "pi-0.73.1" / "errors.session.jsonl"


def tool_calls_by_plain_scan(path):
    """Every toolCall block of every assistant message, counted without miniagent."""
    counts = {}
    for line in open(path, encoding="utf-8"):
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry["type"] == "message" and message.get("role") == "assistant":
            for block in message["content"]:
                if block["type"] == "toolCall":
                    counts[block["name"]] = counts.get(block["name"], 0) + 1
    return counts


def test_the_v1_fixture_counts_every_tool_call_block():
    files, total, errors = compute_stats([str(PI_V1)])
    assert errors == []
    assert files[0].tool_calls == tool_calls_by_plain_scan(PI_V1)
    text = format_stats_text(files, total)
    assert "\n    bash 206\n" in text
    assert (files[0].user_prompts, files[0].assistant_turns) == (55, 484)  # bashExecution is not a prompt
    assert files[0].main_model == "anthropic/claude-opus-4-5"


def test_failed_replies_count_and_tool_errors_are_counted(tmp_path):
    lines = [{"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}]
    def add(message):
        lines.append({"type": "message", "id": str(len(lines)), "parentId": None, "timestamp": "t",
                      "message": message})
    usage = {"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 1, "totalTokens": 116,
             "cost": {"total": 0.5}}
    add({"role": "user", "content": "go"})
    add({"role": "assistant", "provider": "a", "model": "big", "stopReason": "error", "usage": usage,
         "content": [{"type": "toolCall", "id": "1", "name": "bash", "arguments": {}}]})
    add({"role": "assistant", "provider": "a", "model": "big", "stopReason": "toolUse", "usage": usage,
         "content": [{"type": "toolCall", "id": "2", "name": "bash", "arguments": {}}]})
    add({"role": "toolResult", "toolCallId": "2", "toolName": "bash", "content": [], "isError": True})
    add({"role": "bashExecution", "command": "ls", "output": ""})
    add({"role": "assistant", "provider": "b", "model": "small", "stopReason": "stop", "content": []})
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    files, total, errors = compute_stats([str(path)])
    stats = files[0]
    assert (stats.user_prompts, stats.assistant_turns, stats.tool_errors) == (1, 3, 1)
    assert stats.tool_calls == {"bash": 2}
    assert stats.models["a/big"] == {"turns": 2, "input": 20, "output": 10, "cacheRead": 200,
                                     "cacheWrite": 2, "cost": 1.0}
    assert stats.main_model == "a/big"
    assert "    a/big  2 turns  input 20  output 10  cache read 200  cache write 2  $1.0000" \
        in format_stats_text(files, total)


def test_several_files_add_up_and_an_unreadable_one_is_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nope\n")
    before = PI_V3.read_bytes()
    files, total, errors = compute_stats([str(PI_V3), str(bad), str(PI_V3)])
    assert len(files) == 2 and len(errors) == 1 and str(bad) in errors[0]
    assert total.tool_calls == {"read": 4, "bash": 4, "edit": 2, "frobnicate": 2}
    assert total.tool_errors == 10
    text = format_stats_text(files, total)
    assert text.count("\n    bash 2\n") == 2 and "total (2 files)\n" in text and "    bash 4\n" in text
    document = json.loads(stats_json(files, total, errors))
    assert document["total"]["toolCalls"]["bash"] == 4 and document["errors"] == errors
    assert document["files"][0]["mainModel"] == "scripted/scripted-model"
    assert PI_V3.read_bytes() == before


def test_a_running_sessions_totals_add_up_every_reply(tmp_path):
    """The one totals function behind /session and rpc's get_session_stats, checked
    against the usage of every reply in the file, counted without miniagent."""
    copy = tmp_path / "s.jsonl"
    copy.write_bytes(PI_V3.read_bytes())
    replies = [entry["message"] for entry in map(json.loads, open(copy, encoding="utf-8"))
               if entry["type"] == "message" and entry["message"]["role"] == "assistant"]
    stats, totals = session_totals(Session.open(str(copy)))
    assert stats.assistant_turns == len(replies)
    assert totals["input"] == sum(m["usage"]["input"] for m in replies)
    assert totals["output"] == sum(m["usage"]["output"] for m in replies)
    assert round(totals["cost"], 9) == round(sum(m["usage"]["cost"]["total"] for m in replies), 9)


def test_stats_of_a_big_session_holds_one_line_at_a_time(tmp_path):
    path = tmp_path / "big.jsonl"
    longest = write_big_session(path, 1600)  # about 4 MB of 2 KB entries
    (files, _, errors), peak = peak_memory(lambda: compute_stats([str(path)]))
    assert errors == [] and (files[0].user_prompts, files[0].assistant_turns) == (800, 800)
    assert files[0].tool_calls == {"read": 800}
    assert round(files[0].models["p/m"]["cost"], 2) == 8.0
    # Loading it whole would hold several times the file; a stream holds a line or two.
    assert peak < 2 * longest + 256 * 1024 < os.path.getsize(path) / 10
