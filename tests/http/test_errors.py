"""Failed HTTP exchanges as one readable line (errors.py).

The 404 / 405 wording is checked through the transport against the scripted server,
since which URL was asked is part of the message; the rest on plain texts.
"""

import threading

import pytest

from fake_server import FakeServer, status
from miniagent.http import errors
from miniagent.http.errors import http_error_message
from miniagent.http.classify import is_final
from miniagent.http.errors import HTTPError
from miniagent.http.transport import post_stream


def test_the_server_running_hint_is_only_for_this_machine():
    for url in ("http://[::1]:8080/v1", "http://127.8.9.10/v1"):
        assert errors.unreachable(url, "connection refused").endswith("is the server running?)")
    assert errors.unreachable("http://10.0.0.7:11434/v1", "connection refused") == (
        "Connection error: could not reach http://10.0.0.7:11434/v1 (connection refused)")
    assert errors.unreachable("http://localhost:1/v1", "unknown host name").endswith("(unknown host name)")


@pytest.mark.parametrize("text", [
    "Failed to resolve 'x' ([Errno -2] Name or service not known)",  # urllib3 2 on Linux
    "Failed to establish a new connection: [Errno -2] Name or service not known",  # urllib3 1.26
    "[Errno 8] nodename nor servname provided, or not known",  # macOS
    "[Errno 11001] getaddrinfo failed",  # Windows
])
def test_the_resolver_errors_of_each_platform_mean_an_unknown_host(text):
    assert errors.connection_reason(OSError(text)) == errors.UNKNOWN_HOST


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
            post_stream(url, {}, {}, threading.Event())
    assert caught.value.message == expected.format(url=url)
    assert caught.value.status == 404 and is_final(caught.value.message)


def test_a_405_and_an_unknown_route_name_the_url_too():
    with FakeServer([status(405, body="Method Not Allowed")]) as srv:
        url = srv.base_url + "/chat/completions"
        with pytest.raises(HTTPError) as caught:
            post_stream(url, {}, {}, threading.Event())
        assert caught.value.message.startswith(f"405 Method Not Allowed (POST {url}; ")
        url = srv.base_url + "/v1/chat"  # the fake server has no such route
        with pytest.raises(HTTPError) as caught:
            post_stream(url, {}, {}, threading.Event())
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
