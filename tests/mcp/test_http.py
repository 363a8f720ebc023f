"""The streamable HTTP transport against the scripted server (tests/mcp/mcp_http_server.py):
what the server sees on the wire, and what reaches on_message / on_closed."""

import socket
import threading
import time

import pytest
from mcp.mcp_http_server import McpHttpServer

from miniagent.mcp.client import McpClient, McpError
from miniagent.mcp.jsonrpc import RequestAborted
from miniagent.mcp.http import LEGACY_SSE, HttpTransport
from miniagent.mcp import http_stream
from miniagent.mcp.http_stream import STREAM_ENDED
from miniagent.mcp.transport import SessionExpired, TransportClosed

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "miniagent", "version": "test"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(request_id, message="hi"):
    params = {"name": "echo", "arguments": {"message": message}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


class Collector:
    """on_message and on_closed for a transport, and waits on what they received."""

    def __init__(self, transport):
        self.messages = []
        self.closed = []
        self._lock = threading.Condition()
        transport.on_message = self.on_message
        transport.on_closed = self.on_closed

    def on_message(self, message):
        with self._lock:
            self.messages.append(message)
            self._lock.notify_all()

    def on_closed(self, reason):
        with self._lock:
            self.closed.append(reason)
            self._lock.notify_all()

    def answer(self, request_id, timeout=10):
        """The answer to request_id once it arrived (None at the timeout)."""
        with self._lock:
            self._lock.wait_for(lambda: self._find(request_id), timeout)
            return self._find(request_id)

    def _find(self, request_id):
        return next((m for m in self.messages if m.get("id") == request_id and "method" not in m), None)

    def wait_closed(self, timeout=10):
        with self._lock:
            return self._lock.wait_for(lambda: self.closed, timeout)


@pytest.fixture
def connect():
    """connect(srv, **options) -> (transport, collector), initialized; closed at the end."""
    transports = []

    def make(srv, initialize=True, **options):
        transport = HttpTransport(options.pop("url", srv.url), options.pop("headers", {}), **options)
        transports.append(transport)
        collector = Collector(transport)
        transport.start()
        if initialize:
            transport.send(INITIALIZE)
            assert collector.answer(1)["result"]["serverInfo"]["name"] == "scripted-http"
            transport.protocol_version = "2025-11-25"
            transport.send(INITIALIZED)
        return transport, collector

    yield make
    for transport in transports:
        transport.close()


# --- JSON answers, headers, the session -------------------------------------------------------


def test_json_answer_arrives_before_send_returns_and_headers_follow_the_session(connect):
    with McpHttpServer() as srv:
        transport, collector = connect(srv, headers={"Authorization": "Bearer k"})
        transport.send(call(2))
        assert collector.messages[-1]["result"]["content"][0]["text"] == "Echo: hi"
    init, initialized, tool_call = srv.of("POST")
    assert init["headers"]["accept"] == "application/json, text/event-stream"
    assert init["headers"]["content-type"] == "application/json"
    assert init["headers"]["authorization"] == "Bearer k"
    assert "mcp-session-id" not in init["headers"]
    assert "mcp-protocol-version" not in init["headers"]
    for later in (initialized, tool_call):
        assert later["headers"]["mcp-session-id"] == "s-1"
        assert later["headers"]["mcp-protocol-version"] == "2025-11-25"
        assert later["headers"]["authorization"] == "Bearer k"


def test_a_json_batch_is_delivered_item_by_item(connect):
    with McpHttpServer(batch=True) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
    kinds = [m.get("method", "answer") for m in collector.messages]
    assert kinds == ["notifications/message", "answer"] * 2  # initialize's, then the call's


def test_a_notification_answered_202_delivers_nothing(connect):
    with McpHttpServer() as srv:
        transport, collector = connect(srv)
        before = len(collector.messages)
        transport.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        assert len(collector.messages) == before


def test_a_server_without_sessions_gets_no_session_header(connect):
    with McpHttpServer(session=False) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
    assert all("mcp-session-id" not in r["headers"] for r in srv.requests)


def test_expired_session_raises_session_expired_and_a_new_initialize_starts_afresh(connect):
    with McpHttpServer() as srv:
        transport, collector = connect(srv)
        srv.expire_session()
        with pytest.raises(SessionExpired, match=r"the server ended the session \(404\)"):
            transport.send(call(2))
        transport.send(INITIALIZE)
        assert collector.answer(1)
        transport.send(call(3))
        assert collector.answer(3)["result"]["content"][0]["text"] == "Echo: hi"
    reinit, tool_call = srv.of("POST")[-2:]
    assert "mcp-session-id" not in reinit["headers"]  # the forgotten session is not sent
    assert tool_call["headers"]["mcp-session-id"] == "s-2"


# --- SSE answers ----------------------------------------------------------------------------


def test_sse_answer_skips_the_priming_event_and_delivers_progress_then_the_answer(connect):
    with McpHttpServer(sse={"tools/call"}, progress=2) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        assert collector.answer(2)["result"]["content"][0]["text"] == "Echo: hi"
    kinds = [m.get("method", "answer") for m in collector.messages[1:]]
    assert kinds == ["notifications/progress", "notifications/progress", "answer"]


def test_send_returns_while_a_streamed_answer_is_still_coming(connect):
    with McpHttpServer(sse={"tools/call"}, hold=True) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))  # returns although the server holds the answer
        assert collector.answer(2, timeout=0) is None
        srv.go_on.set()
        assert collector.answer(2)["result"]["content"][0]["text"] == "Echo: hi"


