"""messages.py: the shapes every module shares, the usage arithmetic, and the text a
server or a file hands us made safe to print and to write. Each docstring example of
the module is asserted here, as written there."""

import json
import math

import pytest

from miniagent.core.messages import (add_usages, assistant_message, chars_for_tokens, clean_text,
                                     clean_usage, clean_value, compute_cost, cost_figure,
                                     empty_usage, estimate_tokens_of, image_block, is_failed,
                                     one_line, set_counts, text_block, text_of, to_json,
                                     token_count, tool_call_block, tool_calls, tool_result_message,
                                     user_message)


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


def test_one_line_folds_whitespace_and_cuts_long_text():
    assert one_line("a\n  b") == "a b"
    assert one_line("x" * 600) == "x" * 497 + "..."
    assert one_line("x" * 500) == "x" * 500


def test_the_token_guess_is_four_characters_a_token_and_a_flat_price_per_image():
    assert estimate_tokens_of(10, images=1) == 3 + 1200
    assert estimate_tokens_of(0) == 0
    assert chars_for_tokens(100) == 400


@pytest.mark.parametrize("value, count", [
    (12, 12), (12.0, 12), ("12", 0), (-4, 0), (1e308, 0), (10 ** 400, 0), (True, 0),
    (None, 0), (12.5, 0), (math.nan, 0), (math.inf, 0), (10 ** 9, 10 ** 9)])
def test_only_a_whole_number_in_range_is_a_token_count(value, count):
    assert token_count(value) == count


@pytest.mark.parametrize("value, figure", [
    (0.25, 0.25), (-1, 0.0), ("0.25", 0.0), (math.nan, 0.0), (math.inf, 0.0), (False, 0.0)])
def test_a_cost_figure_is_finite_and_not_negative(value, figure):
    assert cost_figure(value) == figure


def test_a_usage_read_back_from_a_file_is_made_well_formed():
    assert clean_usage("lots") == empty_usage()
    usage = clean_usage({"input": "12", "output": 3, "cost": {"total": -2, "input": 0.5}})
    assert (usage["input"], usage["output"], usage["totalTokens"]) == (0, 3, 3)
    assert usage["cost"] == {"input": 0.5, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                             "total": 0.0}
    assert clean_usage({"input": 1, "totalTokens": 50})["totalTokens"] == 50  # as recorded


def test_set_counts_keeps_what_was_not_reported_and_recomputes_the_total():
    usage = set_counts(empty_usage(), {"input": 10, "output": 4})
    assert set_counts(usage, {"input": 20, "output": None, "cacheRead": "x"}) is usage
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == \
        (20, 4, 0, 24)


def test_cost_is_priced_per_million_tokens_and_usages_add_up():
    first = compute_cost(set_counts(empty_usage(), {"input": 1000}), {"input": 3.0})
    assert first["cost"]["input"] == pytest.approx(0.003)
    second = compute_cost(set_counts(empty_usage(), {"input": 1000, "output": 500}),
                          {"input": 3.0, "output": 15.0})
    total = add_usages(first, second)
    assert (total["input"], total["output"], total["totalTokens"]) == (2000, 500, 2500)
    assert total["cost"]["total"] == pytest.approx(0.003 + 0.003 + 0.0075)


def test_lone_surrogates_are_removed_and_real_characters_kept():
    assert clean_text("ok \ud83d") == "ok "
    assert clean_text("ok 😀") == "ok 😀"
    assert clean_value({"path": "a\udc80.txt", "n": 1, "k\ud800": ["\udfff"]}) == \
        {"path": "a.txt", "n": 1, "k": [""]}


def test_to_json_writes_compact_utf8_and_escapes_a_lone_surrogate():
    text = to_json({"text": "é \udc80"})
    assert text == '{"text":"é \\udc80"}'
    assert json.loads(text.encode("utf-8")) == {"text": "é \udc80"}  # it reads back the same
    assert to_json({"a": [1]}, indent=1) == '{\n "a": [\n  1\n ]\n}'
