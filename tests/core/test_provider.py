"""The provider contract (core/provider.py): one stream() for the core's protocols, the
stop reason a reply with tool calls reports, and a protocol nobody speaks."""

import threading

from miniagent.core.messages import text_of
from miniagent.core.provider import Model, StreamOptions, stream, with_tool_use
from miniagent.core.scripted import parse_script, scripted_model

CALL = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
TEXT = {"type": "text", "text": "hi"}


def test_a_reply_holding_tool_calls_reports_tool_use_whatever_the_server_said():
    assert with_tool_use("stop", [TEXT, CALL]) == "toolUse"
    assert with_tool_use("stop", [TEXT]) == "stop"
    assert with_tool_use("length", [CALL]) == "length"  # its arguments may be cut off


def test_the_scripted_model_streams_through_the_contract_and_ends_with_done():
    model = scripted_model(parse_script([{"content": [TEXT]}]))
    events = list(stream(model, {"systemPrompt": "", "messages": [], "tools": []},
                         StreamOptions(abort=threading.Event())))
    assert events[0]["type"] == "start" and events[-1]["type"] == "done"
    assert text_of(events[-1]["message"]) == "hi"


def test_a_protocol_nobody_speaks_ends_the_stream_with_one_error_and_never_raises():
    model = Model(id="m", provider="p", api="carrier-pigeon")
    (event,) = list(stream(model, {"systemPrompt": "", "messages": [], "tools": []},
                           StreamOptions()))
    assert event["type"] == "error" and event["reason"] == "error"
    assert event["error"]["errorMessage"] == "Unknown API 'carrier-pigeon' for model m"
