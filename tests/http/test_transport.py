"""The transport against the scripted server: real sockets, real faults.

What is tested is what a plain blocking HTTP client gets wrong: connection failures
named in words, abort that takes effect at once while the server stalls, small events
handed on as they arrive, and a stream that breaks after it started. The only clock in
the assertions is a wide bound on abort ("returns within 5 s while the server would
stall for 60").
"""

import socket
import threading
import time

import pytest
import requests

from fake_server import HELLO, FakeServer, abort_when, chat, read_text, turn_from_capture
from helpers import FIXTURES
from miniagent.http.classify import is_final
from miniagent.http.errors import Aborted, HTTPError
from miniagent.http.transport import StreamError, default_read_timeout, iter_body, post_stream

CAPTURES = FIXTURES / "llama-server"


# --- Sending -------------------------------------------------------------------------------


def free_port():
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_connection_refused_on_this_machine_names_the_url_and_asks_about_the_server(host):
    url = f"http://{host}:{free_port()}/v1/chat/completions"
    with pytest.raises(HTTPError) as caught:
        post_stream(url, {}, {}, threading.Event())
    assert caught.value.message == (f"Connection error: could not reach {url}"
                                    " (connection refused; is the server running?)"
                                    " (not retried: no server has answered at this address yet)")
    assert caught.value.status is None and is_final(caught.value.message)  # a wrong URL, or down


def test_a_refused_connection_to_a_server_that_answered_before_is_transient():
    with FakeServer([HELLO]) as srv:
        assert read_text(chat(srv)) == "Hello from the fake server"
    with pytest.raises(HTTPError) as caught:  # the server is gone now: restarting, perhaps
        chat(srv, session=requests.Session())  # a new connection, not the kept-alive one
    assert "(connection refused; is the server running?)" in caught.value.message
    assert not is_final(caught.value.message)


def test_an_error_status_counts_as_having_reached_the_server():
    with FakeServer({"turns": []}) as srv:
        with pytest.raises(HTTPError):
            chat(srv)  # "500 no turn left": the server answered
    with pytest.raises(HTTPError) as caught:
        chat(srv, session=requests.Session())
    assert not is_final(caught.value.message)


