"""A run's MCP servers: connected in parallel, their tools named and chosen, a changed
list asked again, a late or broken server named once, no process left."""

import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import wait_gone
from miniagent.mcp.config import ServerConfig
from miniagent.mcp.naming import tool_name
from miniagent.mcp.servers import McpServers
from miniagent.mcp.tools import MAX_TOOLS
from miniagent.core.tools import ToolContext, ToolError

FAULT = str(Path(__file__).with_name("fault_server.py"))


def fault(name, mode, tmp_path, **fields):
    return ServerConfig(name, "mcp.json", sys.executable, [FAULT, mode],
                        env={"FAULT_PID_FILE": str(tmp_path / "pids")}, **fields)


def pids(tmp_path):
    path = tmp_path / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def started(configs, tmp_path, **options):
    warnings = []
    servers = McpServers(configs, str(tmp_path), on_warning=warnings.append, **options)
    servers.start()
    return servers, warnings


def wait_until(condition, seconds=5):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def run(tool, on_update=lambda partial: None, **args):
    return tool.execute("call-1", args, ToolContext(cwd=".", abort=threading.Event(),
                                                    on_update=on_update))


def test_a_tool_named_after_another_tools_hashed_name_never_shares_it(tmp_path):
    servers = McpServers([fault("a", "normal", tmp_path)], str(tmp_path))  # never started
    hashed = tool_name("a", "x" * 100)
    servers.servers[0].raw_tools = [{"name": hashed[len("mcp__a__"):]}, {"name": "x" * 100}]
    names = [tool.name for tool in servers.tools()]
    assert names[0] == hashed and len(set(names)) == 2


def test_a_server_with_too_many_tools_is_cut_with_one_warning(tmp_path):
    servers, warnings = started([fault("big", "many", tmp_path)], tmp_path)
    try:
        servers.before_prompt()
        first, second = servers.tools(), servers.tools()  # as before two prompts
    finally:
        servers.close()
    assert len([tool for tool in first if tool.name.startswith("mcp__big__")]) == MAX_TOOLS
    assert len(second) == len(first)
    assert warnings == [f'MCP server "big" offers 1012 tools; the model gets the first '
                        f"{MAX_TOOLS} (at most {MAX_TOOLS} tools and 200 KB of descriptions "
                        f"per server)"]


def test_tools_are_named_per_server_chosen_by_keep_and_resources_add_three(tmp_path):
    servers, warnings = started([fault("a", "normal", tmp_path), fault("b-2", "normal", tmp_path)],
                                tmp_path, keep=lambda name: not name.endswith("__crash"))
    try:
        servers.before_prompt()
        names = [tool.name for tool in servers.tools()]
    finally:
        servers.close()
    assert names[:2] == ["mcp__a__echo", "mcp__a__add"] and "mcp__b_2__echo" in names
    assert "mcp__a__crash" not in names and "mcp__a__sleep" in names
    assert names[-3:] == ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]
    assert warnings == []


def test_a_changed_tool_list_is_asked_again_before_the_next_prompt(tmp_path):
    servers, _ = started([fault("a", "normal", tmp_path)], tmp_path)
    try:
        servers.before_prompt()
        tools = {tool.name: tool for tool in servers.tools()}
        assert "mcp__a__added" not in tools
        assert run(tools["mcp__a__changed"]).content[0]["text"] == "changed"
        # The notification arrives on a thread of its own, just after the answer.
        assert wait_until(lambda: servers.servers[0].tools_changed)
        servers.before_prompt()
        assert "mcp__a__added" in [tool.name for tool in servers.tools()]
    finally:
        servers.close()


def test_a_server_still_connecting_at_the_first_prompt_is_named_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIAGENT_MCP_WAIT", "0.3")
    servers, warnings = started([fault("slow", "hang-initialize", tmp_path),
                                 fault("ok", "normal", tmp_path)], tmp_path)
    try:
        servers.before_prompt()
        servers.before_prompt()  # only the first prompt waits, and names it
        states = [(status.name, status.state) for status in servers.statuses()]
    finally:
        servers.close()
    assert warnings == ['MCP server "slow" did not answer within 0.3 s; going on without it for now']
    assert states == [("slow", "connecting"), ("ok", "connected")]
    assert len(pids(tmp_path)) == 2 and all(wait_gone(pid) for pid in pids(tmp_path))


def test_close_stops_a_wrapped_server_and_its_child(tmp_path):
    servers, _ = started([fault("wrapped", "wrapper", tmp_path)], tmp_path)
    servers.wait_ready(10)
    assert servers.statuses()[0].state == "connected"
    servers.close()
    assert len(pids(tmp_path)) == 2 and all(wait_gone(pid) for pid in pids(tmp_path))


def test_a_disabled_server_is_listed_and_never_started(tmp_path):
    servers, _ = started([fault("off", "normal", tmp_path, enabled=False)], tmp_path)
    servers.before_prompt()
    assert [(status.name, status.state) for status in servers.statuses()] == [("off", "disabled")]
    assert servers.tools() == [] and pids(tmp_path) == []
    servers.close()


def test_progress_reaches_the_front_end_as_live_text(tmp_path):
    servers, _ = started([fault("a", "normal", tmp_path)], tmp_path)
    seen = []
    try:
        servers.before_prompt()
        tool = next(tool for tool in servers.tools() if tool.name == "mcp__a__progress")
        result = run(tool, on_update=lambda partial: seen.append(partial.content[0]["text"]),
                     steps=2, every=0.05)
    finally:
        servers.close()
    assert seen == ["progress 1", "progress 2"]
    assert result.content[0]["text"] == "done after 2 steps"


def test_a_forgotten_http_session_is_initialized_again_and_the_call_answered(tmp_path):
    from mcp.mcp_http_server import McpHttpServer
    with McpHttpServer() as srv:
        servers, warnings = started([ServerConfig("web", "mcp.json", url=srv.url)], tmp_path)
        try:
            servers.before_prompt()
            echo = next(tool for tool in servers.tools() if tool.name == "mcp__web__echo")
            srv.expire_session()  # the server restarted: the session it gave is gone
            assert run(echo, message="hi").content == [{"type": "text", "text": "Echo: hi"}]
        finally:
            servers.close()
    assert warnings == []
    initializes = [r for r in srv.of("POST") if r["body"].get("method") == "initialize"]
    assert len(initializes) == 2


def test_a_server_that_crashed_keeps_its_tools_and_the_next_call_starts_it_again(tmp_path):
    servers, _ = started([fault("a", "normal", tmp_path)], tmp_path)
    try:
        servers.before_prompt()
        tools = {tool.name: tool for tool in servers.tools()}
        with pytest.raises(ToolError, match="starts the server again on the next call"):
            run(tools["mcp__a__crash"])
        servers.before_prompt()  # the next prompt: the tools are still offered
        tools = {tool.name: tool for tool in servers.tools()}
        assert run(tools["mcp__a__echo"], text="back").content[0]["text"] == "back"
        assert servers.statuses()[0].state == "connected"
    finally:
        servers.close()
    assert len(pids(tmp_path)) == 2 and all(wait_gone(pid) for pid in pids(tmp_path))