def test_a_server_request_on_the_stream_is_answered_before_the_answer_comes(connect):
    ping = {"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}
    with McpHttpServer(sse={"tools/call"}, server_request=ping) as srv:
        transport, collector = connect(srv)

        def answer_pings(message):
            collector.on_message(message)
            if message.get("method") == "ping":  # as the Connection does, on another thread
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
                threading.Thread(target=transport.send, args=(reply,)).start()

        transport.on_message = answer_pings
        transport.send(call(2))
        assert collector.answer(2)["result"]["content"][0]["text"] == "Echo: hi"
    assert collector.messages[1] == ping
    assert {"jsonrpc": "2.0", "id": "srv-1", "result": {}} in [r["body"] for r in srv.of("POST")]


@pytest.mark.parametrize("cut_how", ["end", "reset"])
def test_a_cut_stream_is_resumed_with_last_event_id(connect, cut_how):
    with McpHttpServer(sse={"tools/call"}, progress=1, cut_after=2, cut_how=cut_how) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        assert collector.answer(2)["result"]["content"][0]["text"] == "Echo: hi"
    (resume,) = srv.of("GET")
    assert resume["headers"]["accept"] == "text/event-stream"
    assert resume["headers"]["last-event-id"] == "1-1"  # stream 1, its event 1 (progress)
    assert resume["headers"]["mcp-session-id"] == "s-1"
    assert resume["headers"]["mcp-protocol-version"] == "2025-11-25"
    kinds = [m.get("method", "answer") for m in collector.messages[1:]]
    assert kinds == ["notifications/progress", "answer"]  # each once


def test_a_cut_stream_without_event_ids_answers_with_an_error_at_once(connect):
    with McpHttpServer(sse={"tools/call"}, event_ids=False, progress=1, cut_after=1) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        assert collector.answer(2)["error"] == {"code": -32000, "message": STREAM_ENDED}
    assert srv.of("GET") == []


def test_resuming_that_fails_three_times_answers_with_an_error(connect):
    with McpHttpServer(sse={"tools/call"}, cut_after=1, resume_status=405) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        assert collector.answer(2)["error"]["message"] == STREAM_ENDED
    assert len(srv.of("GET")) == 3


def test_a_long_retry_field_is_capped(connect, monkeypatch):
    # The server asks to wait 60 s before coming back; we wait at most the cap (2 s, made
    # 0.2 s here: what is tested is that the cap applies).
    monkeypatch.setattr(http_stream, "MAX_RETRY_DELAY", 0.2)
    with McpHttpServer(sse={"tools/call"}, cut_after=1, retry_ms=60000) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        assert collector.answer(2, timeout=8)["result"]["content"][0]["text"] == "Echo: hi"


def test_cancelling_a_request_stops_its_stream(connect):
    with McpHttpServer(sse={"tools/call"}, hold=True) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 2, "reason": "timed out"}}
        transport.send(cancel)
        assert srv.hung_up.wait(5)
        assert collector.answer(2, timeout=0) is None  # no error made up for it either