def fail_dns(monkeypatch, errno=socket.EAI_NONAME, text="Name or service not known"):
    """Host names ending in .invalid fail to resolve with that error; the list returned
    records each lookup of one."""
    real, lookups = socket.getaddrinfo, []

    def getaddrinfo(host, *args, **kwargs):
        if str(host).endswith(".invalid"):
            lookups.append(host)
            raise socket.gaierror(errno, text)
        return real(host, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def test_an_unknown_host_name_is_final_after_one_attempt(monkeypatch):
    lookups = fail_dns(monkeypatch)
    url = "http://gpu-box.invalid:8080/v1/chat/completions"
    with pytest.raises(HTTPError) as caught:
        post_stream(url, {}, {}, threading.Event())
    assert caught.value.message == (f"Connection error: could not reach {url} (unknown host name) "
                                    f"(not retried: the name does not resolve)")
    assert is_final(caught.value.message) and len(lookups) == 1


def test_a_temporary_dns_failure_is_transient(monkeypatch):  # EAI_AGAIN: no DNS server answered
    lookups = fail_dns(monkeypatch, socket.EAI_AGAIN, "Temporary failure in name resolution")
    with pytest.raises(HTTPError) as caught:
        post_stream("http://gpu-box.invalid/v1/chat/completions", {}, {}, threading.Event())
    assert "(temporary failure in name resolution)" in caught.value.message
    assert not is_final(caught.value.message) and len(lookups) == 1


@pytest.mark.parametrize("url", ["htp://127.0.0.1:1/v1/chat/completions", "localhost:8080/v1/chat/completions",
                                 "http:///v1/chat/completions"])
def test_a_request_that_cannot_be_sent_is_final_and_says_so(url):
    with pytest.raises(HTTPError) as caught:
        post_stream(url, {}, {}, threading.Event())
    assert caught.value.message.startswith("Request failed: ")
    assert caught.value.message.endswith("(not retried: the request could not be sent)")
    assert is_final(caught.value.message)


@pytest.mark.parametrize("key", ["sk-test\r", "sk-test\n", " sk-test", "sk-t\u2019est"])
def test_a_header_http_cannot_carry_is_final_not_an_exception(key):
    with FakeServer([HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            post_stream(srv.base_url + "/v1/messages", {"x-api-key": key}, {}, threading.Event())
        assert srv.requests == []
    assert is_final(caught.value.message)


def test_a_connection_reset_before_the_status_line_is_sent_once_and_transient():
    with FakeServer([{"fault": {"reset_before_headers": True}}, HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 1
    assert "connection" in caught.value.message and not is_final(caught.value.message)


def test_the_default_read_timeout_outlasts_a_reasoning_models_silence(monkeypatch):
    # OpenAI's reasoning models send nothing while they think, often for minutes: the
    # default wait for data is the official SDKs' 600 s, not a shorter guess; the
    # environment may change it (slow servers, tests), and nonsense keeps the default.
    monkeypatch.delenv("MINIAGENT_READ_TIMEOUT", raising=False)
    assert default_read_timeout() == 600
    monkeypatch.setenv("MINIAGENT_READ_TIMEOUT", "2.5")
    assert default_read_timeout() == 2.5
    monkeypatch.setenv("MINIAGENT_READ_TIMEOUT", "soon")
    assert default_read_timeout() == 600


def test_no_status_line_within_the_read_timeout_is_reported_as_transient():
    stall = {"fault": {"stall_seconds": 60, "before_headers": True}}
    with FakeServer([stall, stall]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv, read_timeout=0.2)
        assert len(srv.requests) == 1
    assert "timed out" in caught.value.message and not is_final(caught.value.message)


def test_llama_server_context_error_is_an_http_error_with_its_message():
    with FakeServer([turn_from_capture(CAPTURES / "capture-error-context.txt")]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert caught.value.status == 400
        assert caught.value.message.startswith(
            "400 request (5053 tokens) exceeds the available context size (4096 tokens)")


def test_replayed_stream_capture_arrives_byte_for_byte():
    capture = CAPTURES / "capture-stream-text.txt"
    turns = [turn_from_capture(capture), turn_from_capture(capture)]
    turns[1]["fault"]["chunk_size"] = 1
    with FakeServer(turns) as srv:
        for _ in turns:
            response = chat(srv)
            assert b"".join(iter_body(response, threading.Event())) == capture.read_bytes()


def test_the_fake_server_lists_a_model_and_says_when_the_script_ran_out():
    with FakeServer({"turns": [HELLO]}) as srv:
        assert requests.get(srv.base_url + "/v1/models").json()["data"][0]["id"] == "fake-model"
        assert requests.get(srv.base_url + "/api/tags").json()["models"][0]["name"] == "fake-model"
        assert read_text(chat(srv)) == "Hello from the fake server"
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert caught.value.status == 500 and "no turn left" in caught.value.message


# --- Abort -----------------------------------------------------------------------------


def test_abort_before_sending_sends_nothing():
    abort = threading.Event()
    abort.set()
    with FakeServer([HELLO]) as srv:
        with pytest.raises(Aborted):
            chat(srv, abort)
        assert srv.requests == []


def test_abort_while_waiting_for_the_status_line():
    with FakeServer([{"fault": {"stall_seconds": 60, "before_headers": True}}]) as srv:
        abort = abort_when(srv, requests_seen=1)
        start = time.monotonic()
        with pytest.raises(Aborted):
            chat(srv, abort)
        assert time.monotonic() - start < 5


def test_abort_during_a_stalled_body():
    with FakeServer([{**HELLO, "fault": {"stall_seconds": 60}}]) as srv:
        abort = threading.Event()
        response = chat(srv, abort)
        threading.Timer(0.2, abort.set).start()  # whenever it comes, the read must stop
        start = time.monotonic()
        with pytest.raises(Aborted):
            list(iter_body(response, abort))
        assert time.monotonic() - start < 5  # while the server would stall for 60


def test_small_events_arrive_before_the_stall():
    # If the reader waited for a full buffer, the first event would only come after
    # the 60 s stall; it must be handed on as soon as it arrives.
    role_chunk_and_more = 120
    with FakeServer([{**HELLO, "fault": {"stall_seconds": 60, "stall_after_bytes": role_chunk_and_more}}]) as srv:
        abort = threading.Event()
        chunks = iter_body(chat(srv, abort), abort)
        first = next(chunks)
        assert first.startswith(b"data: {")
        abort.set()
        with pytest.raises(Aborted):
            list(chunks)


# --- Broken streams ----------------------------------------------------------------------


def test_connection_reset_mid_body_is_a_stream_error():
    with FakeServer([{**HELLO, "fault": {"reset_after_bytes": 150}}]) as srv:
        response = chat(srv)
        with pytest.raises(StreamError) as caught:
            list(iter_body(response, threading.Event()))
        assert caught.value.message.startswith("connection lost while streaming")


def test_silence_longer_than_the_read_timeout_is_a_stream_error():
    with FakeServer([{**HELLO, "fault": {"stall_seconds": 60, "stall_after_bytes": 1}}]) as srv:
        response = chat(srv, read_timeout=0.2)
        with pytest.raises(StreamError) as caught:
            list(iter_body(response, threading.Event()))
        assert "timed out" in caught.value.message
