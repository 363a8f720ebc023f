"""End to end through the command line against the local test server, both protocols:
a tool call is streamed, the tool runs, the final answer prints; the recorded request
bodies show where the system prompt goes, the tool schemas, the tool-result
conversion and Anthropic's cache_control marks."""

import json
import os
import signal
import subprocess
import sys

from fake_server import FakeServer, status
from helpers import ROOT, run_cli

TURNS = [
    {"content": [{"type": "text", "text": "Reading it."},
                 {"type": "toolCall", "name": "read", "arguments": {"path": "notes.txt"}}]},
    {"content": [{"type": "text", "text": "The note says: buy milk."}]},
]


def project(tmp_path):
    (tmp_path / "notes.txt").write_text("buy milk\n")
    return str(tmp_path)


def test_openai_compatible_server_end_to_end(tmp_path):
    with FakeServer(TURNS) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "fake-model",
                         "-p", "What does notes.txt say?", cwd=project(tmp_path))
        bodies = [r["body"] for r in srv.requests if r["path"].endswith("/chat/completions")]
        headers = [r["headers"] for r in srv.requests]
        clients = {r["client"] for r in srv.requests}
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The note says: buy milk.\n"
    assert len(bodies) == 2
    first, second = bodies
    assert first["stream"] is True and first["model"] == "fake-model"
    assert first["messages"][0]["role"] == "system"
    assert "read" in first["messages"][0]["content"]
    assert [t["function"]["name"] for t in first["tools"]] == ["read", "bash", "edit", "write"]
    assert first["tools"][0]["function"]["parameters"]["required"] == ["path"]
    call, result_message = second["messages"][-2:]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == "read"
    assert result_message["role"] == "tool"
    assert result_message["tool_call_id"] == call["tool_calls"][0]["id"]
    assert "buy milk" in result_message["content"]
    assert all("authorization" not in h for h in headers)  # no key given, none sent
    assert len(clients) == 1  # both turns on one keep-alive connection


