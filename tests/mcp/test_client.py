"""McpClient over stdio against the scripted fault server: the handshake, tools and
resources, progress, cancellation, server requests, and every way a server fails."""

import json
import threading
import time

import pytest

import miniagent
from helpers import is_alive, wait_gone
from mcp.faults import fault_transport, server_pids
from miniagent.mcp.client import McpClient, McpError
from miniagent.mcp.jsonrpc import RequestAborted
from miniagent.mcp.stdio import StdioTransport
from miniagent.mcp.transport import SessionExpired, Transport


@pytest.fixture(scope="module")
def normal(tmp_path_factory):
    """One well-behaved server shared by the tests that leave it as they found it."""
    tmp_path = tmp_path_factory.mktemp("fault")
    client = McpClient("fault", fault_transport("normal", tmp_path))
    client.connect()
    yield client
    client.close()
    assert not is_alive(server_pids(tmp_path)[0])


def connected(mode, tmp_path, **options):
    client = McpClient("fault", fault_transport(mode, tmp_path), **options)
    client.connect()
    return client


def text_of(result):
    return result["content"][0]["text"]


def cancellations(client):
    return json.loads(text_of(client.call_tool("cancelled", {}, threading.Event())))


def test_connect_negotiates_the_version_and_keeps_what_the_server_said(normal):
    assert normal.alive
    assert normal.protocol_version == "2025-11-25"
    assert normal.transport.protocol_version == "2025-11-25"
    assert normal.server_info == {"name": "fault", "version": "1.0"}
    assert normal.instructions == "be kind"
    assert normal.capabilities["tools"] == {"listChanged": True}


def test_list_tools_follows_next_cursor_through_every_page(normal):
    names = [tool["name"] for tool in normal.list_tools()]
    assert names == ["echo", "add", "image", "fail", "structured", "embedded", "changed",
                     "progress", "sleep", "cancelled", "ask", "crash"]


def test_call_tool_returns_the_raw_result_of_each_kind(normal):
    abort = threading.Event()
    assert text_of(normal.call_tool("echo", {"text": "hi"}, abort)) == "hi"
    assert text_of(normal.call_tool("add", {"a": 2, "b": 3}, abort)) == "5"
    assert normal.call_tool("image", {}, abort)["content"][0]["mimeType"] == "image/png"
    assert normal.call_tool("fail", {}, abort)["isError"] is True
    assert normal.call_tool("structured", {}, abort)["structuredContent"] == {"n": 1}
    embedded = normal.call_tool("embedded", {}, abort)["content"][0]
    assert embedded["resource"]["text"] == "hello resource"


def test_an_unknown_tool_is_an_error_naming_the_server_and_the_call(normal):
    with pytest.raises(McpError) as caught:
        normal.call_tool("nope", {}, threading.Event())
    assert str(caught.value) == ('MCP server "fault": tools/call "nope" failed: '
                                 'error -32602: unknown tool nope')
    assert normal.alive


