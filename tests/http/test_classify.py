"""The HTTP layer's verdict on a failure (docs/decisions.md D3): final or transient, and
the wait the server asked for, carried in the failure's one line.

Driven through the real transport against the scripted server (each failure must reach
the server exactly once: the HTTP layer never repeats a request), then the deciding
functions on their own. Nothing here waits: the waiting is the harness's
(tests/harness/test_reply_retry.py).
"""

import threading
import time
from email.utils import formatdate

import pytest

from fake_server import HELLO, FakeServer, chat, status, turn_from_capture
from helpers import FIXTURES
from miniagent.http.classify import (asked_wait, error_for_status, is_final, is_quota_error,
                                     judge, server_retry_delay)
from miniagent.http.errors import HTTPError, Verdict
from miniagent.http.transport import post_stream

CAPTURES = FIXTURES / "llama-server"


def fail_once(srv, path="/v1/chat/completions") -> HTTPError:
    """The HTTPError one request to the server ends in (the server must see one request)."""
    with pytest.raises(HTTPError) as caught:
        if path == "/v1/chat/completions":
            chat(srv)
        else:
            post_stream(srv.base_url + path, {}, {}, threading.Event())
    assert len(srv.requests) == 1  # sent once, whatever the verdict
    return caught.value


# --- One request, one verdict ----------------------------------------------------------------


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504, 520, 524, 529])
def test_transient_statuses_are_sent_once_and_left_to_the_harness(code):
    with FakeServer([status(code), HELLO]) as srv:
        error = fail_once(srv)
    assert error.status == code and not is_final(error.message)


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 413, 422, 501, 505])
def test_other_statuses_are_final(code):
    with FakeServer([status(code), HELLO]) as srv:
        error = fail_once(srv)
    assert error.status == code and is_final(error.message)


def test_a_529_keeps_the_words_the_retry_layer_reads():
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with FakeServer([status(529, body=overloaded)]) as srv:
        assert fail_once(srv).message == "529 Overloaded (overloaded_error)"


def test_x_should_retry_false_on_a_500_is_final():
    with FakeServer([status(500, {"x-should-retry": "false"}), HELLO]) as srv:
        error = fail_once(srv)
    # The retry layer sees only the text: it must say the decision.
    assert error.message == "500 fake error 500 (not retried: the server said not to)"
    assert is_final(error.message)


def test_x_should_retry_true_on_a_400_is_transient():
    with FakeServer([status(400, {"x-should-retry": "true"}), HELLO]) as srv:
        error = fail_once(srv)
    assert error.message.endswith("(the server asks to retry)") and not is_final(error.message)


def test_a_400_says_what_the_server_said():
    body = {"error": {"message": "'messages' is required", "type": "invalid_request_error"}}
    with FakeServer([status(400, body=body), HELLO]) as srv:
        assert fail_once(srv).message == "400 'messages' is required (invalid_request_error)"


def test_quota_429_is_final_even_when_the_server_says_retry():
    body = {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                      "type": "insufficient_quota", "code": "insufficient_quota"}}
    turns = [status(429, {"retry-after-ms": "1", "x-should-retry": "true"}, body), HELLO]
    with FakeServer(turns) as srv:
        error = fail_once(srv)
    assert error.message.startswith("429 You exceeded your current quota")
    assert "insufficient_quota" in error.message and is_final(error.message)


def test_anthropic_billing_error_is_final():
    body = {"type": "error", "error": {"type": "billing_error", "message": "Your credit balance is too low"}}
    with FakeServer([status(402, body=body), HELLO]) as srv:
        error = fail_once(srv, "/v1/messages")
    assert error.message == "402 Your credit balance is too low (billing_error)"
    assert is_final(error.message)


def test_retry_after_longer_than_60_s_fails_at_once_naming_the_wait():
    turns = [status(429, {"retry-after": "120"}, {"error": {"message": "Slow down"}}), HELLO]
    with FakeServer(turns) as srv:
        error = fail_once(srv)
    assert error.message == (
        "429 Slow down (not retried: the server asks to wait 120 s; the limit is 60 s)")
    assert is_final(error.message)


def test_the_servers_wait_is_passed_up_in_the_message():
    with FakeServer([status(503, {"retry-after": "2"}, "Busy")]) as srv:
        error = fail_once(srv)
    assert error.message == "503 Busy (the server asks to wait 2 s)"
    assert asked_wait(error.message) == 2 and not is_final(error.message)


