"""The scripted model (core/scripted.py) as a provider: the events it streams.

The loop, the demo and the CLI run on it everywhere else; here only what a script's
turn becomes at the provider contract.
"""

import threading

import pytest

from miniagent.core.messages import ABORTED_TEXT
from miniagent.core.provider import StreamOptions, stream
from miniagent.core.scripted import parse_script, scripted_model

CALL = {"type": "toolCall", "name": "read", "arguments": {"path": "a.py"}}
TEXT = {"type": "text", "text": "Let me look."}


def final(turn, abort=None):
    model = scripted_model(parse_script([turn]))
    events = list(stream(model, {"messages": []}, StreamOptions(abort=abort or threading.Event())))
    assert events[-1]["type"] in ("done", "error")
    return events[-1]


@pytest.mark.parametrize("turn,reason", [
    ({"content": [TEXT, CALL]}, "toolUse"),                       # the default with calls
    ({"content": [TEXT]}, "stop"),
    ({"content": [TEXT, CALL], "stopReason": "stop"}, "toolUse"),  # the rule every provider shares
    ({"content": [CALL], "stopReason": "length"}, "length"),
])
def test_the_stop_reason_follows_the_tool_calls_rule(turn, reason):
    done = final(turn)
    assert done["type"] == "done" and done["reason"] == reason
    assert done["message"]["stopReason"] == reason


def test_a_tool_call_without_an_id_gets_one_and_its_arguments():
    call = final({"content": [CALL]})["message"]["content"][0]
    assert call == {"type": "toolCall", "id": "call_1_0", "name": "read", "arguments": {"path": "a.py"}}


def test_an_abort_ends_the_turn_with_the_shared_text():
    abort = threading.Event()
    abort.set()
    event = final({"content": [TEXT]}, abort)
    assert event["type"] == "error" and event["reason"] == "aborted"
    assert event["error"]["errorMessage"] == ABORTED_TEXT


def test_a_script_carries_the_prompts_of_a_recorded_session_in_order():
    script = parse_script({"prompts": ["Fix it", "Now test it"], "turns": [{"content": [TEXT]}]})
    assert script.prompts == ["Fix it", "Now test it"]
    assert len(script.turns) == 1


def test_a_script_without_prompts_has_none():
    assert parse_script([{"content": [TEXT]}]).prompts == []