# --- Failures ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [302, 307])
def test_a_redirect_to_another_origin_carries_no_configured_header(connect, status):
    headers = {"Authorization": "Bearer k", "X-Api-Key": "secret-key"}
    with McpHttpServer() as there, McpHttpServer(redirect=(status, there.url)) as here:
        transport, collector = connect(here, initialize=False, headers=headers)
        try:
            transport.send(INITIALIZE)
        except TransportClosed:
            pass  # a 302 turns the POST into a GET, which that server refuses
        assert there.wait_for(lambda request: True)
    arrived = there.requests[0]["headers"]
    assert "x-api-key" not in arrived and "authorization" not in arrived
    assert here.requests[0]["headers"]["x-api-key"] == "secret-key"


def test_a_redirect_within_the_origin_keeps_the_configured_headers(connect):
    with McpHttpServer(redirect=(307, "/moved")) as srv:
        connect(srv, headers={"X-Api-Key": "secret-key"})
    moved = [request for request in srv.of("POST") if request["path"] == "/moved"]
    assert moved and all(r["headers"]["x-api-key"] == "secret-key" for r in moved)


def test_401_says_to_check_the_headers(connect):
    with McpHttpServer(status=401, body="Unauthorized: missing bearer token") as srv:
        transport, _ = connect(srv, initialize=False)
        with pytest.raises(TransportClosed) as failure:
            transport.send(INITIALIZE)
    assert str(failure.value) == (
        f"HTTP 401 from {srv.url}: Unauthorized: missing bearer token; check the headers "
        "(a bearer token?); OAuth sign-in is not supported")


def test_500_names_the_status_and_the_servers_message(connect):
    with McpHttpServer(status=500, body='{"error": {"message": "database\\nis down"}}') as srv:
        transport, _ = connect(srv, initialize=False)
        with pytest.raises(TransportClosed, match=r"^HTTP 500 from http://127\.0\.0\.1:\d+/mcp: database is down$"):
            transport.send(INITIALIZE)


def test_connection_refused_is_one_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nobody listens once the socket is closed
    transport = HttpTransport(f"http://127.0.0.1:{port}/mcp", {})
    with pytest.raises(TransportClosed) as failure:
        transport.send(INITIALIZE)
    assert str(failure.value) == (f"Connection error: could not reach http://127.0.0.1:{port}/mcp "
                                  "(connection refused; is the server running?)")


def test_no_status_line_within_the_timeout(connect):
    with McpHttpServer(stall_before_headers=60) as srv:
        transport, _ = connect(srv, initialize=False, timeout=0.5)
        with pytest.raises(TransportClosed, match=r"no answer from http://127\.0\.0\.1:\d+/mcp within 0\.5 s"):
            transport.send(INITIALIZE)


def test_malformed_json_body_is_one_clear_error(connect):
    with McpHttpServer(malformed=True) as srv:
        transport, _ = connect(srv, initialize=False)
        with pytest.raises(TransportClosed, match='the server sent malformed JSON: {"jsonrpc": "2.0", "id":$'):
            transport.send(INITIALIZE)


def test_malformed_json_event_answers_the_request_with_an_error(connect):
    with McpHttpServer(sse=True, malformed=True) as srv:
        transport, collector = connect(srv, initialize=False)
        transport.send(INITIALIZE)
        assert "the server sent malformed JSON" in collector.answer(1)["error"]["message"]


def test_an_sse_event_over_16_mb_breaks_the_transport(connect):
    with McpHttpServer(sse=True, huge_mb=17) as srv:
        transport, collector = connect(srv, initialize=False)
        transport.send(INITIALIZE)
        assert collector.wait_closed()
        assert collector.closed == ["the server sent an SSE event over 16 MB"]
        with pytest.raises(TransportClosed, match="over 16 MB"):
            transport.send(call(2))


def test_a_json_body_over_16_mb_is_refused(connect):
    with McpHttpServer(huge_mb=17) as srv:
        transport, collector = connect(srv, initialize=False)
        with pytest.raises(TransportClosed, match="the server sent a JSON body over 16 MB"):
            transport.send(INITIALIZE)


# --- The legacy SSE transport -------------------------------------------------------------------


def test_a_url_ending_in_sse_is_refused_before_anything_is_sent():
    transport = HttpTransport("http://127.0.0.1:9/sse", {})
    with pytest.raises(TransportClosed) as failure:
        transport.start()
    assert str(failure.value) == LEGACY_SSE
    assert "use its streamable HTTP endpoint (often /mcp)" in LEGACY_SSE


