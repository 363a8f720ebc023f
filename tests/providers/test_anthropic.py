"""The Anthropic Messages provider: requests as recorded by the scripted test server,
and replies from the server and from hand-written event streams
(docs/decisions.md D5, D15, D16, D17)."""

import json
import time

import pytest

from fake_server import FakeServer
from miniagent.harness.reply_retry import is_retryable
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers import stream as provider_stream
from miniagent.providers.anthropic import build_request, stream_bytes
from miniagent.http.classify import is_final

PRICES = {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}
TOOLS = [{"name": "read", "description": "Read a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
         {"name": "bash", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}]


def make_model(base_url="https://api.anthropic.com", **fields):
    fields.setdefault("max_tokens", 64000)
    return Model(fields.pop("id", "claude-test"), "anthropic", "anthropic-messages", base_url,
                 cost=dict(PRICES), **fields)


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def mine(content, stop="toolUse"):
    """An assistant message written by make_model()'s model."""
    return {"role": "assistant", "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-test", "stopReason": stop, "content": content}


def result(call_id, text="ok", is_error=False):
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "read", "isError": is_error,
            "content": [{"type": "text", "text": text}]}


def context(messages=None, tools=None, system="You are terse."):
    return {"systemPrompt": system, "messages": messages or [user("hi")], "tools": tools or []}


def final(events):
    last = events[-1]
    assert sum(e["type"] in ("done", "error") for e in events) == 1
    return last["message"] if last["type"] == "done" else last["error"]


def body_of(model=None, messages=None, tools=None, **options):
    return build_request(model or make_model(), context(messages, tools), StreamOptions(**options))


def events_body(*events, named=True):
    """An Anthropic body from (name, data) pairs; named=False drops the `event:` lines."""
    out = ""
    for name, data in events:
        out += (f"event: {name}\n" if named else "") + f"data: {json.dumps({'type': name, **data})}\n\n"
    return out.encode()


def replay(body, chunk_size=None):
    chunks = [body[i:i + chunk_size] for i in range(0, len(body), chunk_size)] if chunk_size else [body]
    return list(stream_bytes(make_model(), chunks))


def pi_fixture(stop_delta=None):
    """The Anthropic stream of pi's own provider tests."""
    return [("message_start", {"message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 5}}}),
            ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
            ("content_block_stop", {"index": 0}),
            ("content_block_start", {"index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "bash"}}),
            ("content_block_delta", {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"command":'}}),
            ("content_block_delta", {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '"ls"}'}}),
            ("content_block_stop", {"index": 1}),
            ("message_delta", stop_delta or {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}})]


def text_reply(stop_reason, text="Hi"):
    return [("message_start", {"message": {"usage": {"input_tokens": 1, "output_tokens": 1}}}),
            ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"index": 0}),
            ("message_delta", {"delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 2}}),
            ("message_stop", {})]


# --- Requests --------------------------------------------------------------------------------


def test_request_against_the_server_url_headers_and_cache_marks():
    with FakeServer([{"content": [{"type": "text", "text": "Hello"}]}]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(tools=TOOLS),
                                      StreamOptions(api_key="sk-ant-test")))
        (request,) = srv.requests
    assert request["path"] == "/v1/messages"  # the base URL has no version path
    headers = request["headers"]
    assert headers["x-api-key"] == "sk-ant-test" and headers["anthropic-version"] == "2023-06-01"
    assert headers["content-type"] == "application/json" and "authorization" not in headers
    body = request["body"]
    assert body["stream"] is True and body["max_tokens"] == 32000
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][0] == {"name": "read", "description": "Read a file.",
                                "input_schema": TOOLS[0]["parameters"]}
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}  # only the last tool
    assert body["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
    assert final(events)["content"] == [{"type": "text", "text": "Hello"}]


def test_anthropic_version_is_configurable():
    _, headers, _ = body_of(make_model(compat={"anthropicVersion": "2026-10-21"}))
    assert headers["anthropic-version"] == "2026-10-21"
    _, headers, _ = body_of(make_model(headers={"anthropic-version": "2099-01-01", "anthropic-beta": "x"}))
    assert headers["anthropic-version"] == "2099-01-01" and headers["anthropic-beta"] == "x"


def test_consecutive_tool_results_merge_into_one_user_message_and_the_last_block_is_marked():
    history = [user("go"), mine([{"type": "text", "text": "Two calls."},
                                 {"type": "toolCall", "id": "toolu_a", "name": "read", "arguments": {"path": "a"}},
                                 {"type": "toolCall", "id": "toolu_b", "name": "read", "arguments": {}}]),
               result("toolu_a", "A"), result("toolu_b", "boom", is_error=True)]
    _, _, body = body_of(messages=history)
    turns = body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert turns[1]["content"] == [
        {"type": "text", "text": "Two calls."},
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {}}]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "boom", "is_error": True,
         "cache_control": {"type": "ephemeral"}}]
    assert "cache_control" not in turns[0]["content"][0]  # only the LAST user message


