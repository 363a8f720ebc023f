"""McpClient over stdio against the official reference servers, which nobody here
wrote: mcp-server-time, mcp-server-git and server-everything (see reference_servers.py
for where they come from). One server per module: each takes ~0.3-1 s to start."""

import json
import os
import subprocess
import threading

import pytest

from helpers import processes_below, wait_gone
from mcp.reference_servers import reference_server
from miniagent.mcp.client import McpClient
from miniagent.mcp.stdio import StdioTransport


def start_client(name, argv, cwd, **options):
    transport = StdioTransport(argv[0], argv[1:], dict(os.environ), str(cwd))
    client = McpClient(name, transport, timeout=30, **options)
    client.connect()
    return client


@pytest.fixture(scope="module")
def time_server(tmp_path_factory):
    client = start_client("time", reference_server("time"), tmp_path_factory.mktemp("time"))
    yield client
    client.close()


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    git = ["git", "-C", str(repo), "-c", "user.name=Test", "-c", "user.email=test@example.com"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "notes.txt").write_text("first\n")
    subprocess.run(git + ["add", "notes.txt"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "the first commit"], check=True)
    (repo / "notes.txt").write_text("changed\n")
    return repo


@pytest.fixture(scope="module")
def git_server(git_repo):
    client = start_client("git", reference_server("git"), git_repo)
    yield client
    client.close()


def text_of(result):
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


def test_time_tells_the_time_in_utc(time_server):
    assert time_server.server_info["name"] == "mcp-time"
    assert "get_current_time" in [tool["name"] for tool in time_server.list_tools()]
    result = time_server.call_tool("get_current_time", {"timezone": "UTC"}, threading.Event())
    assert not result.get("isError")
    assert json.loads(text_of(result))["timezone"] == "UTC"


def test_time_reports_a_bad_argument_as_a_tool_error(time_server):
    result = time_server.call_tool("get_current_time", {"timezone": "Mars/Olympus"},
                                   threading.Event())
    assert result["isError"] is True
    assert "Mars/Olympus" in text_of(result)


def test_git_shows_the_log_and_the_status_of_a_repository(git_server, git_repo):
    names = [tool["name"] for tool in git_server.list_tools()]
    assert {"git_log", "git_status"} <= set(names)
    log = git_server.call_tool("git_log", {"repo_path": str(git_repo)}, threading.Event())
    assert "the first commit" in text_of(log)
    status = git_server.call_tool("git_status", {"repo_path": str(git_repo)}, threading.Event())
    assert "notes.txt" in text_of(status)


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