def test_anthropic_end_to_end(tmp_path):
    with FakeServer(TURNS) as srv:
        result = run_cli("--provider", "anthropic", "--model", "claude-sonnet-4-5",
                         "-p", "What does notes.txt say?", cwd=project(tmp_path),
                         env={"ANTHROPIC_BASE_URL": srv.base_url,
                              "ANTHROPIC_API_KEY": "sk-test-key"})
        bodies = [r["body"] for r in srv.requests if r["path"] == "/v1/messages"]
        headers = srv.requests[0]["headers"]
        clients = {r["client"] for r in srv.requests}
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The note says: buy milk.\n"
    assert "sk-test-key" not in result.stderr + result.stdout
    assert headers["x-api-key"] == "sk-test-key" and "anthropic-version" in headers
    assert len(clients) == 1  # both turns on one keep-alive connection
    first, second = bodies
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "read" in first["system"][0]["text"]
    assert all(m["role"] != "system" for m in first["messages"])
    assert first["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first["tools"][0]["input_schema"]["required"] == ["path"]
    tool_use = second["messages"][-2]["content"][-1]
    assert tool_use["type"] == "tool_use" and tool_use["input"] == {"path": "notes.txt"}
    last_user = second["messages"][-1]
    assert last_user["role"] == "user"
    tool_result = last_user["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == tool_use["id"]
    assert last_user["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_a_server_that_is_down_is_named_at_once_not_after_14_s(tmp_path):
    """Decision 4: a refused connection to a server this process never reached is final:
    one attempt, then one line naming the URL (a retry would wait 30 s here first)."""
    with FakeServer([]) as srv:
        url = srv.base_url  # closed again: nothing listens there now
    result = run_cli("--base-url", url + "/v1", "--model", "m", "--mode", "json", "hi",
                     cwd=str(tmp_path), env={"MINIAGENT_RETRY_BASE_DELAY": "30"}, bound=20)
    assert result.returncode == 1
    types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert "auto_retry_start" not in types and types.count("message_end") == 2  # user, reply
    error = result.stderr.splitlines()[-1]  # after the unknown-model warning
    assert error.startswith("miniagent: ") and url in error and "connection refused" in error


def test_a_server_always_answering_500_gets_4_requests_one_counter_one_error(tmp_path):
    with FakeServer([status(500, body="boom")] * 6) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "-p", "hi",
                         cwd=str(tmp_path), env={"MINIAGENT_RETRY_BASE_DELAY": "0.001"})
        requests = len(srv.requests)
    assert result.returncode == 1 and requests == 4
    lines = result.stderr.splitlines()
    notices = [line.strip() for line in lines if line.startswith("  retrying in ")]
    assert [notice.split(" s ", 1)[1] for notice in notices] == [
        "(1 of 3): 500 boom", "(2 of 3): 500 boom", "(3 of 3): 500 boom"]
    assert [line for line in lines if "500 boom" in line and line not in
            [f"  {notice}" for notice in notices]] == ["miniagent: 500 boom"]  # once


def test_a_501_is_one_request_and_one_error_line(tmp_path):
    with FakeServer([status(501, body="Not Implemented")] * 4) as srv:
        # A retry would wait 30 s first: the run would not end within the bound.
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "-p", "hi",
                         cwd=str(tmp_path), env={"MINIAGENT_RETRY_BASE_DELAY": "30"}, bound=20)
        requests = len(srv.requests)
    assert result.returncode == 1 and requests == 1
    assert [line for line in result.stderr.splitlines() if "501" in line] == [
        "miniagent: 501 Not Implemented"]


def test_ctrl_c_during_the_wait_before_a_retry_stops_at_once(tmp_path):
    busy = [status(503, body="busy")] * 3
    with FakeServer(busy) as srv:
        env = dict(os.environ, PYTHONPATH=ROOT)
        proc = subprocess.Popen(
            [sys.executable, "-m", "miniagent", "--base-url", srv.base_url + "/v1",
             "--model", "m", "--mode", "json", "hi"], cwd=str(tmp_path), env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        try:
            for line in proc.stdout:
                event = json.loads(line)
                if event["type"] == "auto_retry_start":
                    break
            assert event["type"] == "auto_retry_start" and 1500 <= event["delayMs"] <= 2000
            proc.send_signal(signal.SIGINT)  # Ctrl-C during the 2 s wait
            _, err = proc.communicate(timeout=10)
        finally:
            proc.kill()
    assert proc.returncode == 130
    assert err.rstrip().endswith("stopped; the run was aborted.")


def test_nothing_configured_names_the_three_ways_to_start(tmp_path):
    result = run_cli("-p", "hi", cwd=str(tmp_path),
                     env={"OLLAMA_HOST": "127.0.0.1:9"})  # nothing listens on port 9
    assert result.returncode == 2
    assert "--demo" in result.stderr and "ollama" in result.stderr.lower()
    assert "ANTHROPIC_API_KEY" in result.stderr


def test_ctrl_c_mid_stream_ends_the_run_as_aborted(tmp_path):
    stalled = [{"content": [{"type": "text", "text": "A long answer that never ends"}],
                "fault": {"stall_seconds": 60, "stall_after_bytes": 300}}]
    with FakeServer(stalled) as srv:
        env = dict(os.environ, PYTHONPATH=ROOT, MINIAGENT_HOME=str(tmp_path / "home"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "miniagent", "--base-url", srv.base_url + "/v1",
             "--model", "m", "--mode", "json", "hi"], cwd=str(tmp_path), env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for line in proc.stdout:
                if json.loads(line)["type"] == "message_update":
                    break  # the reply is streaming; the server now goes silent
            proc.send_signal(signal.SIGINT)
            rest, _ = proc.communicate(timeout=10)  # the server would stall for 60 s
        finally:
            proc.kill()
    events = [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 130
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    assert events[-1]["aborted"] is True
    last = events[-2]["messages"][-1]
    assert last["role"] == "assistant" and last["stopReason"] == "aborted"


def test_a_rate_limit_wait_is_announced(tmp_path):
    turns = [{"fault": {"status": 429, "headers": {"retry-after-ms": "50"},
                        "body": {"error": {"message": "Slow down", "code": "rate_limit"}}}},
             {"content": [{"type": "text", "text": "answer"}]}]
    line = "429 Slow down (rate_limit) (the server asks to wait 0.05 s)"
    with FakeServer(turns) as srv:
        shown = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "hi",
                        cwd=str(tmp_path))
    assert shown.returncode == 0 and shown.stdout == "answer\n"
    assert f"retrying in 0.05 s (1 of 3): {line}" in shown.stderr
    with FakeServer(turns) as srv:
        events = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--mode", "json",
                         "hi", cwd=str(tmp_path)).stdout
    retry = [json.loads(line) for line in events.splitlines() if '"auto_retry_' in line]
    assert retry == [{"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 50,
                      "errorMessage": line},
                     {"type": "auto_retry_end", "success": True, "attempt": 1}]