def test_tool_result_images_are_blocks():
    history = [user("see"), mine([{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]),
               {"role": "toolResult", "toolCallId": "t1", "toolName": "read", "isError": False,
                "content": [{"type": "image", "data": "QUJD", "mimeType": "image/png"}]}]
    _, _, body = body_of(messages=history)
    assert body["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "(see attached image)"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}}]


def test_thinking_is_replayed_with_its_signature_unsigned_as_text_redacted_as_is():
    history = [user("q"), mine([
        {"type": "thinking", "thinking": "signed thought", "thinkingSignature": "EqQB"},
        {"type": "thinking", "thinking": "cut before its signature", "thinkingSignature": ""},
        {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "opaque", "redacted": True},
        {"type": "text", "text": "answer"}], stop="stop"), user("more")]
    _, _, body = body_of(messages=history)
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "signed thought", "signature": "EqQB"},
        {"type": "text", "text": "cut before its signature"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "answer"}]


def test_another_models_thinking_is_text_and_its_redacted_thinking_is_dropped():
    other = {**mine([{"type": "thinking", "thinking": "gpt thoughts", "thinkingSignature": "reasoning_content"},
                     {"type": "thinking", "thinking": "x", "thinkingSignature": "y", "redacted": True},
                     {"type": "toolCall", "id": "call|1", "name": "read", "arguments": {}}]),
             "model": "gpt-x", "provider": "openai", "api": "openai-completions"}
    _, _, body = body_of(messages=[user("q"), other, result("call|1")])
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "gpt thoughts"},
        {"type": "tool_use", "id": "call_1", "name": "read", "input": {}}]
    assert body["messages"][2]["content"][0]["tool_use_id"] == "call_1"


