"""The retry policy (docs/decisions.md D3): which failures are tried again, how long to wait.

Driven through the real transport against the scripted server (the decision is only
worth something if the right number of requests reaches the server), then the
deciding functions on their own. Retry delays are made tiny with base_delay and
retry-after-ms, so nothing here waits for long.
"""

import threading
import time
from email.utils import formatdate

import pytest

from fake_server import FAST, HELLO, FakeServer, abort_when, chat, read_text, status, turn_from_capture
from helpers import FIXTURES
from miniagent.http.retry import (Aborted, HTTPError, backoff_delay, error_for_status, is_final,
                             is_quota_error, server_retry_delay, with_retries)
from miniagent.http.transport import post_stream

CAPTURES = FIXTURES / "llama-server"


# --- Retries against the server ------------------------------------------------------------


@pytest.mark.ex_retry
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


@pytest.mark.ex_retry
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


@pytest.mark.ex_retry
def test_the_servers_wait_is_reported_on_the_error():
    with FakeServer([status(503, {"retry-after": "2"})]) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv, max_retries=0)
        assert caught.value.retry_after == 2


def test_llama_server_500_is_retried_then_reported():
    capture = turn_from_capture(CAPTURES / "capture-error-bad-json.txt")
    with FakeServer([capture] * 3) as srv:
        with pytest.raises(HTTPError) as caught:
            chat(srv)
        assert len(srv.requests) == 3
        assert caught.value.message.startswith("500 [json.exception.parse_error.101]")


def test_abort_during_a_retry_wait():
    with FakeServer([status(503, {"retry-after": "30"}), HELLO]) as srv:
        abort = abort_when(srv, requests_seen=1)
        start = time.monotonic()
        with pytest.raises(Aborted):
            chat(srv, abort)
        assert time.monotonic() - start < 5  # while the server asked for 30
        assert len(srv.requests) == 1


# --- The decisions, as plain functions -------------------------------------------------


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


@pytest.mark.ex_retry
def test_server_retry_delay_forms():
    assert server_retry_delay({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert server_retry_delay({"retry-after": "2"}) == 2.0
    assert 3000 < server_retry_delay({"retry-after": time_in(3600)}) <= 3600
    assert server_retry_delay({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # past
    assert server_retry_delay({"retry-after": "soon"}) is None
    assert server_retry_delay({}) is None


def time_in(seconds):
    return formatdate(time.time() + seconds, usegmt=True)


@pytest.mark.ex_retry
def test_backoff_grows_and_is_capped():
    for _ in range(100):
        assert 0.375 <= backoff_delay(0) <= 0.5
        assert 0.75 <= backoff_delay(1) <= 1.0
        assert 6.0 <= backoff_delay(10) <= 8.0


@pytest.mark.ex_retry
def test_error_for_status_decides_from_status_headers_and_body():
    busy = error_for_status(503, {}, "Busy")
    assert busy.message == "503 Busy" and busy.retryable and busy.status == 503
    told = error_for_status(503, {"x-should-retry": "false"}, "Busy")
    assert told.message == "503 Busy (not retried: the server said not to)" and not told.retryable
    quota = error_for_status(429, {"x-should-retry": "true"}, "You exceeded your current quota")
    assert not quota.retryable and is_final(quota.message)
    assert error_for_status(429, {"retry-after-ms": "250"}, "Slow down").retry_after == 0.25


@pytest.mark.ex_retry
def test_with_retries_repeats_only_a_retryable_failure_up_to_the_budget():
    tries = []

    def attempt():
        tries.append(1)
        raise HTTPError("503 Busy", 503, retryable=True, retry_after=0.001)
    with pytest.raises(HTTPError):
        with_retries(attempt, threading.Event(), max_retries=2)
    assert len(tries) == 3  # the first try and two retries


def test_with_retries_gives_up_at_once_on_a_final_failure():
    tries, waits = [], []

    def attempt():
        tries.append(1)
        raise HTTPError("401 Invalid key", 401)
    with pytest.raises(HTTPError) as caught:
        with_retries(attempt, threading.Event(), on_wait=lambda error, delay, attempt, attempts: waits.append(delay))
    assert caught.value.message == "401 Invalid key" and len(tries) == 1 and waits == []
