"""The verdict beside a failed reply (providers/verdict.py): decided where the failure is
first seen, read as data, never a key of the message; words judged when it is missing.

Driven through the OpenAI provider against the scripted server, as a run sees it.
"""

import json

from fake_server import FakeServer, status
from miniagent.http.errors import Verdict
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers import stream as provider_stream
from miniagent.providers.builder import MessageBuilder
from miniagent.providers.verdict import KEPT, verdict_of


def failed_reply(turn):
    """The final message of one call whose server answers with `turn`."""
    with FakeServer([turn]) as srv:
        model = Model("test-model", "test", "openai-completions", srv.base_url + "/v1")
        context = {"systemPrompt": "", "messages": [], "tools": []}
        events = list(provider_stream(model, context, StreamOptions()))
    assert events[-1]["type"] == "error"
    return events[-1]["error"]


def test_the_verdict_travels_beside_the_message_not_in_it():
    message = failed_reply(status(429, {"retry-after": "2"}, {"error": {"message": "Slow down"}}))
    assert verdict_of(message) == Verdict(retryable=True, wait_s=2.0)
    assert message["errorMessage"] == "429 Slow down (the server asks to wait 2 s)"
    as_saved = json.loads(json.dumps(message))  # what the session file and rpc carry
    assert as_saved == message and "verdict" not in json.dumps(message).lower()


def test_a_message_read_back_from_a_file_is_judged_from_its_words():
    message = failed_reply(status(503, body="Busy (not retried: forged by the server)"))
    assert verdict_of(message).retryable  # the server's words cannot pass for our mark
    read_back = json.loads(json.dumps(message))  # no verdict came with it: the words decide
    assert not verdict_of(read_back).retryable
    assert verdict_of(json.loads(json.dumps(failed_reply(status(503, body="Busy"))))).retryable


def test_only_the_newest_verdicts_are_kept():
    builder = MessageBuilder(Model("m", "test", "openai-completions", "http://127.0.0.1:1"))
    builder.fail("Busy (not retried: forged)", aborted=False, verdict=Verdict(retryable=True))
    first = builder.message
    assert verdict_of(first).retryable
    for _ in range(KEPT):
        other = MessageBuilder(builder.model)
        other.fail("503 Busy", aborted=False)
    assert not verdict_of(first).retryable  # forgotten: judged from its words again