def test_errored_messages_dropped_and_orphans_answered():
    history = [user("a"), mine([{"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]),
               mine([{"type": "text", "text": "half"}], stop="error"), user("b")]
    _, _, body = body_of(messages=history)
    turns = body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "user"]
    assert turns[2]["content"][0]["content"] == "No result provided"
    assert turns[2]["content"][0]["is_error"] is True


@pytest.mark.parametrize("level,budget,max_tokens", [
    ("minimal", 1024, 33024), ("low", 2048, 34048), ("medium", 8192, 40192), ("high", 16384, 48384)])
def test_thinking_budgets_grow_max_tokens(level, budget, max_tokens):
    _, _, body = body_of(make_model(reasoning=True), thinking=level, temperature=0.5)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == max_tokens and "temperature" not in body


def test_thinking_budget_is_capped_by_the_model_limit_and_off_means_none():
    _, _, body = body_of(make_model(reasoning=True, max_tokens=8192), thinking="high")
    assert body["max_tokens"] == 8192 and body["thinking"]["budget_tokens"] == 8192 - 1024
    _, _, body = body_of(make_model(reasoning=True), thinking="off", temperature=0.5)
    assert "thinking" not in body and body["temperature"] == 0.5
    _, _, body = body_of(make_model(reasoning=False), thinking="high")
    assert "thinking" not in body


# --- Replies ---------------------------------------------------------------------------------


def test_pi_fixture_content_stop_reason_and_usage():
    events = replay(events_body(*pi_fixture(), ("message_stop", {})))
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "text_end", "toolcall_start",
                                           "toolcall_delta", "toolcall_delta", "toolcall_end", "done"]
    message = final(events)
    assert message["content"] == [{"type": "text", "text": "Hi"},
                                  {"type": "toolCall", "id": "toolu_1", "name": "bash", "arguments": {"command": "ls"}}]
    assert message["stopReason"] == "toolUse"
    usage = message["usage"]
    assert (usage["input"], usage["cacheRead"], usage["output"], usage["totalTokens"]) == (10, 5, 7, 22)
    assert usage["cost"]["total"] == pytest.approx((10 * 3 + 5 * 0.3 + 7 * 15) / 1e6)


def test_message_delta_usage_overwrites_only_fields_present():
    stop = {"delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 9, "input_tokens": None, "cache_creation_input_tokens": 4}}
    usage = final(replay(events_body(*pi_fixture(stop))))["usage"]
    assert (usage["input"], usage["cacheRead"], usage["cacheWrite"], usage["output"]) == (10, 5, 4, 9)


def test_message_delta_then_end_without_message_stop_is_complete():
    assert final(replay(events_body(*pi_fixture())))["stopReason"] == "toolUse"


def test_end_before_a_stop_reason_is_an_error():  # D5
    message = final(replay(events_body(*pi_fixture()[:5])))
    assert message["stopReason"] == "error"
    assert "stream ended before the response was complete" in message["errorMessage"]
    assert message["content"][0] == {"type": "text", "text": "Hi"}


@pytest.mark.parametrize("wire,ours", [("end_turn", "stop"), ("stop_sequence", "stop"),
                                        ("pause_turn", "stop"), ("max_tokens", "length")])
def test_stop_reasons(wire, ours):
    assert final(replay(events_body(*text_reply(wire))))["stopReason"] == ours


@pytest.mark.parametrize("reason", ["eos", "brand_new_reason"])
def test_an_unknown_stop_reason_keeps_the_complete_answer(reason):
    message = final(replay(events_body(*text_reply(reason, "The answer."))))
    assert message["stopReason"] == "stop" and "errorMessage" not in message
    assert message["content"] == [{"type": "text", "text": "The answer."}]
    with_call = pi_fixture({"delta": {"stop_reason": reason}, "usage": {"output_tokens": 7}})
    assert final(replay(events_body(*with_call)))["stopReason"] == "toolUse"


@pytest.mark.parametrize("reason,ours", [("end_turn", "toolUse"), ("stop_sequence", "toolUse"),
                                          ("max_tokens", "length")])
def test_a_stop_with_tool_calls_is_tool_use_as_in_every_provider(reason, ours):
    # A proxy translating from another API may end a reply with calls as "end_turn";
    # the calls decide, as for Chat Completions. "length" stays: its calls may be cut.
    with_call = pi_fixture({"delta": {"stop_reason": reason}, "usage": {"output_tokens": 7}})
    events = replay(events_body(*with_call))
    assert final(events)["stopReason"] == ours and events[-1]["reason"] == ours


def test_refusal_is_an_error_that_says_so():  # D15
    message = final(replay(events_body(*text_reply("refusal"))))
    assert message["stopReason"] == "error" and "declined" in message["errorMessage"]
    assert not is_retryable(message)  # the same request would be refused again


def test_context_window_exceeded_is_an_error_for_compaction_not_retry():
    message = final(replay(events_body(*text_reply("model_context_window_exceeded"))))
    assert message["stopReason"] == "error" and "context window" in message["errorMessage"]
    assert not is_retryable(message)


def test_ping_unknown_events_and_unknown_deltas_are_ignored():
    events = text_reply("end_turn")
    events[2:2] = [("ping", {}), ("brand_new_event", {"x": 1}),
                   ("content_block_delta", {"index": 0, "delta": {"type": "citations_delta", "citation": {}}}),
                   ("content_block_delta", {"index": 7, "delta": {"type": "text_delta", "text": "ghost"}}),
                   ("content_block_start", {"index": 5, "content_block": {"type": "server_tool_use", "id": "s"}})]
    message = final(replay(events_body(*events)))
    assert message["content"] == [{"type": "text", "text": "Hi"}] and message["stopReason"] == "stop"


def test_events_are_recognised_by_their_json_type_without_event_lines():
    assert final(replay(events_body(*text_reply("end_turn"), named=False)))["stopReason"] == "stop"


def test_signature_delta_replaces_and_redacted_thinking_arrives_whole():
    events = [("message_start", {"message": {"usage": {}}}),
              ("content_block_start", {"index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me…"}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "signature_delta", "signature": "first"}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}),
              ("content_block_stop", {"index": 0}),
              ("content_block_start", {"index": 1, "content_block": {"type": "redacted_thinking", "data": "opaque=="}}),
              ("content_block_stop", {"index": 1}),
              ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}}),
              ("message_stop", {})]
    result_events = replay(events_body(*events))
    assert [e["type"] for e in result_events][1:7] == ["thinking_start", "thinking_delta", "thinking_end",
                                                        "thinking_start", "thinking_end", "done"]
    assert final(result_events)["content"] == [
        {"type": "thinking", "thinking": "Let me…", "thinkingSignature": "EqQB"},
        {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "opaque==", "redacted": True}]


