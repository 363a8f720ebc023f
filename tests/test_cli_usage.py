"""Usage numbers and run outcomes through the command line: odd token counts from a
server or a session file are unknown (0), never fatal; a run that failed never shows
an earlier answer as its own."""

from functools import partial
import argparse
import json

import pytest

from fake_server import FakeServer, turn_from_capture
from helpers import FIXTURES, make_agent, run_cli, text, write_script
from miniagent.modes import print_mode
from miniagent.harness.harness import Harness
from test_cli_sessions import answer, lines_of, session_files

COUNTS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def replies(path):
    return [e["message"] for e in lines_of(path)
            if e["type"] == "message" and e["message"]["role"] == "assistant"]


@pytest.mark.parametrize("bad", ["many", [1, 2], None, {"input": "12", "output": 3},
                                 {"input": {"n": 1}, "cost": "free"}])
def test_a_resumed_session_with_bad_usage_answers_the_new_prompt(tmp_path, private_home, bad):
    first = run_cli("--script", write_script(tmp_path, [answer("old answer")]), "-p", "one",
                    cwd=str(tmp_path))
    assert first.returncode == 0, first.stderr
    [path] = session_files(private_home)
    entries = lines_of(path)
    for entry in entries:
        if entry["type"] == "message" and entry["message"]["role"] == "assistant":
            entry["message"]["usage"] = bad
    with open(path, "w") as f:
        f.write("".join(json.dumps(entry) + "\n" for entry in entries))
    second = run_cli("--script", write_script(tmp_path, [answer("new answer")]), "-c", "-p",
                     "two", cwd=str(tmp_path))
    assert second.returncode == 0, second.stderr
    assert second.stdout == "new answer\n"
    assert replies(path)[-1]["content"] == [text("new answer")]
    assert "Traceback" not in second.stderr


ODD_USAGE = {
    "openai": {"prompt_tokens": "12", "completion_tokens": -4, "total_tokens": 1e308,
               "prompt_tokens_details": {"cached_tokens": 10 ** 400}},
    "anthropic": {"input_tokens": "12", "output_tokens": 1e308,
                  "cache_read_input_tokens": -3, "cache_creation_input_tokens": 10 ** 400},
}


def odd_usage_stream(protocol):
    """A complete answer whose usage numbers are text, negative and absurd."""
    if protocol == "openai":
        chunks = [{"choices": [{"index": 0, "delta": {"content": "the answer"}}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                  {"choices": [], "usage": ODD_USAGE["openai"]}]
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    message = {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": [],
               "usage": ODD_USAGE["anthropic"]}
    events = [("message_start", {"message": message}),
              ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "text_delta",
                                                             "text": "the answer"}}),
              ("content_block_stop", {"index": 0}),
              ("message_delta", {"delta": {"stop_reason": "end_turn"},
                                 "usage": ODD_USAGE["anthropic"]}),
              ("message_stop", {})]
    return "".join(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"
                   for name, data in events)


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_odd_usage_numbers_count_as_unknown_and_the_answer_is_kept(tmp_path, private_home,
                                                                   protocol):
    turn = {"fault": {"raw": odd_usage_stream(protocol)}}
    with FakeServer([turn]) as srv:
        flags = (["--base-url", srv.base_url + "/v1"] if protocol == "openai" else
                 ["--provider", "anthropic", "--base-url", srv.base_url, "--api-key", "sk-a"])
        result = run_cli(*flags, "--model", "m", "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the answer\n"
    [path] = session_files(private_home)
    usage = replies(path)[-1]["usage"]
    for key in COUNTS:
        assert type(usage[key]) is int and 0 <= usage[key] < 10 ** 9, (key, usage)
    assert usage["cost"]["total"] == 0


def test_a_run_whose_server_sent_no_counts_ends_saying_the_usage_is_unknown(tmp_path):
    # llama-server sends usage only when asked, in its last chunk: this reply has none,
    # as a reply stopped before its last chunk has none. "0 in · 0 out" would be false.
    turn = turn_from_capture(FIXTURES / "llama-server" / "capture-stream-text-nousage.txt")
    with FakeServer([turn]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "tiny", "hi",
                         cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-1] == "1 turn · usage unknown · cost unknown"


def broken_harness(tmp_path):
    """A harness whose previous run answered, and whose next run fails inside the
    harness itself (before any reply)."""
    harness = Harness(partial(make_agent, [{"content": [text("the previous answer")]}],
                              cwd=str(tmp_path)))
    harness.run("first")

    def fail():
        raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")
    harness.check_compaction = fail
    return harness


def test_a_failed_run_never_prints_the_previous_answer(tmp_path, capsys):
    args = argparse.Namespace(mode="text", print=True, demo=False)
    code = print_mode.run(broken_harness(tmp_path), ["second"], args)
    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1 and "unsupported operand" in err


def test_a_failed_run_ends_with_an_agent_end_carrying_the_error(tmp_path, capsys):
    args = argparse.Namespace(mode="json", print=False, demo=False)
    code = print_mode.run(broken_harness(tmp_path), ["second"], args)
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [e["type"] for e in events[-2:]] == ["agent_end", "agent_settled"]
    [message] = events[-2]["messages"]
    assert message["stopReason"] == "error" and "unsupported operand" in message["errorMessage"]
    assert "the previous answer" not in json.dumps(events)
