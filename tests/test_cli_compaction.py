"""Compaction and run limits through the command line, against the test server: the real
window, the threshold before a prompt, overflow recovery (OpenAI-style and Anthropic),
message kinds the model never sees raw, --max-turns, and the output token cap."""

import glob
import json
import os

from fake_server import FakeServer, status
from helpers import answer, run_cli

SUMMARY = "## Goal\nKeep the facts."


def configure(home, srv, api="openai-completions", window=20000, keep=10):
    """A provider for the test server with a small window; keep few recent tokens so a
    short conversation has something to summarize."""
    home.mkdir(exist_ok=True)
    base = srv.base_url + ("/v1" if api == "openai-completions" else "")
    (home / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": base, "api": api,
        "models": [{"id": "fake-model", "contextWindow": window, "maxTokens": 16384}]}}}))
    (home / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": keep}}))


def run(tmp_path, *args):
    return run_cli("--provider", "fake", *args, cwd=str(tmp_path))


def texts(messages):
    return [m["content"] if isinstance(m["content"], str) else
            " ".join(b.get("text", "") for b in m["content"] if isinstance(b, dict))
            for m in messages]


def test_the_next_run_compacts_first_when_the_last_turn_used_most_of_the_window(
        tmp_path, private_home):
    old, recent = "alpha " * 40, "bravo " * 40
    turns = [answer("one"), answer("two", input=17000, output=10),
             answer(SUMMARY), answer("three")]
    with FakeServer(turns) as srv:
        configure(private_home, srv)  # window 20,000: reserve 5,000, threshold 15,000
        assert run(tmp_path, "-p", old).returncode == 0
        assert run(tmp_path, "-c", "-p", recent).returncode == 0
        result = run(tmp_path, "-c", "-p", "next")
        summarizer, after = srv.requests[2]["body"], srv.requests[3]["body"]
    assert result.returncode == 0 and result.stdout.strip() == "three", result.stderr
    assert "alpha" in texts(summarizer["messages"])[-1]  # the old turn was summarized
    sent = texts(after["messages"])
    assert SUMMARY in sent[1]  # right after the system prompt
    assert not any("alpha" in text for text in sent)
    assert any("bravo" in text for text in sent) and sent[-1] == "next"
    [path] = glob.glob(os.path.join(str(private_home), "sessions", "*", "*.jsonl"))
    entries = [json.loads(line) for line in open(path)]
    kinds = [entry["type"] for entry in entries]
    # six messages and the system entry of the first request: nothing deleted
    assert "compaction" in kinds and kinds.count("message") == 7
    # the compaction entry holds the prompt and tools in force (pi 1.6's checkpoint)
    [entry] = [entry for entry in entries if entry["type"] == "compaction"]
    checkpoint = entry["systemMessage"]
    assert checkpoint["role"] == "system" and "cwd" in checkpoint["sections"]
    assert [tool["name"] for tool in checkpoint["toolsAdded"]] == ["read", "bash", "edit", "write"]



OPENAI_OVERFLOW = {"error": {"message": "This model's maximum context length is 20000 tokens. "
                             "However, your messages resulted in 23000 tokens.",
                             "type": "invalid_request_error", "code": "context_length_exceeded"}}
ANTHROPIC_OVERFLOW = {"type": "error", "error": {"type": "invalid_request_error",
                                                 "message": "prompt is too long: 213462 tokens "
                                                            "> 200000 maximum"}}


def check_overflow_recovery(tmp_path, private_home, api, body):
    turns = [answer("one"), status(400, body=body), answer(SUMMARY), answer("recovered")]
    with FakeServer(turns) as srv:
        configure(private_home, srv, api=api)
        assert run(tmp_path, "-p", "alpha " * 40).returncode == 0
        result = run(tmp_path, "-c", "--mode", "json", "bravo " * 40)
        retried = srv.requests[-1]["body"]
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 0, result.stderr
    start = next(e for e in events if e["type"] == "compaction_start")
    end = next(e for e in events if e["type"] == "compaction_end")
    assert start["reason"] == "overflow" and end["willRetry"] and end["result"]["summary"]
    ends = [e for e in events if e["type"] == "agent_end"]
    assert ends[0]["willRetry"] and not ends[-1]["willRetry"]  # the overflow, the answer
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    sent = " ".join(texts(retried["messages"]))
    assert SUMMARY in sent and "alpha" not in sent and "bravo" in sent


def test_an_openai_style_overflow_compacts_and_continues(tmp_path, private_home):
    check_overflow_recovery(tmp_path, private_home, "openai-completions", OPENAI_OVERFLOW)


def test_an_anthropic_overflow_compacts_and_continues(tmp_path, private_home):
    check_overflow_recovery(tmp_path, private_home, "anthropic-messages", ANTHROPIC_OVERFLOW)


def test_a_second_overflow_after_compacting_stops_with_one_line(tmp_path, private_home):
    turns = [answer("one"), status(400, body=OPENAI_OVERFLOW), answer(SUMMARY),
             status(400, body=OPENAI_OVERFLOW)]
    with FakeServer(turns) as srv:
        configure(private_home, srv)
        assert run(tmp_path, "-p", "alpha " * 40).returncode == 0
        result = run(tmp_path, "-c", "-p", "bravo " * 40)
        assert len(srv.requests) == 4  # no third attempt
    assert result.returncode == 1
    error = result.stderr.splitlines()[-1]  # after the compaction notices
    assert error.startswith("miniagent: ") and "context window" in error


def test_max_turns_makes_exactly_that_many_requests(tmp_path, private_home):
    loop = [{"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "true"}}]}]
    with FakeServer(loop * 10) as srv:
        configure(private_home, srv)
        result = run(tmp_path, "--max-turns", "3", "-p", "keep going")
        assert len(srv.requests) == 3
    assert result.returncode == 1
    assert "--max-turns 3" in result.stderr and "3 model requests" in result.stderr


def test_invalid_limits_are_usage_errors(tmp_path):
    for args in (["--max-turns", "0"], ["--max-turns", "x"], ["--max-cost", "-1"]):
        result = run_cli(*args, "-p", "hi", cwd=str(tmp_path))
        assert result.returncode == 2 and args[0] in result.stderr


def test_session_message_kinds_reach_the_model_converted_or_not_at_all(tmp_path, private_home):
    session = tmp_path / "kinds.jsonl"
    entries = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z",
         "cwd": str(tmp_path)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "bashExecution", "command": "ls", "output": "app.py",
                     "exitCode": 0, "cancelled": False, "truncated": False, "timestamp": 1}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "bashExecution", "command": "cat secret", "output": "hidden",
                     "exitCode": 0, "cancelled": False, "truncated": False,
                     "excludeFromContext": True, "timestamp": 2}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-01-01T00:00:03.000Z",
         "message": {"role": "custom", "customType": "note", "content": "from an extension",
                     "display": True, "timestamp": 3}},
    ]
    session.write_text("".join(json.dumps(e) + "\n" for e in entries))
    with FakeServer([answer("ok")]) as srv:
        configure(private_home, srv)
        result = run(tmp_path, "--session", str(session), "-p", "go")
        messages = srv.requests[-1]["body"]["messages"]
    assert result.returncode == 0, result.stderr
    assert {m["role"] for m in messages} <= {"system", "user", "assistant", "tool"}
    sent = " ".join(texts(messages))
    assert "app.py" in sent and "from an extension" in sent and "hidden" not in sent


def test_a_request_never_asks_for_more_output_than_the_window_leaves(tmp_path, private_home):
    with FakeServer([answer("ok")]) as srv:
        configure(private_home, srv, window=8192)
        run(tmp_path, "-p", "word " * 4000)  # about 5,000 tokens of input
        body = srv.requests[-1]["body"]
    asked = body.get("max_tokens") or body.get("max_completion_tokens")
    assert 1024 <= asked <= 8192 - 5000


def test_max_turns_counts_across_the_prompts_of_a_replayed_session(tmp_path):
    loop = {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "true"}}]}
    script = tmp_path / "replay.json"
    script.write_text(json.dumps({"prompts": ["one", "two", "three"],
                                  "turns": [loop, answer("a1"), loop, answer("a2"), loop,
                                            answer("a3")]}))
    result = run_cli("--provider", "scripted", "--script", str(script), "--max-turns", "3",
                     "--no-session", "-p", cwd=str(tmp_path))
    assert result.returncode == 1 and "--max-turns 3" in result.stderr
    assert result.stdout.splitlines() == ["a1"]  # the first prompt's answer, then the stop
