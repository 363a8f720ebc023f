"""The never-raise guard (providers/guard.py): every failure of a call is the final message.

First run() on its own, with hand-made bodies and parsers; then stream_http against
the scripted server: what comes back that is not an event stream (an HTML page, one
JSON document), and servers that cannot be reached.
"""

from functools import partial
import json
import socket
import threading

from fake_server import FakeServer
from miniagent.agent import Agent
from miniagent.harness.harness import Harness
from miniagent.core.messages import ABORTED_TEXT, text_block
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers import stream as provider_stream
from miniagent.files.redaction import redact
from miniagent.providers.guard import run
from miniagent.http.classify import is_final
from miniagent.http.errors import HTTPError


def make_model(base_url="http://127.0.0.1:1/v1"):
    return Model("test-model", "test", "openai-completions", base_url)


def context():
    return {"systemPrompt": "", "messages": [{"role": "user", "content": [text_block("hi")],
                                              "timestamp": 1}], "tools": []}


def final(events):
    last = events[-1]
    assert [e["type"] in ("done", "error") for e in events].count(True) == 1
    return last["message"] if last["type"] == "done" else last["error"]


def half_then(exc):
    """A parser that streams "Hal" as text, then fails with exc."""
    def parse(chunks, builder):
        index, event = builder.open(text_block(""))
        yield event
        yield builder.append(index, "Hal")
        raise exc
    return parse


def call_server(turns):
    """One call through the OpenAI provider; (events, the requests the server saw)."""
    with FakeServer(turns) as srv:
        events = list(provider_stream(make_model(srv.base_url + "/v1"), context(), StreamOptions()))
        return events, srv.requests


def json_turn(document):
    """A turn answering 200 with one JSON document, as a server that ignores stream: true."""
    return {"fault": {"raw": json.dumps(document, indent=2), "headers": {"Content-Type": "application/json"}}}


# --- run(): one call that never raises -------------------------------------------------------


def test_a_failure_before_the_body_is_a_lone_error_event():
    def refused():
        raise HTTPError("429 Rate limit reached", 429)
    events = list(run(make_model(), threading.Event(), refused, half_then(ValueError())))
    assert [e["type"] for e in events] == ["error"]
    assert final(events)["stopReason"] == "error"
    assert final(events)["errorMessage"] == "429 Rate limit reached"


def test_a_failure_mid_stream_keeps_what_arrived():
    events = list(run(make_model(), threading.Event(), lambda: [b""], half_then(KeyError("choices"))))
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "error"]
    message = final(events)
    assert message["content"] == [{"type": "text", "text": "Hal"}]
    assert message["errorMessage"] == "KeyError: 'choices'"  # an unexpected error names its type


def test_a_failure_while_abort_is_set_is_aborted_whatever_was_raised():
    abort = threading.Event()
    abort.set()
    events = list(run(make_model(), abort, lambda: [b""], half_then(OSError("socket shut down"))))
    assert final(events)["stopReason"] == "aborted"
    assert final(events)["errorMessage"] == ABORTED_TEXT


def test_redact_replaces_each_form_a_key_is_quoted_in():
    assert redact("401 Incorrect API key: sk-abc123", "sk-abc123") == "401 Incorrect API key: [redacted]"
    assert redact("bad header 'sk-abc123\\r'", "sk-abc123\r") == "bad header '[redacted]'"  # repr
    assert redact("401 bad key: sk-abc123.", "sk-abc123 ") == "401 bad key: [redacted]."  # stripped
    assert redact("token x rejected", "x") == "token x rejected"  # a placeholder, not a secret
    assert redact("no key here", None) == "no key here"


# --- stream_http(): what came back must be a stream -----------------------------------------


def test_an_html_page_answered_with_200_is_final_not_a_stream_cut_short():
    page = "<!DOCTYPE html><html><head><title>Open WebUI</title></head><body>...</body></html>"
    html = {"fault": {"raw": page, "status": 200, "headers": {"Content-Type": "text/html; charset=utf-8"}}}
    with FakeServer([html, {"content": [{"type": "text", "text": "never asked"}]}]) as srv:
        # a web UI's address, not its API's
        last = Harness(partial(Agent, model=make_model(srv.base_url)), base_delay=0.001).run("go")
        requests = srv.requests
    assert last["errorMessage"] == (
        f"the server answered with an HTML page, not an event stream (check the base URL: "
        f"{srv.base_url}/chat/completions) (not retried: the same URL will answer with the "
        f"same page)")
    assert is_final(last["errorMessage"]) and len(requests) == 1  # neither layer repeated it


def test_a_base_url_that_cannot_be_used_fails_final_without_a_request():
    for base_url in ("localhost:11434/v1", "htp://127.0.0.1:1/v1"):
        message = final(list(provider_stream(make_model(base_url), context(), StreamOptions())))
        assert message["errorMessage"].startswith("Request failed: ") and is_final(message["errorMessage"])


def test_unreachable_server_is_an_error_not_an_exception():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    events = list(provider_stream(make_model(f"http://127.0.0.1:{port}/v1"), context(),
                                  StreamOptions()))
    assert "Connection error" in final(events)["errorMessage"]


def test_a_json_error_answered_with_status_200_is_the_servers_error():
    events, requests = call_server([json_turn({"error": {"message": "Model is loading", "type": "unavailable"}})])
    assert final(events)["errorMessage"] == "Model is loading (unavailable)" and len(requests) == 1
