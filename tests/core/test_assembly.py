"""core/assembly.py: a streamed reply assembled piece by piece into one assistant
message, with the events on the way; tool-call arguments parsed strictly at the end
(the plain parser, no live preview: that is the product's); run() that never raises;
the plain output cap. Imports only miniagent.core."""

import math
import threading

import pytest

from miniagent.core.assembly import (MessageBuilder, ProviderError, clean_text, clean_value,
                                     compute_cost, max_output_tokens, set_counts, token_count,
                                     parse_json, run)
from miniagent.core.messages import (ABORTED_TEXT, empty_usage, text_block, thinking_block,
                                     tool_call_block)
from miniagent.core.provider import Model, StreamOptions

MODEL = Model(id="gpt-4.1", provider="openai", api="openai-completions",
              cost={"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0.0})


def stream_call(builder, arguments_pieces, call_id="call_1", name="bash"):
    """Open a tool call, stream its arguments in pieces, close it: the *_end event."""
    index, _ = builder.open(tool_call_block(call_id, name, {}))
    for piece in arguments_pieces:
        builder.append(index, piece)
    return builder.close(index)


def test_a_reply_with_thinking_text_and_a_call_becomes_one_message_and_its_events():
    builder = MessageBuilder(MODEL)
    types = [builder.start()["type"]]
    thought, event = builder.open(thinking_block("", "reasoning_content"))
    types += [event["type"], builder.append(thought, "Look first.")["type"],
              builder.close(thought)["type"]]
    said, event = builder.open(text_block(""))
    types += [event["type"], builder.append(said, "Listing.")["type"], builder.close(said)["type"]]
    end = stream_call(builder, ['{"comm', 'and": "ls"}'])
    done = builder.done("stop")
    assert types + [end["type"], done["type"]] == [
        "start", "thinking_start", "thinking_delta", "thinking_end",
        "text_start", "text_delta", "text_end", "toolcall_end", "done"]
    assert done["reason"] == "toolUse"  # a reply with tool calls that stopped normally
    assert done["message"]["content"] == [
        {"type": "thinking", "thinking": "Look first.", "thinkingSignature": "reasoning_content"},
        {"type": "text", "text": "Listing."},
        {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}]
    assert (done["message"]["model"], done["message"]["provider"]) == ("gpt-4.1", "openai")


def test_the_partial_text_is_complete_at_each_end_and_the_deltas_are_the_live_view():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(text_block(""))
    deltas = [builder.append(index, piece)["delta"] for piece in ("Hel", "lo", ", world")]
    assert "".join(deltas) == "Hello, world"
    end = builder.close(index)
    assert end["content"] == "Hello, world" == end["partial"]["content"][0]["text"]


def test_arguments_that_are_no_object_are_none_and_kept_to_quote_back():
    end = stream_call(MessageBuilder(MODEL), ['["ls"]'])
    assert end["toolCall"]["arguments"] == {} and end["toolCall"]["invalidArguments"] == '["ls"]'


def test_a_call_without_an_id_gets_one_and_an_empty_argument_text_is_no_arguments():
    end = stream_call(MessageBuilder(MODEL), [], call_id="")
    assert end["toolCall"]["id"].startswith("call_") and len(end["toolCall"]["id"]) > 5
    assert end["toolCall"]["arguments"] == {}


def test_lone_surrogates_are_removed_from_deltas_arguments_and_the_error():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(text_block(""))
    assert builder.append(index, "ok \ud83d")["delta"] == "ok "
    builder.close(index)
    end = stream_call(builder, ['{"path": "a\\udc80.txt"}'], name="re\udc80ad")
    assert end["toolCall"]["arguments"] == {"path": "a.txt"} and end["toolCall"]["name"] == "read"
    failed = builder.fail("bad \ud800 bytes", aborted=False)
    assert failed["error"]["errorMessage"] == "bad  bytes"


def test_a_failed_stream_keeps_what_arrived_and_says_why():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(text_block(""))
    builder.append(index, "Half an ans")
    failed = builder.fail("connection reset", aborted=False)
    assert failed["type"] == "error" and failed["reason"] == "error"
    assert failed["error"]["content"] == [{"type": "text", "text": "Half an ans"}]
    assert failed["error"]["stopReason"] == "error"
    assert failed["error"]["errorMessage"] == "connection reset"
    aborted = MessageBuilder(MODEL).fail("ignored", aborted=True)
    assert aborted["reason"] == "aborted" and aborted["error"]["errorMessage"] == ABORTED_TEXT


def test_usage_counts_given_later_keep_the_earlier_ones_and_are_priced():
    builder = MessageBuilder(MODEL)
    builder.set_usage(input=1000, output=None)
    builder.set_usage(output=500, cacheRead=2000)
    usage = builder.done("stop")["message"]["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == \
        (1000, 500, 2000, 3500)
    assert usage["cost"]["total"] == pytest.approx(0.002 + 0.004 + 0.001)


def test_the_first_response_id_is_kept():
    builder = MessageBuilder(MODEL)
    builder.set_response_id("chatcmpl-1")
    builder.set_response_id("chatcmpl-2")
    builder.set_response_id(None)
    assert builder.done("stop")["message"]["responseId"] == "chatcmpl-1"


def test_the_plain_parser_is_strict_json_and_an_empty_text_is_no_arguments():
    assert parse_json('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_json("") == {} and parse_json("  ") == {}
    assert parse_json('{"path": "a.p') is None
    assert parse_json('{"text": "line\nbreak"}') is None  # a raw newline: not strict JSON


def test_the_plain_builder_shows_no_guess_while_streaming_and_never_runs_a_cut_off_call():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(tool_call_block("call_1", "bash", {}))
    live = builder.append(index, '{"command": "rm -rf /tmp/x')
    assert live["partial"]["content"][0]["arguments"] == {}  # no preview without parse_partial
    end = builder.close(index)
    assert end["toolCall"]["arguments"] == {}
    assert end["toolCall"]["invalidArguments"] == '{"command": "rm -rf /tmp/x'


def parse_two_texts(chunks, builder):
    index, event = builder.open(text_block(""))
    yield event
    for chunk in chunks:
        yield builder.append(index, chunk.decode())
    return "stop"


def test_run_turns_a_body_into_events_and_closes_what_is_open():
    events = list(run(MessageBuilder(MODEL), threading.Event(), lambda: [b"Hel", b"lo"], parse_two_texts))
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "text_delta",
                                           "text_end", "done"]
    assert events[-1]["message"]["content"] == [{"type": "text", "text": "Hello"}]


def test_run_never_raises_a_failure_to_send_is_a_lone_error_event():
    def refuse():
        raise ProviderError("503 Busy")
    events = list(run(MessageBuilder(MODEL), threading.Event(), refuse, parse_two_texts))
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["error"]["stopReason"] == "error" and events[0]["error"]["errorMessage"] == "503 Busy"


def test_run_names_an_unexpected_exception_and_keeps_what_arrived():
    def body():
        yield b"Half"
        raise KeyError("choices")
    events = list(run(MessageBuilder(MODEL), threading.Event(), body, parse_two_texts))
    failed = events[-1]["error"]
    assert failed["content"] == [{"type": "text", "text": "Half"}]
    assert failed["errorMessage"] == "KeyError: 'choices'"


def test_run_reports_aborted_when_the_abort_event_is_set():
    abort = threading.Event()

    def body():
        yield b"Half"
        abort.set()
        yield b" more"
    events = list(run(MessageBuilder(MODEL), abort, body, parse_two_texts))
    assert events[-1]["reason"] == "aborted" and events[-1]["error"]["errorMessage"] == ABORTED_TEXT


def test_the_plain_output_cap_is_the_callers_else_the_models_up_to_32000():
    assert max_output_tokens(Model("m", "p", "x", max_tokens=16384), StreamOptions()) == 16384
    assert max_output_tokens(Model("m", "p", "x", max_tokens=128000), StreamOptions()) == 32000
    assert max_output_tokens(Model("m", "p", "x"), StreamOptions(max_tokens=100)) == 100


# --- A server's counts and text, made safe where they enter

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