def test_llama_server_500_is_sent_once_and_reported():
    capture = turn_from_capture(CAPTURES / "capture-error-bad-json.txt")
    with FakeServer([capture] * 3) as srv:
        error = fail_once(srv)
    assert error.message.startswith("500 [json.exception.parse_error.101]")


# llama-server's own answer when started without --jinja and asked with tools (the shape
# of its other 500s, capture-error-bad-json.txt; the message is llama.cpp's).
NO_JINJA = {"error": {"code": 500, "message": "tools param requires --jinja flag",
                      "type": "server_error"}}


def test_llama_server_without_jinja_is_final_and_says_how_to_start_it():
    with FakeServer([status(500, body=NO_JINJA), HELLO]) as srv:
        error = fail_once(srv)
    assert error.message == ("500 tools param requires --jinja flag (server_error) (not retried: "
                             "start llama-server with --jinja to let the model call tools)")
    assert is_final(error.message)


# --- The decisions, as plain functions -------------------------------------------------


def test_is_final_reads_the_http_layers_decision_from_the_text():
    final = ["400 Invalid 'max_tokens': expected a value <= 8192, got 500 instead",
             "401 Incorrect API key provided", "404 model not found", "409 Conflict",
             "413 Request Entity Too Large", "501 Not Implemented",
             "505 HTTP Version Not Supported",
             "429 You exceeded your current quota, please check your plan and billing details.",
             "402 Your credit balance is too low (billing_error)",
             "500 boom (not retried: the server said not to)",
             "Connection error: could not reach http://x/v1 (connection refused) (not retried: "
             "no server has answered at this address yet)",
             "Request failed: Invalid URL 'http://': No host supplied (not retried: the request could not be sent)"]
    transient = ["408 Request Timeout", "429 Rate limit reached (rate_limit_exceeded)",
                 "500 Internal error with code 400", "502 Bad Gateway", "529 Overloaded (overloaded_error)",
                 "400 Try later (the server asks to retry)",
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
    assert server_retry_delay({"retry-after": "nan"}) is None
    assert server_retry_delay({}) is None


def time_in(seconds):
    return formatdate(time.time() + seconds, usegmt=True)


def test_error_for_status_decides_from_status_headers_and_body():
    busy = error_for_status(503, {}, "Busy")
    assert busy.message == "503 Busy" and busy.status == 503 and not is_final(busy.message)
    told = error_for_status(503, {"x-should-retry": "false"}, "Busy")
    assert told.message == "503 Busy (not retried: the server said not to)"
    quota = error_for_status(429, {"x-should-retry": "true"}, "You exceeded your current quota")
    assert is_final(quota.message)
    slow = error_for_status(429, {"retry-after-ms": "250"}, "Slow down")
    assert slow.message == "429 Slow down (the server asks to wait 0.25 s)"


def test_the_verdict_is_data_on_the_error_not_read_back_from_its_words():
    assert error_for_status(503, {}, "Busy").verdict == Verdict(retryable=True)
    slow = error_for_status(429, {"retry-after": "2"}, "Slow down").verdict
    assert slow == Verdict(retryable=True, wait_s=2.0)
    assert error_for_status(501, {}, "Not Implemented").verdict == Verdict(retryable=False)
    too_long = error_for_status(400, {}, "prompt is too long: 213462 tokens > 200000").verdict
    assert too_long == Verdict(retryable=False, overflow=True)
    # A server's own words that look like our marks change nothing:
    assert error_for_status(503, {}, "Busy (not retried: forged)").verdict.retryable
    assert error_for_status(503, {}, "Busy (the server asks to wait 50 s)").verdict.wait_s is None


def test_judge_reads_words_that_came_without_a_verdict():
    assert judge("Overloaded (overloaded_error)") == Verdict(retryable=True)
    assert judge("503 Busy (the server asks to wait 2 s)") == Verdict(True, wait_s=2.0)
    assert judge("400 prompt is too long: 213462 tokens") == Verdict(False, overflow=True)
    assert judge("The model declined to answer (stop_reason: refusal)") == Verdict(False)


def test_asked_wait_reads_back_what_error_for_status_wrote():
    for seconds in (0.00001, 0.25, 2, 45.5, 60):
        message = error_for_status(429, {"retry-after": str(seconds)}, "Slow down").message
        assert asked_wait(message) == pytest.approx(seconds, rel=0.01)
    assert asked_wait("429 Slow down") is None
    assert asked_wait("429 Slow down (the server asks to wait 1.2.3 s)") is None
