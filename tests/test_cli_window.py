"""The window a local server serves, asked once and remembered (issue 22): a second run
against the same unknown model asks nothing, a day-old answer is asked again, an
overflow forgets it, and a windows.json that is not ours never stops a run. What one
reply of such a model may write: a quarter of that window, or --max-tokens (issue 30)."""

import json
import os
import time

import pytest

from fake_server import FakeServer, status
from helpers import FIXTURES, answer, run_cli

WINDOW_QUESTIONS = ("GET /props", "POST /api/show", "GET /api/ps", "GET /api/v0/models")
OVERFLOW = {"error": {"message": "This model's maximum context length is 32768 tokens. "
                      "However, your messages resulted in 40000 tokens.",
                      "type": "invalid_request_error", "code": "context_length_exceeded"}}


def run(srv, tmp_path, prompt="hi"):
    """One -p run against the test server's model, which no registry knows."""
    return run_cli("--base-url", srv.base_url + "/v1", "--model", "local-model", "-p", prompt,
                   cwd=str(tmp_path))


def window_questions(srv):
    return [question for question in srv.questions if question in WINDOW_QUESTIONS]


def remembered(home):
    return json.loads((home / "windows.json").read_text())


def test_a_second_run_against_the_same_unknown_local_model_makes_no_window_request(
        tmp_path, private_home):
    with FakeServer([answer("one"), answer("two")], window=32768) as srv:
        assert run(srv, tmp_path).stdout == "one\n"
        asked_first = window_questions(srv)
        second = run(srv, tmp_path)
        asked_both = window_questions(srv)
    assert asked_first == ["GET /props"]  # llama.cpp's answer ends the probe
    assert second.returncode == 0 and second.stdout == "two\n", second.stderr
    assert asked_both == asked_first  # nothing asked the second time
    [entry] = remembered(private_home).values()
    assert entry["window"] == 32768


def test_a_server_that_serves_no_window_is_not_asked_again_either(tmp_path, private_home):
    with FakeServer([answer("one"), answer("two")]) as srv:  # no window on any route
        first = run(srv, tmp_path)
        asked_first = window_questions(srv)
        second = run(srv, tmp_path)
        asked_both = window_questions(srv)
    assert asked_first == ["GET /props", "POST /api/show", "GET /api/v0/models"]  # each kind
    assert asked_both == asked_first  # and none of them again
    assert first.returncode == second.returncode == 0
    assert "assuming a 128,000-token context window" in first.stderr  # it plans with a guess
    assert "not in the registry" not in second.stderr  # said once per model, not every run
    [entry] = remembered(private_home).values()
    assert entry["window"] == 0 and entry["warned"] is True


def test_the_remembered_window_is_the_one_the_next_run_plans_with(tmp_path):
    with FakeServer([], window=600) as srv:  # too small for the prompt and tools
        first, second = run(srv, tmp_path), run(srv, tmp_path)
        asked = window_questions(srv)
    assert asked == ["GET /props"]
    assert first.returncode == second.returncode == 1
    assert "more than this model's 600-token window" in second.stderr


def test_a_day_old_answer_is_asked_again(tmp_path, private_home):
    with FakeServer([answer("one")], window=32768) as srv:
        day_and_a_minute_ago = int(time.time() * 1000) - (24 * 60 + 1) * 60 * 1000
        (private_home / "windows.json").write_text(json.dumps({
            f"{srv.base_url}/v1 local-model": {"window": 600, "askedAt": day_and_a_minute_ago}}))
        result = run(srv, tmp_path)
        asked = window_questions(srv)
    assert result.returncode == 0 and result.stdout == "one\n", result.stderr  # not 600
    assert asked == ["GET /props"]
    [entry] = remembered(private_home).values()
    assert entry["window"] == 32768 and entry["askedAt"] > day_and_a_minute_ago


