"""providers/builder.py: a streamed reply assembled piece by piece into one assistant
message, with pi's events on the way; tool-call arguments parsed strictly at the end;
the output cap a request may ask for; an in-band error as one line."""

import pytest

from miniagent.core.messages import ABORTED_TEXT, text_block, thinking_block, tool_call_block
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers.builder import (MessageBuilder, error_text, estimate_input_tokens,
                                         max_output_tokens)

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


def test_live_arguments_are_shown_while_streaming_and_parsed_strictly_at_the_end():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(tool_call_block("call_1", "write", {}))
    live = builder.append(index, '{"path": "a.py", "content": "pri')
    assert live["type"] == "toolcall_delta"
    assert live["partial"]["content"][0]["arguments"]["path"] == "a.py"  # repaired for display
    end = builder.close(index)
    assert end["toolCall"]["arguments"] == {}  # a cut-off call must not run
    assert end["toolCall"]["invalidArguments"] == '{"path": "a.py", "content": "pri'


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


def test_the_output_cap_never_asks_for_more_than_the_window_leaves():
    model = Model(id="m", provider="p", api="openai-completions", context_window=8192,
                  max_tokens=16384)
    about_6000_tokens = {"messages": [{"role": "user", "content": "x" * 24000}]}
    assert estimate_input_tokens(about_6000_tokens) == 6000
    assert max_output_tokens(model, StreamOptions(), about_6000_tokens) == 2192
    assert max_output_tokens(model, StreamOptions(max_tokens=100)) == 100
    assert max_output_tokens(model, StreamOptions()) == 16384


def test_an_in_band_error_is_one_line_naming_its_kind():
    assert error_text({"type": "overloaded_error", "message": "Overloaded"}) == \
        "Overloaded (overloaded_error)"
    assert error_text({"code": 429, "message": "Rate limit 429"}) == "Rate limit 429"
    assert error_text("plain text") == "plain text"
