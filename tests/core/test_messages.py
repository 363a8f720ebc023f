"""messages.py: the shapes every module shares, a reply's usage counted and priced, and
the text a server hands us made safe to print and to write (usage read back and summed:
tests/models/test_usage.py; one_line and to_json: tests/files/test_text.py). Each docstring example of
the module is asserted here, as written there."""

import json
import math

import pytest

from miniagent.core.messages import (assistant_message, clean_text, clean_value, compute_cost,
                                     empty_usage, image_block, is_failed, set_counts, text_block,
                                     text_of, token_count, tool_call_block, tool_calls,
                                     tool_result_message, user_message)


def test_the_three_roles_have_pis_shapes():
    user = user_message("What is in app.py?", [image_block("aGk=", "image/png")])
    assert user["content"] == [{"type": "text", "text": "What is in app.py?"},
                               {"type": "image", "data": "aGk=", "mimeType": "image/png"}]
    call = tool_call_block("call_1", "read", {"path": "app.py"})
    assistant = assistant_message("openai-completions", "openai", "gpt-4.1", [call], "toolUse")
    assert {key: assistant[key] for key in ("role", "api", "provider", "model", "stopReason")} == {
        "role": "assistant", "api": "openai-completions", "provider": "openai",
        "model": "gpt-4.1", "stopReason": "toolUse"}
    assert assistant["usage"] == empty_usage() and "errorMessage" not in assistant
    result = tool_result_message("call_1", "read", [text_block("print('hi')\n")])
    assert result["toolCallId"] == "call_1" and result["isError"] is False
    assert "details" not in result  # absent, not null, when the tool gave none
    for message in (user, assistant, result):
        assert isinstance(message["timestamp"], int) and message["timestamp"] > 1.7e12
        assert json.loads(json.dumps(message)) == message  # plain JSON, as written to disk


def test_text_of_joins_the_text_blocks_and_leaves_out_calls_and_images():
    message = assistant_message("a", "p", "m", [text_block("one"), tool_call_block("1", "ls", {}),
                                                 image_block("x", "image/png"), text_block("two")])
    assert text_of(message) == "one\ntwo"
    assert text_of({"role": "user", "content": "a bare string, as pi allows"}) == \
        "a bare string, as pi allows"
    assert tool_calls(message) == [tool_call_block("1", "ls", {})]


def test_a_failed_reply_is_an_assistant_message_that_errored_or_was_aborted():
    assert is_failed(assistant_message("a", "p", "m", stop_reason="error", error_message="boom"))
    assert is_failed(assistant_message("a", "p", "m", stop_reason="aborted"))
    assert not is_failed(assistant_message("a", "p", "m", stop_reason="length"))
    assert not is_failed(tool_result_message("1", "bash", [], is_error=True))


@pytest.mark.parametrize("value, count", [
    (12, 12), (12.0, 12), ("12", 0), (-4, 0), (1e308, 0), (10 ** 400, 0), (True, 0),
    (None, 0), (12.5, 0), (math.nan, 0), (math.inf, 0), (10 ** 9, 10 ** 9)])
def test_only_a_whole_number_in_range_is_a_token_count(value, count):
    assert token_count(value) == count


def test_set_counts_keeps_what_was_not_reported_and_recomputes_the_total():
    usage = set_counts(empty_usage(), {"input": 10, "output": 4})
    assert set_counts(usage, {"input": 20, "output": None, "cacheRead": "x"}) is usage
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == \
        (20, 4, 0, 24)


def test_cost_is_priced_per_million_tokens():
    first = compute_cost(set_counts(empty_usage(), {"input": 1000}), {"input": 3.0})
    assert first["cost"]["input"] == pytest.approx(0.003)


def test_lone_surrogates_are_removed_and_real_characters_kept():
    assert clean_text("ok \ud83d") == "ok "
    assert clean_text("ok 😀") == "ok 😀"
    assert clean_value({"path": "a\udc80.txt", "n": 1, "k\ud800": ["\udfff"]}) == \
        {"path": "a.txt", "n": 1, "k": [""]}