def test_resources_templates_and_reads(normal):
    uris = [item["uri"] for item in normal.list_resources()["resources"]]
    assert uris == ["test://text", "test://blob"]
    templates = normal.list_resource_templates()["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "test://items/{id}"
    assert normal.read_resource("test://text")["contents"][0]["text"] == "hello resource"
    assert normal.read_resource("test://blob")["contents"][0]["blob"] == "AAEC"
    with pytest.raises(McpError, match='^MCP server "fault": resources/read test://nope failed: '
                                       'error -32002: resource not found$'):
        normal.read_resource("test://nope")
    normal.ping()


def test_the_server_may_ping_us_but_sampling_is_refused_clearly(normal):
    abort = threading.Event()
    pong = json.loads(text_of(normal.call_tool("ask", {"method": "ping"}, abort)))
    assert pong == {"jsonrpc": "2.0", "id": "ask-1", "result": {}}
    refusal = json.loads(text_of(normal.call_tool("ask", {"method": "sampling/createMessage"},
                                                  abort)))
    assert refusal["error"]["code"] == -32601
    assert "miniagent does not support sampling/createMessage" in refusal["error"]["message"]


def test_tools_list_changed_calls_on_tools_changed_which_may_ask_again(tmp_path):
    relisted = []
    done = threading.Event()

    def on_tools_changed():  # as the integrator will: list the tools again
        relisted.append(len(client.list_tools()))
        done.set()

    client = connected("normal", tmp_path, on_tools_changed=on_tools_changed)
    try:
        client.call_tool("changed", {}, threading.Event())
        assert done.wait(10)
        assert relisted == [13]  # "changed" added a tool before it said so
    finally:
        client.close()


def test_progress_keeps_a_long_call_alive_past_the_timeout(tmp_path):
    client = connected("normal", tmp_path, timeout=0.3)
    try:  # ~0.6 s of work, over two timeouts
        result = client.call_tool("progress", {"steps": 6, "every": 0.1}, threading.Event())
        assert text_of(result) == "done after 6 steps"
    finally:
        client.close()


def test_max_total_ends_a_call_that_reports_progress_forever_and_cancels_it(tmp_path):
    client = connected("normal", tmp_path, timeout=0.5)
    try:
        started = time.monotonic()
        with pytest.raises(McpError, match='^MCP server "fault": tools/call "progress" failed: '
                                           'no answer within 0.5 s in total$'):
            client.call_tool("progress", {"steps": 0, "every": 0.1}, threading.Event(),
                             max_total=0.5)
        assert time.monotonic() - started < 5
        assert cancellations(client) == [{"requestId": 2, "reason": "took too long"}]
    finally:
        client.close()


def test_a_call_that_never_answers_times_out_and_is_cancelled(tmp_path):
    client = connected("normal", tmp_path, timeout=0.5)
    try:
        with pytest.raises(McpError, match='tools/call "sleep" failed: no answer within 0.5 s'):
            client.call_tool("sleep", {}, threading.Event())
        assert cancellations(client) == [{"requestId": 2, "reason": "timed out"}]
        assert client.alive
    finally:
        client.close()


def test_an_aborted_call_raises_request_aborted_and_is_cancelled(normal):
    abort = threading.Event()
    timer = threading.Timer(0.3, abort.set)  # the user pressing Esc mid-call
    timer.start()
    started = time.monotonic()
    with pytest.raises(RequestAborted):
        normal.call_tool("sleep", {}, abort)
    assert time.monotonic() - started < 3
    assert cancellations(normal)[-1]["reason"] == "aborted by the user"


def test_a_crash_mid_call_is_one_line_with_the_stderr_tail_and_leaves_nothing(tmp_path):
    client = connected("normal", tmp_path)
    with pytest.raises(McpError) as caught:
        client.call_tool("crash", {}, threading.Event())
    assert str(caught.value) == ('MCP server "fault": tools/call "crash" failed: '
                                 'exited with status 1: fault server: crashing mid-call')
    assert not client.alive
    with pytest.raises(McpError, match="exited with status 1"):
        client.list_tools()
    client.close()
    assert not is_alive(server_pids(tmp_path)[0])


@pytest.mark.parametrize("mode, error", [
    ("exit", r"initialize failed: exited with status 3: noise line (noise line )+"
             r"fatal: config missing$"),
    ("malformed", r'initialize failed: sent a line that is not JSON: "Starting fault server'),
    ("old-version", r"initialize: the server speaks protocol version '2024-11-05'; "
                    r"miniagent speaks 2025-11-25, 2025-06-18, 2025-03-26$"),
    ("hang-initialize", r"initialize failed: no answer within 1 s$"),
])
def test_a_server_that_fails_the_handshake_is_one_clear_line_and_is_stopped(tmp_path, mode,
                                                                             error):
    client = McpClient("fault", fault_transport(mode, tmp_path), timeout=1.0)
    started = time.monotonic()
    with pytest.raises(McpError, match='^MCP server "fault": ' + error) as caught:
        client.connect()
    assert time.monotonic() - started < 10
    assert "\n" not in str(caught.value)
    assert not client.alive
    assert all(wait_gone(pid) for pid in server_pids(tmp_path))


def test_a_command_that_does_not_exist_is_named(tmp_path):
    transport = StdioTransport("no-such-mcp-server-xyz", [], {"PATH": "/usr/bin"}, str(tmp_path))
    with pytest.raises(McpError) as caught:
        McpClient("x", transport).connect()
    assert str(caught.value) == 'MCP server "x": command not found: no-such-mcp-server-xyz'


def test_an_abort_while_connecting_passes_through_and_stops_the_server(tmp_path):
    abort = threading.Event()
    client = McpClient("fault", fault_transport("hang-initialize", tmp_path), timeout=60)
    threading.Timer(0.3, abort.set).start()
    with pytest.raises(RequestAborted):
        client.connect(abort)
    assert all(wait_gone(pid) for pid in server_pids(tmp_path))


def test_messages_that_are_not_for_us_do_not_disturb_the_handshake(tmp_path):
    client = connected("noisy", tmp_path)
    try:
        assert client.alive and client.server_info["name"] == "fault"
        assert len(client.list_tools()) == 12
    finally:
        client.close()


def test_a_wrapper_and_its_server_are_both_gone_after_close(tmp_path):
    client = connected("wrapper", tmp_path)
    assert len(client.list_tools()) == 12
    client.close()
    client.close()  # idempotent
    wrapper, server = server_pids(tmp_path)
    assert not is_alive(wrapper) and wait_gone(server)


class ForgetfulTransport(Transport):
    """Answers initialize, then says the session expired (as an HTTP server's 404)."""

    def __init__(self):
        self.sent = []

    def start(self):
        pass

    def send(self, message):
        self.sent.append(message)
        if message.get("method") == "initialize":
            self.on_message({"jsonrpc": "2.0", "id": message["id"],
                             "result": {"protocolVersion": "2025-06-18", "capabilities": {}}})
        elif "id" in message:
            raise SessionExpired("the server ended the session (404)")

    def close(self):
        pass

    def describe(self):
        return "https://example.invalid/mcp"


def test_the_handshake_offers_our_version_and_no_capabilities_and_accepts_an_older_one():
    transport = ForgetfulTransport()
    client = McpClient("web", transport)
    client.connect()
    assert client.alive and client.protocol_version == "2025-06-18"
    assert transport.protocol_version == "2025-06-18"  # HTTP sends it from now on
    initialize, initialized = transport.sent
    assert initialize["params"] == {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "miniagent",
                                                   "version": miniagent.__version__}}
    assert initialized == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_an_expired_session_ends_the_client_so_its_owner_reconnects():
    client = McpClient("web", ForgetfulTransport())
    client.connect()
    with pytest.raises(McpError, match='^MCP server "web": tools/list failed: the server ended'):
        client.list_tools()
    assert not client.alive
