"""The HTTP layer against the scripted server: real sockets, real faults.

Retry delays are made tiny with base_delay and retry-after-ms, so nothing here waits
for long; the only clock in the assertions is a wide bound on abort ("returns within
5 s while the server would stall for 60").
"""

import json
import socket
import threading
import time
from email.utils import formatdate
from pathlib import Path

import pytest
import requests

from fake_server import FakeServer, turn_from_capture
from helpers import FIXTURES
from miniagent import httperrors
from miniagent.retry import (
    Aborted,
    HTTPError,
    StreamError,
    backoff_delay,
    is_final,
    is_quota_error,
    iter_body,
    post_stream,
    server_retry_delay,
)
from miniagent.httperrors import http_error_message
from miniagent.sse import iter_sse

CAPTURES = FIXTURES / "llama-server"
HELLO = {"content": [{"type": "text", "text": "Hello from the fake server"}]}
FAST = {"base_delay": 0.001}


def chat(srv, abort=None, **kwargs):
    """POST to the server's OpenAI endpoint: the response, or the exception."""
    url = srv.base_url + "/v1/chat/completions"
    return post_stream(url, {"Authorization": "Bearer k"}, {"model": "m", "stream": True},
                       abort or threading.Event(), **{**FAST, **kwargs})


def read_text(response, abort=None):
    """The concatenated content deltas of an OpenAI stream."""
    text = ""
    for event in iter_sse(iter_body(response, abort or threading.Event())):
        if event.data != "[DONE]":
            for choice in json.loads(event.data).get("choices", []):
                text += choice["delta"].get("content") or ""
    return text


def status(code, headers=None, body=None):
    fault = {"status": code, "headers": headers or {}}
    if body is not None:
        fault["body"] = body
    return {"fault": fault}


def abort_when(srv, requests_seen):
    """An abort event that gets set once the server has seen that many requests."""
    abort = threading.Event()

    def watch():
        srv.wait_for_requests(requests_seen)
        abort.set()

    threading.Thread(target=watch, daemon=True).start()
    return abort


# --- Retries ---------------------------------------------------------------------------


def test_429_with_retry_after_then_success():
    turns = [status(429, {"retry-after": "0.01"}, {"error": {"message": "Rate limit reached"}}), HELLO]
    with FakeServer(turns) as srv:
        assert read_text(chat(srv)) == "Hello from the fake server"
        assert len(srv.requests) == 2


def test_5xx_and_529_are_retried_until_the_budget_is_spent():
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    turns = [status(503), status(502), status(529, body=overloaded), HELLO]
    with FakeServer(turns) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv, max_retries=2)
        assert len(srv.requests) == 3
        assert caught.value.status == 529
        assert caught.value.message == "529 Overloaded (overloaded_error)"
        assert caught.value.retryable  # the agent level may still try again later


@pytest.mark.parametrize("code", [408, 409, 500, 502, 503, 504])
def test_timeout_conflict_and_server_statuses_are_retried(code):
    with FakeServer([status(code), HELLO]) as srv:
        assert read_text(chat(srv)) == "Hello from the fake server"
        assert len(srv.requests) == 2