def test_an_empty_tool_input_is_an_empty_object():
    events = [("message_start", {"message": {"usage": {}}}),
              ("content_block_start", {"index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "ls", "input": {}}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}}),
              ("content_block_stop", {"index": 0}),
              ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}})]
    assert final(replay(events_body(*events)))["content"][0]["arguments"] == {}


def test_invalid_final_tool_input_is_never_run_on_a_repaired_guess():
    events = [("message_start", {"message": {"usage": {}}}),
              ("content_block_start", {"index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "bash"}}),
              ("content_block_delta", {"index": 0, "delta": {"type": "input_json_delta",
                                                             "partial_json": '{"command": "rm -rf /tmp/x'}}),
              ("content_block_stop", {"index": 0}),
              ("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}})]
    message = final(replay(events_body(*events)))
    assert message["stopReason"] == "toolUse" and message["content"][0]["arguments"] == {}


def test_lone_surrogates_in_deltas_are_removed():
    events = text_reply("end_turn", text="half \ud83d emoji")  # json.dumps sends "\ud83d"
    message = final(replay(events_body(*events)))
    assert message["content"] == [{"type": "text", "text": "half  emoji"}]


def test_anything_after_message_stop_is_ignored():
    body = events_body(*text_reply("end_turn")) + b"data: {broken\n\n"
    assert final(replay(body))["stopReason"] == "stop"


def test_error_event_mid_stream():  # checklist 12
    with FakeServer([{"content": [{"type": "text", "text": "partial"}],
                      "fault": {"in_band_error": {"type": "overloaded_error", "message": "Overloaded"}}}]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    message = final(events)
    assert events[0]["type"] == "start" and message["stopReason"] == "error"
    assert message["errorMessage"] == "Overloaded (overloaded_error)"
    assert message["content"] == [{"type": "text", "text": "partial"}]
    assert is_retryable(message)  # the agent level tries again from scratch


def test_http_error_is_one_error_event_with_status_and_message():
    fault = {"status": 400, "body": {"type": "error", "error": {
        "type": "invalid_request_error", "message": "prompt is too long: 213462 tokens > 200000 maximum"}}}
    with FakeServer([{"fault": fault}]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    assert [e["type"] for e in events] == ["error"]
    assert final(events)["errorMessage"].startswith("400 prompt is too long")


def test_a_404_from_a_base_url_with_v1_says_it_must_not_have_it():  # D16
    fault = {"status": 404, "body": {"type": "error", "error": {"type": "not_found_error",
                                                                "message": "Not Found"}}}
    with FakeServer([{"fault": fault}]) as srv:
        events = list(provider_stream(make_model(srv.base_url + "/v1"), context(), StreamOptions()))
    assert final(events)["errorMessage"] == (
        f"404 Not Found (not_found_error) (POST {srv.base_url}/v1/v1/messages; is the base URL "
        f"right? Anthropic-style base URLs do not include /v1)")
    assert is_final(final(events)["errorMessage"])


@pytest.mark.parametrize("fault", [{}, {"line_ending": "\r\n"}, {"line_ending": "\r"}, {"chunk_size": 1},
                                   {"no_done": True}])
def test_round_trip_through_the_server(fault):
    turn = {"content": [{"type": "thinking", "thinking": "Think first."},
                        {"type": "text", "text": "Naïve text"},
                        {"type": "toolCall", "id": "toolu_9", "name": "read", "arguments": {"path": "ö.py"}}],
            "usage": {"input": 11, "cacheRead": 100, "cacheWrite": 20, "output": 30}, "fault": fault}
    with FakeServer([turn]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    message = final(events)
    assert message["stopReason"] == "toolUse"
    assert message["content"] == [
        {"type": "thinking", "thinking": "Think first.", "thinkingSignature": "sig-fake-0"},
        {"type": "text", "text": "Naïve text"},
        {"type": "toolCall", "id": "toolu_9", "name": "read", "arguments": {"path": "ö.py"}}]
    assert message["usage"]["totalTokens"] == 161


def test_truncated_stream_from_the_server_is_an_error():
    with FakeServer([{"content": [{"type": "text", "text": "cut"}], "fault": {"truncate": "before_finish"}}]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    assert "stream ended before the response was complete" in final(events)["errorMessage"]
    assert is_retryable(final(events))


def test_a_whole_message_answered_as_json_is_played_as_its_stream():  # stream: true ignored
    reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
             "content": [{"type": "thinking", "thinking": "Look first.", "signature": "EqQB"},
                         {"type": "text", "text": "Reading it."},
                         {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.py"}},
                         {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}}],
             "stop_reason": "tool_use", "stop_sequence": None,
             "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 7}}
    turn = {"fault": {"raw": json.dumps(reply, indent=2), "headers": {"Content-Type": "application/json"}}}
    with FakeServer([turn]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    assert [e["type"] for e in events] == ["start", "thinking_start", "thinking_delta", "thinking_end",
                                           "text_start", "text_delta", "text_end",
                                           "toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    message = final(events)
    assert message["content"] == [
        {"type": "thinking", "thinking": "Look first.", "thinkingSignature": "EqQB"},
        {"type": "text", "text": "Reading it."},
        {"type": "toolCall", "id": "toolu_1", "name": "read", "arguments": {"path": "a.py"}}]
    assert message["stopReason"] == "toolUse" and message["usage"]["totalTokens"] == 22


def test_a_json_error_answered_with_status_200_is_the_servers_error():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    turn = {"fault": {"raw": json.dumps(body), "headers": {"Content-Type": "application/json"}}}
    with FakeServer([turn]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions()))
    assert final(events)["errorMessage"] == "Overloaded (overloaded_error)" and is_retryable(final(events))


def test_the_api_key_never_appears_in_an_error_message():
    key = "sk-ant-api03-Secret456"
    fault = {"status": 401, "body": {"type": "error", "error": {
        "type": "authentication_error", "message": f"invalid x-api-key: {key}"}}}
    with FakeServer([{"fault": fault}]) as srv:
        events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions(api_key=key)))
        message = final(events)["errorMessage"]
        assert message == "401 invalid x-api-key: [redacted] (authentication_error)"
        for bad_key in (key + "\r", " " + key, "\t" + key + "\n"):  # x-api-key is the key itself
            events = list(provider_stream(make_model(srv.base_url), context(), StreamOptions(api_key=bad_key)))
            message = final(events)["errorMessage"]
            assert "Secret456" not in message and "[redacted]" in message and is_final(message)
        assert len(srv.requests) == 1


def test_abort_mid_stream_ends_as_aborted_quickly():
    turn = {"content": [{"type": "text", "text": "first words then a long silence"}],
            "fault": {"stall_seconds": 60, "stall_after_bytes": 900}}
    with FakeServer([turn]) as srv:
        options = StreamOptions()
        started = time.monotonic()
        events = []
        for event in provider_stream(make_model(srv.base_url), context(), options):
            events.append(event)
            if event["type"] == "text_delta":
                options.abort.set()
        elapsed = time.monotonic() - started
    message = final(events)
    assert message["stopReason"] == "aborted" and message["content"][0]["text"]
    assert elapsed < 10  # the server would have stalled for 60 s
