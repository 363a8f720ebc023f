"""McpClient over HttpTransport against a server nobody here wrote: the reference
server-everything (npm) serving streamable HTTP on 127.0.0.1."""

import os
import signal
import socket
import subprocess
import threading
import time

import pytest

from mcp.reference_servers import reference_server
from miniagent.mcp.client import McpClient
from miniagent.mcp.http import HttpTransport

START_TIMEOUT = 30  # seconds for node to start and listen


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_listening(port: int, process: subprocess.Popen, log) -> None:
    """Poll until the port accepts a connection; fail at once if the server exits."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            pass
        try:
            process.wait(0.05)  # the pause between attempts, and a check it still runs
            pytest.fail(f"server-everything exited ({process.returncode}): {log.read_text()}")
        except subprocess.TimeoutExpired:
            pass
    pytest.fail(f"server-everything did not listen on {port} within {START_TIMEOUT} s")


@pytest.fixture
def everything(tmp_path):
    """(url, log path) of a running server-everything; its process group killed after."""
    argv = reference_server("everything") + ["streamableHttp"]
    port = free_port()
    log = tmp_path / "everything.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, env={**os.environ, "PORT": str(port)}, stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        wait_until_listening(port, process, log)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def test_echo_over_streamable_http_and_close_ends_the_session(everything):
    url, log = everything
    client = McpClient("everything", HttpTransport(url, {}), timeout=30)
    client.connect()
    try:
        assert client.protocol_version == "2025-11-25"
        assert "echo" in [tool["name"] for tool in client.list_tools()]
        result = client.call_tool("echo", {"message": "hello over HTTP"}, threading.Event())
        assert result["content"] == [{"type": "text", "text": "Echo: hello over HTTP"}]
    finally:
        client.close()
    # The server's own log line for a DELETE with our session id.
    assert "Received session termination request for session" in log.read_text()
