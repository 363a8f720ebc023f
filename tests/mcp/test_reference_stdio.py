"""McpClient over stdio against server-everything, the official reference server that
exercises every part of the protocol (reference_servers.py says where it comes from).
mcp-server-time and mcp-server-git, which take ~2 s each to start, are met once, by the
command line's tests (tests/test_cli_mcp.py)."""

import os
import threading

from helpers import processes_below, wait_gone
from mcp.reference_servers import reference_server
from miniagent.mcp.client import McpClient
from miniagent.mcp.stdio import StdioTransport


def start_client(name, argv, cwd, **options):
    transport = StdioTransport(argv[0], argv[1:], dict(os.environ), str(cwd))
    client = McpClient(name, transport, timeout=30, **options)
    client.connect()
    return client


def text_of(result):
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


def test_everything_echoes_serves_resources_and_says_its_tools_changed(tmp_path):
    changed = threading.Event()
    client = start_client("everything", reference_server("everything"), tmp_path,
                          on_tools_changed=changed.set)
    try:
        assert changed.wait(10)  # it sends tools/list_changed right after initialized
        assert "echo" in [tool["name"] for tool in client.list_tools()]
        echoed = client.call_tool("echo", {"message": "hello MCP"}, threading.Event())
        assert text_of(echoed) == "Echo: hello MCP"
        resources = client.list_resources()["resources"]
        assert resources
        contents = client.read_resource(resources[0]["uri"])["contents"]
        assert contents[0]["uri"] == resources[0]["uri"]
        assert client.list_resource_templates()["resourceTemplates"]
        client.ping()
        servers = processes_below(os.getpid(), b"mcp-server-everything")
        assert servers
    finally:
        client.close()
    assert all(wait_gone(pid) for pid in servers)