@pytest.mark.parametrize("code", [401, 403, 404, 413, 422])
def test_client_errors_are_final_after_one_request(code):
    with FakeServer([status(code), HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 1
        assert caught.value.status == code and not caught.value.retryable


def test_x_should_retry_false_on_a_500_is_final():
    with FakeServer([status(500, {"x-should-retry": "false"}), HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 1
        assert caught.value.status == 500 and not caught.value.retryable
        # The agent level sees only the text: it must say the decision.
        assert caught.value.message == "500 fake error 500 (not retried: the server said not to)"
        assert is_final(caught.value.message)


def test_x_should_retry_true_on_a_400_is_retried():
    with FakeServer([status(400, {"x-should-retry": "true"}), HELLO]) as srv:
        assert read_text(chat(srv)) == "Hello from the fake server"
        assert len(srv.requests) == 2


def test_a_400_is_not_retried():
    body = {"error": {"message": "'messages' is required", "type": "invalid_request_error"}}
    with FakeServer([status(400, body=body), HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert caught.value.message == "400 'messages' is required (invalid_request_error)"
        assert len(srv.requests) == 1


def test_quota_429_is_final_after_one_request():
    body = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                      "type": "insufficient_quota", "code": "insufficient_quota"}}
    # Even a server that says "retry" does not get the same request again.
    turns = [status(429, {"retry-after-ms": "1", "x-should-retry": "true"}, body), HELLO]
    with FakeServer(turns) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 1
        assert not caught.value.retryable
        assert caught.value.message.startswith("429 You exceeded your current quota")
        assert "insufficient_quota" in caught.value.message


def test_anthropic_billing_error_is_final():
    body = {"type": "error", "error": {"type": "billing_error", "message": "Your credit balance is too low"}}
    with FakeServer([status(402, body=body), HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            post_stream(srv.base_url + "/v1/messages", {}, {}, threading.Event(), **FAST)
        assert caught.value.message == "402 Your credit balance is too low (billing_error)"
        assert len(srv.requests) == 1


def test_retry_after_longer_than_60_s_fails_at_once_naming_the_wait():
    turns = [status(429, {"retry-after": "120"}, {"error": {"message": "Slow down"}}), HELLO]
    with FakeServer(turns) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 1
        assert caught.value.message == (
            "429 Slow down (not retried: the server asks to wait 120 s; the limit is 60 s)")
        assert caught.value.retry_after == 120 and not caught.value.retryable
        assert is_final(caught.value.message)


def test_the_servers_wait_is_reported_on_the_error():
    with FakeServer([status(503, {"retry-after": "2"})]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv, max_retries=0)
        assert caught.value.retry_after == 2


def free_port():
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_connection_refused_on_this_machine_names_the_url_and_asks_about_the_server(host):
    url = f"http://{host}:{free_port()}/v1/chat/completions"
    with pytest.raises(HTTPError) as caught:
        post_stream(url, {}, {}, threading.Event(), **FAST)
    assert caught.value.message == (f"Connection error: could not reach {url}"
                                    " (connection refused; is the server running?)")
    assert caught.value.status is None and caught.value.retryable
    assert not is_final(caught.value.message)


def test_the_server_running_hint_is_only_for_this_machine():
    for url in ("http://[::1]:8080/v1", "http://127.8.9.10/v1"):
        assert httperrors.unreachable(url, "connection refused").endswith("is the server running?)")
    assert httperrors.unreachable("http://10.0.0.7:11434/v1", "connection refused") == (
        "Connection error: could not reach http://10.0.0.7:11434/v1 (connection refused)")
    assert httperrors.unreachable("http://localhost:1/v1", "unknown host name").endswith("(unknown host name)")


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
        post_stream(url, {}, {}, threading.Event(), **FAST)
    assert caught.value.message == (f"Connection error: could not reach {url} (unknown host name) "
                                    f"(not retried: the name does not resolve)")
    assert not caught.value.retryable and is_final(caught.value.message)  # nor by the harness
    assert len(lookups) == 1


def test_a_temporary_dns_failure_is_retried(monkeypatch):  # EAI_AGAIN: no DNS server answered
    lookups = fail_dns(monkeypatch, socket.EAI_AGAIN, "Temporary failure in name resolution")
    with pytest.raises(HTTPError) as caught:
        post_stream("http://gpu-box.invalid/v1/chat/completions", {}, {}, threading.Event(), **FAST)
    assert "(temporary failure in name resolution)" in caught.value.message
    assert caught.value.retryable and not is_final(caught.value.message) and len(lookups) == 3


@pytest.mark.parametrize("text", [
    "Failed to resolve 'x' ([Errno -2] Name or service not known)",  # urllib3 2 on Linux
    "Failed to establish a new connection: [Errno -2] Name or service not known",  # urllib3 1.26
    "[Errno 8] nodename nor servname provided, or not known",  # macOS
    "[Errno 11001] getaddrinfo failed",  # Windows
])
def test_the_resolver_errors_of_each_platform_mean_an_unknown_host(text):
    assert httperrors.connection_reason(OSError(text)) == httperrors.UNKNOWN_HOST


@pytest.mark.parametrize("url", ["htp://127.0.0.1:1/v1/chat/completions", "localhost:8080/v1/chat/completions",
                                 "http:///v1/chat/completions"])
def test_a_request_that_cannot_be_sent_is_final_and_says_so(url):
    with pytest.raises(HTTPError) as caught:
        post_stream(url, {}, {}, threading.Event(), **FAST)
    assert caught.value.message.startswith("Request failed: ")
    assert caught.value.message.endswith("(not retried: the request could not be sent)")
    assert not caught.value.retryable and is_final(caught.value.message)


@pytest.mark.parametrize("key", ["sk-test\r", "sk-test\n", " sk-test", "sk-t\u2019est"])
def test_a_header_http_cannot_carry_is_final_not_an_exception(key):
    with FakeServer([HELLO]) as srv:
        with pytest.raises(HTTPError) as caught:
            post_stream(srv.base_url + "/v1/messages", {"x-api-key": key}, {}, threading.Event(), **FAST)
        assert srv.requests == []
    assert is_final(caught.value.message)


def test_a_connection_reset_before_the_status_line_is_retried():
    with FakeServer([{"fault": {"reset_before_headers": True}}, HELLO]) as srv:
        assert read_text(chat(srv)) == "Hello from the fake server"
        assert len(srv.requests) == 2


def test_the_default_read_timeout_outlasts_a_reasoning_models_silence():
    # OpenAI's reasoning models send nothing while they think, often for minutes: the
    # default wait for data is the official SDKs' 600 s, not a shorter guess.
    assert post_stream.__kwdefaults__["read_timeout"] >= 600


def test_no_status_line_within_the_read_timeout_is_retried_then_reported():
    stall = {"fault": {"stall_seconds": 60, "before_headers": True}}
    with FakeServer([stall, stall]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv, max_retries=1, read_timeout=0.2)
        assert len(srv.requests) == 2
        assert "timed out" in caught.value.message


# --- Errors as plain JSON, replayed from llama-server ---------------------------------


def test_llama_server_context_error_is_an_http_error_with_its_message():
    with FakeServer([turn_from_capture(CAPTURES / "capture-error-context.txt")]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert caught.value.status == 400
        assert caught.value.message.startswith(
            "400 request (5053 tokens) exceeds the available context size (4096 tokens)")


def test_llama_server_500_is_retried_then_reported():
    capture = turn_from_capture(CAPTURES / "capture-error-bad-json.txt")
    with FakeServer([capture] * 3) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 3
        assert caught.value.message.startswith("500 [json.exception.parse_error.101]")


def test_replayed_stream_capture_arrives_byte_for_byte():
    capture = CAPTURES / "capture-stream-text.txt"
    turns = [turn_from_capture(capture), turn_from_capture(capture)]
    turns[1]["fault"]["chunk_size"] = 1
    with FakeServer(turns) as srv:
        for _ in turns:
            response = chat(srv)
            assert b"".join(iter_body(response, threading.Event())) == capture.read_bytes()


@pytest.mark.parametrize("path, body, expected", [
    ("/chat/completions", "404 page not found",  # Ollama, a base URL without /v1
     "404 page not found (POST {url}; is the base URL right? OpenAI-style base URLs usually "
     "end in /v1)"),
    ("/v1/v1/messages", {"type": "error", "error": {"type": "not_found_error", "message": "Not Found"}},
     "404 Not Found (not_found_error) (POST {url}; is the base URL right? Anthropic-style base "
     "URLs do not include /v1)"),
    ("/v1/chat/completions", {"error": {"message": "model 'qwen3' not found"}},  # the URL was right
     "404 model 'qwen3' not found (POST {url})"),
])
def test_a_404_names_the_url_and_the_base_url_convention(path, body, expected):
    with FakeServer([status(404, body=body)]) as srv:
        url = srv.base_url + path
        with pytest.raises(HTTPError) as caught:
            post_stream(url, {}, {}, threading.Event(), **FAST)
    assert caught.value.message == expected.format(url=url)
    assert caught.value.status == 404 and is_final(caught.value.message)


def test_a_405_and_an_unknown_route_name_the_url_too():
    with FakeServer([status(405, body="Method Not Allowed")]) as srv:
        url = srv.base_url + "/chat/completions"
        with pytest.raises(HTTPError) as caught:
            post_stream(url, {}, {}, threading.Event(), **FAST)
        assert caught.value.message.startswith(f"405 Method Not Allowed (POST {url}; ")
        url = srv.base_url + "/v1/chat"  # the fake server has no such route
        with pytest.raises(HTTPError) as caught:
            post_stream(url, {}, {}, threading.Event(), **FAST)
        assert caught.value.message == (f"404 no route for POST /v1/chat (POST {url}; "
                                        f"is the base URL right?)")
    assert http_error_message(500, "oops", url) == "500 oops"  # other statuses: as they were


def test_error_message_shapes():
    assert http_error_message(404, '{"error": "model not found"}') == "404 model not found"
    assert http_error_message(500, "") == "500 status code (no body)"
    assert http_error_message(422, '{"detail": "bad field"}') == "422 bad field"


NGINX_502 = """<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.24.0</center>
</body>
</html>"""


def test_html_error_pages_become_their_title_or_heading_in_one_short_line():
    assert http_error_message(502, NGINX_502) == "502 Bad Gateway"  # the status said once
    page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><style>body{color:red}</style>\n"
            "<TITLE>\n  Access denied &amp; logged | example.com\n</TITLE></head><body>" + "x" * 5000)
    assert http_error_message(403, page) == "403 Access denied & logged | example.com"
    assert http_error_message(400, "<html><body><h2>Bad <b>request</b></h2><p>...</p></body></html>") == (
        "400 Bad request")
    assert http_error_message(502, "<html>\n  Bad gateway\n</html>") == "502 Bad gateway"
    long_page = "<html><body><p>" + "word " * 500 + "</p></body></html>"
    assert len(http_error_message(500, long_page)) <= 204


def test_is_final_reads_the_http_layers_decision_from_the_text():
    final = ["400 Invalid 'max_tokens': expected a value <= 8192, got 500 instead",
             "401 Incorrect API key provided", "404 model not found", "413 Request Entity Too Large",
             "429 You exceeded your current quota, please check your plan and billing details.",
             "402 Your credit balance is too low (billing_error)",
             "500 boom (not retried: the server said not to)",
             "Request failed: Invalid URL 'http://': No host supplied (not retried: the request could not be sent)"]
    transient = ["408 Request Timeout", "409 Conflict", "429 Rate limit reached (rate_limit_exceeded)",
                 "500 Internal error with code 400", "502 Bad Gateway", "529 Overloaded (overloaded_error)",
                 "Connection error: could not reach http://x/v1 (connection refused)",
                 "stream ended before the response was complete (no finish_reason)",
                 "Overloaded (overloaded_error)", "4000 tokens is too many", ""]
    assert [text for text in final if not is_final(text)] == []
    assert [text for text in transient if is_final(text)] == []


def test_quota_words():
    assert is_quota_error("429 You exceeded your current quota")
    assert is_quota_error('{"error": {"code": "insufficient_quota"}}')
    assert not is_quota_error("429 Rate limit reached for requests")


def test_server_retry_delay_forms():
    assert server_retry_delay({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert server_retry_delay({"retry-after": "2"}) == 2.0
    assert 3000 < server_retry_delay({"retry-after": time_in(3600)}) <= 3600
    assert server_retry_delay({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # past
    assert server_retry_delay({"retry-after": "soon"}) is None
    assert server_retry_delay({}) is None


def time_in(seconds):
    return formatdate(time.time() + seconds, usegmt=True)


def test_backoff_grows_and_is_capped():
    for _ in range(100):
        assert 0.375 <= backoff_delay(0) <= 0.5
        assert 0.75 <= backoff_delay(1) <= 1.0
        assert 6.0 <= backoff_delay(10) <= 8.0


def test_the_fake_server_lists_a_model_and_says_when_the_script_ran_out():
    with FakeServer({"turns": [HELLO]}) as srv:
        assert requests.get(srv.base_url + "/v1/models").json()["data"][0]["id"] == "fake-model"
        assert requests.get(srv.base_url + "/api/tags").json()["models"][0]["name"] == "fake-model"
        assert read_text(chat(srv)) == "Hello from the fake server"
        with pytest.raises(HTTPError) as caught:
            chat(srv, max_retries=0)
        assert caught.value.status == 500 and "no turn left" in caught.value.message


# --- Abort -----------------------------------------------------------------------------


def test_abort_before_sending_sends_nothing():
    abort = threading.Event()
    abort.set()
    with FakeServer([HELLO]) as srv:
        with pytest.raises(Aborted):
            chat(srv, abort)
        assert srv.requests == []


def test_abort_during_a_retry_wait():
    with FakeServer([status(503, {"retry-after": "30"}), HELLO]) as srv:
        abort = abort_when(srv, requests_seen=1)
        start = time.monotonic()
        with pytest.raises(Aborted):
            chat(srv, abort)
        assert time.monotonic() - start < 5  # while the server asked for 30
        assert len(srv.requests) == 1


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
