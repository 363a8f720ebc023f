"""core/openai.py in its plain form: the request, the chunks, and the plain transport
against real sockets (tests/fake_server.py). The seams are called as the product calls
them (compat, prepare_history, request, transport). Imports only miniagent.core."""

import json
import socket
import threading

from fake_server import FakeServer, status
from miniagent.core.openai import STANDARD_COMPAT, build_request, parse_chunks, stream
from miniagent.core.assembly import MessageBuilder, run
from miniagent.core.provider import Model, StreamOptions
from miniagent.core import provider

TOOLS = [{"name": "read", "description": "Read a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}]


def make_model(base_url="http://127.0.0.1:1/v1", **fields):
    return Model("test-model", "test", "openai-completions", base_url, **fields)


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def context(messages=None):
    return {"systemPrompt": "Be terse.", "messages": messages or [user("hi")], "tools": TOOLS}


def served(turns, **options):
    """One call through the core's stream() against a FakeServer: (events, requests)."""
    with FakeServer(turns) as srv:
        model = make_model(srv.base_url + "/v1")
        events = list(provider.stream(model, context(), StreamOptions(**options)))
        return events, srv.requests


def test_a_tool_round_trip_arrives_as_one_message_with_its_events():
    turn = {"content": [{"type": "text", "text": "Reading."},
                        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}}]}
    events, requests = served([turn])
    body = requests[0]["body"]
    assert body["messages"][0] == {"role": "system", "content": "Be terse."}
    assert body["max_tokens"] == 16384 and body["stream_options"] == {"include_usage": True}
    assert body["tools"] == [{"type": "function", "function": TOOLS[0]}]
    assert events[0]["type"] == "start" and events[-1]["type"] == "done"
    message = events[-1]["message"]
    assert message["stopReason"] == "toolUse"
    assert message["content"][1] == {"type": "toolCall", "id": "c1", "name": "read",
                                     "arguments": {"path": "a.py"}}
    assert message["usage"]["input"] == 10 and message["usage"]["output"] == 5


def test_an_http_error_status_is_a_lone_error_event_of_one_line():
    events, _ = served([status(500, body="Internal\nServer  Error")])
    assert [e["type"] for e in events] == ["error"]
    assert events[0]["error"]["stopReason"] == "error"
    assert events[0]["error"]["errorMessage"] == "500 Internal Server Error"


def test_a_refused_connection_is_an_error_of_one_line():
    with socket.socket() as free:  # a port nobody listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    events = list(stream(make_model(f"http://127.0.0.1:{port}/v1"), context(), StreamOptions()))
    message = events[-1]["error"]
    assert message["stopReason"] == "error" and "\n" not in message["errorMessage"]
    assert message["errorMessage"].startswith(f"Connection error: could not reach http://127.0.0.1:{port}")


def test_a_body_cut_before_its_finish_reason_is_an_error():
    events, _ = served([{"content": [{"type": "text", "text": "Half"}],
                         "fault": {"truncate": "before_finish"}}])
    assert events[-1]["error"]["errorMessage"].startswith("stream ended before the response was complete")
    assert events[-1]["error"]["content"] == [{"type": "text", "text": "Half"}]


def test_the_compat_and_history_seams_shape_the_request():
    seen = []

    def hygiene(messages, model):
        seen.append(model.id)
        return messages[-1:]
    compat = {**STANDARD_COMPAT, "maxTokensField": "max_completion_tokens",
              "supportsUsageInStreaming": False}
    _, _, body = build_request(make_model(), context([user("old"), user("new")]),
                               StreamOptions(max_tokens=100), compat, hygiene)
    assert seen == ["test-model"]
    assert body["messages"][1:] == [{"role": "user", "content": [{"type": "text", "text": "new"}]}]
    assert body["max_completion_tokens"] == 100 and "max_tokens" not in body
    assert "stream_options" not in body


def test_the_transport_request_and_builder_seams_are_used():
    sent = []

    def transport(url, headers, body, abort):
        sent.append((url, body["model"]))
        data = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
        return [f"data: {json.dumps(data)}\n\n".encode()]
    events = list(stream(make_model("http://h/v1/"), context(), StreamOptions(), transport=transport))
    assert sent == [("http://h/v1/chat/completions", "test-model")]
    assert events[-1]["message"]["content"] == [{"type": "text", "text": "ok"}]


def test_fragments_of_parallel_calls_are_matched_by_index():
    chunks = [{"tool_calls": [{"index": 0, "id": "a", "function": {"name": "read", "arguments": '{"pa'}}]},
              {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "read", "arguments": '{"path"'}}]},
              {"tool_calls": [{"index": 0, "function": {"arguments": 'th": "x"}'}}]},
              {"tool_calls": [{"index": 1, "function": {"arguments": ': "y"}'}}]}]
    body = "".join(f"data: {json.dumps({'choices': [{'index': 0, 'delta': c}]})}\n\n" for c in chunks)
    body += 'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
    events = list(run(MessageBuilder(make_model()), threading.Event(), lambda: [body.encode()], parse_chunks))
    calls = [(b["id"], b["arguments"]) for b in events[-1]["message"]["content"]]
    assert calls == [("a", {"path": "x"}), ("b", {"path": "y"})]



def test_an_in_band_error_after_200_ends_as_one_line_of_the_servers_json():
    body = b'data: {"error": {"message": "Overloaded", "type": "overloaded_error"}}\n\n'
    events = list(run(MessageBuilder(make_model()), threading.Event(), lambda: [body], parse_chunks))
    assert events[-1]["error"]["errorMessage"] == '{"message": "Overloaded", "type": "overloaded_error"}'