def test_an_overflow_forgets_the_window_so_the_next_run_asks_again(tmp_path, private_home):
    turns = [answer("one"), status(400, body=OVERFLOW), answer("three")]
    with FakeServer(turns, window=32768) as srv:
        assert run(srv, tmp_path).returncode == 0
        overflowed = run(srv, tmp_path, "a long prompt")
        assert remembered(private_home) == {}
        third = run(srv, tmp_path)
        asked = window_questions(srv)
    assert overflowed.returncode == 1 and "context length" in overflowed.stderr
    assert third.stdout == "three\n"
    assert asked == ["GET /props", "GET /props"]  # the first run and the third
    assert [entry["window"] for entry in remembered(private_home).values()] == [32768]


@pytest.mark.parametrize("planted", ["not json", "a list", "wrong entries", "a fifo"])
def test_a_windows_json_that_is_not_ours_is_ignored_and_rewritten(tmp_path, private_home,
                                                                    planted):
    path = private_home / "windows.json"
    if planted == "a fifo":
        os.mkfifo(path)  # reading it would wait for a writer for ever
    else:
        path.write_text({"not json": "{", "a list": "[1, 2]",
                         "wrong entries": '{"x m": {"window": "big"}, "y m": 7}'}[planted])
    with FakeServer([answer("one")], window=32768) as srv:
        result = run(srv, tmp_path)
    assert result.returncode == 0 and result.stdout == "one\n" and result.stderr == ""
    assert [entry["window"] for entry in remembered(private_home).values()] == [32768]


def asked_output(srv):
    body = srv.requests[-1]["body"]
    return body.get("max_tokens") or body.get("max_completion_tokens")


def test_an_unknown_model_on_an_8k_server_asks_for_a_quarter_of_it_per_reply(tmp_path):
    # Not the ~7,200 tokens the window leaves: a small model on a slow CPU rambled
    # through a task's time limit with that much room.
    with FakeServer([answer("one")], window=8192) as srv:
        assert run(srv, tmp_path).returncode == 0
        assert asked_output(srv) == 2048


def test_the_reply_cap_of_an_unknown_model_stays_within_the_compaction_reserve(
        tmp_path, private_home):
    (private_home / "settings.json").write_text(json.dumps({"compaction": {"reserveTokens": 1500}}))
    with FakeServer([answer("one")], window=32768) as srv:
        assert run(srv, tmp_path).returncode == 0
        assert asked_output(srv) == 1500


def test_max_tokens_sets_what_one_reply_may_write(tmp_path):
    with FakeServer([answer("one")], window=8192) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "local-model",
                         "--max-tokens", "1200", "-p", "hi", cwd=str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert asked_output(srv) == 1200


@pytest.mark.parametrize("value", ["0", "-5", "many", "1.5"])
def test_max_tokens_that_is_no_positive_whole_number_is_a_one_line_usage_error(tmp_path, value):
    result = run_cli("--max-tokens", value, "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--max-tokens" in result.stderr


def test_a_chat_template_that_cannot_call_tools_is_told_on_every_run(tmp_path, private_home):
    # llama.cpp drops the tools such a template cannot show the model, without a word.
    props = json.loads((FIXTURES / "llama-server" / "capture-props.json").read_text())
    props["chat_template_caps"]["supports_tools"] = False
    with FakeServer([answer("one"), answer("two")], props=props) as srv:
        first, second = run(srv, tmp_path), run(srv, tmp_path)  # the second asks nothing
        assert window_questions(srv) == ["GET /props"]
    for done in (first, second):
        assert done.returncode == 0, done.stderr
        [warning] = [line for line in done.stderr.splitlines() if "cannot call tools" in line]
        assert warning == (f"miniagent: warning: the chat template of {srv.base_url}/v1 cannot "
                           f"call tools, so local-model will only answer in text (give "
                           f"llama-server a --chat-template-file that handles tools)")


def test_a_chat_template_that_can_call_tools_gets_no_warning(tmp_path):
    props = json.loads((FIXTURES / "llama-server" / "capture-props.json").read_text())
    with FakeServer([answer("one")], props=props) as srv:
        done = run(srv, tmp_path)
    assert done.returncode == 0 and "tools" not in done.stderr, done.stderr