def test_a_legacy_server_is_recognised_by_its_endpoint_event(connect):
    with McpHttpServer(legacy=True) as srv:
        transport, _ = connect(srv, initialize=False)
        with pytest.raises(TransportClosed) as failure:
            transport.send(INITIALIZE)
        assert str(failure.value) == LEGACY_SSE
        assert srv.hung_up.wait(5)  # the probe's stream was not left open


def test_a_404_that_is_not_legacy_is_a_plain_status(connect):
    with McpHttpServer(status=404, body="no such route") as srv:
        transport, _ = connect(srv, initialize=False)
        with pytest.raises(TransportClosed, match=r"^HTTP 404 from .*/mcp: no such route$"):
            transport.send(INITIALIZE)


# --- Closing ------------------------------------------------------------------------------------


def test_close_deletes_the_session_once_and_does_not_call_on_closed(connect):
    with McpHttpServer() as srv:
        transport, collector = connect(srv)
        transport.close()
        transport.close()
        with pytest.raises(TransportClosed):
            transport.send(call(2))
    (delete,) = srv.of("DELETE")
    assert delete["headers"]["mcp-session-id"] == "s-1"
    assert delete["headers"]["mcp-protocol-version"] == "2025-11-25"
    assert collector.closed == []


def test_a_405_to_delete_is_ignored(connect):
    with McpHttpServer(delete_status=405) as srv:
        transport, collector = connect(srv)
        transport.close()
    assert len(srv.of("DELETE")) == 1


def test_close_ends_a_stream_the_server_holds(connect):
    with McpHttpServer(sse={"tools/call"}, hold=True) as srv:
        transport, collector = connect(srv)
        transport.send(call(2))
        transport.close()
        assert srv.hung_up.wait(5)
        assert collector.answer(2, timeout=0) is None


def test_close_cuts_short_a_send_waiting_for_its_status_line(connect):
    with McpHttpServer(stall_before_headers=60) as srv:
        transport, _ = connect(srv, initialize=False)
        failures = []

        def send():
            try:
                transport.send(INITIALIZE)
            except TransportClosed as exc:
                failures.append(str(exc))

        sender = threading.Thread(target=send)
        sender.start()
        assert srv.wait_for(lambda r: r["method"] == "POST")
        started = time.monotonic()
        transport.close()
        sender.join(5)
        assert failures == ["the connection was closed"]
        assert time.monotonic() - started < 5  # the server would stall for 60


def test_describe_drops_credentials_and_query():
    transport = HttpTransport("https://me:secret@example.com:8443/mcp?api_key=k#x", {})
    assert transport.describe() == "https://example.com:8443/mcp"


# --- With the client ------------------------------------------------------------------------


def test_an_expired_session_is_an_error_naming_it_and_a_new_client_starts_afresh():
    # (server-everything answers an unknown session with 400, not the spec's 404, so
    # this is not a reference-server test.)
    with McpHttpServer(sse={"tools/call"}) as srv:
        client = McpClient("scripted", HttpTransport(srv.url, {}), timeout=10)
        client.connect()
        srv.expire_session()
        with pytest.raises(McpError, match=r'^MCP server "scripted": .*the server ended the session \(404\)'):
            client.call_tool("echo", {"message": "hi"}, threading.Event())
        assert not client.alive  # so servers.py starts a new client on the next call
        again = McpClient("scripted", HttpTransport(srv.url, {}), timeout=10)
        again.connect()
        result = again.call_tool("echo", {"message": "hi"}, threading.Event())
        assert result["content"] == [{"type": "text", "text": "Echo: hi"}]
        client.close()
        again.close()
    assert [r["headers"].get("mcp-session-id") for r in srv.of("DELETE")] == ["s-2"]


def test_abort_ends_a_call_to_a_server_that_answers_with_its_headers_late():
    # A JSON answer comes with its headers: the send itself lasts as long as the call.
    with McpHttpServer() as srv:
        client = McpClient("slow", HttpTransport(srv.url, {}, timeout=60), timeout=60)
        client.connect()
        srv.knobs["stall_before_headers"] = 60
        abort = threading.Event()
        threading.Timer(0.2, abort.set).start()
        started = time.monotonic()
        try:
            with pytest.raises(RequestAborted):
                client.call_tool("echo", {"message": "x"}, abort)
            assert time.monotonic() - started < 5
        finally:
            client.close()
