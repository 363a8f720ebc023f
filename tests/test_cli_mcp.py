"""MCP servers in a run, through the command line: real reference servers, a scripted
fault server, trust, the tool flags, and no process left behind.

The model is the scripted HTTP server (fake_server.py), so each test can read what
the next request carried: the MCP tools offered, and the server's answer to a call.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fake_server import FakeServer
from helpers import answer, call, run_cli, wait_gone
from mcp.reference_servers import reference_server

FAULT = str(Path(__file__).parent / "mcp" / "fault_server.py")
BOUND = 60


def write_mcp_json(folder, servers):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


def fault(mode, pid_file):
    return {"command": sys.executable, "args": [FAULT, mode],
            "env": {"FAULT_PID_FILE": str(pid_file)}}


def run_with(srv, *args, cwd, env=None):
    return run_cli("--base-url", srv.base_url + "/v1", "--no-session", *args,
                   cwd=str(cwd), env=env, bound=BOUND)


def offered(request):
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def tool_results(request):
    return [message for message in request["body"]["messages"] if message["role"] == "tool"]


def pids(pid_file):
    return [int(line) for line in Path(pid_file).read_text().split()] \
        if Path(pid_file).exists() else []


def all_gone(pid_file):
    return all(wait_gone(pid) for pid in pids(pid_file))


# --- Real servers nobody here wrote -----------------------------------------------------

def test_mcp_server_time_answers_the_models_call(home, tmp_path):
    write_mcp_json(home, {"time": {"command": reference_server("time")[0]}})
    turns = [{"content": [call("mcp__time__get_current_time", timezone="UTC")]},
             {"content": [call("mcp__time__get_current_time", timezone="Mars/Olympus")]},
             answer("It is late.")]
    with FakeServer(turns) as srv:
        result = run_with(srv, "-p", "what time is it?", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "It is late."
    first, second, third = srv.requests
    assert "mcp__time__get_current_time" in offered(first)
    answered = json.loads(tool_results(second)[0]["content"])
    assert answered["timezone"] == "UTC" and "datetime" in answered
    refused = tool_results(third)[-1]["content"]  # isError: the server's words, as an error
    assert "Mars/Olympus" in refused


def test_mcp_server_git_reports_on_a_repository(home, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "a.txt").write_text("a\n")
    subprocess.run(git + ["add", "a.txt"], check=True)
    subprocess.run(git + ["commit", "-qm", "first commit"], check=True)
    write_mcp_json(home, {"git": {"command": reference_server("git")[0],
                                  "args": ["--repository", str(repo)]}})
    turns = [{"content": [call("mcp__git__git_log", repo_path=str(repo))]}, answer("ok")]
    with FakeServer(turns) as srv:
        result = run_with(srv, "-p", "log?", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "first commit" in json.dumps(tool_results(srv.requests[1]))


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def everything_over_http():
    """server-everything serving streamable HTTP on a free port; its URL."""
    port = free_port()
    server = subprocess.Popen(reference_server("everything") + ["streamableHttp"],
                              env=dict(os.environ, PORT=str(port)), start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import socket
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                os.killpg(server.pid, 9)
                pytest.fail("server-everything did not start serving HTTP")
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    os.killpg(server.pid, 9)
    server.wait()


def test_server_everything_echoes_over_streamable_http(home, tmp_path, everything_over_http):
    write_mcp_json(home, {"everything": {"url": everything_over_http}})
    turns = [{"content": [call("mcp__everything__echo", message="hello there")]}, answer("ok")]
    with FakeServer(turns) as srv:
        result = run_with(srv, "-p", "echo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Echo: hello there" in json.dumps(tool_results(srv.requests[1]))


# --- Trust, flags -------------------------------------------------------------------------

def test_an_untrusted_projects_mcp_json_starts_nothing_and_approve_connects_it(tmp_path):
    project, pid_file = tmp_path / "project", tmp_path / "pids"
    write_mcp_json(project / ".miniagent", {"fault": fault("normal", pid_file)})
    with FakeServer([answer("hi")]) as srv:
        result = run_with(srv, "-p", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert not pid_file.exists()  # not even the process
    assert not any(name.startswith("mcp__") for name in offered(srv.requests[0]))
    with FakeServer([answer("hi")]) as srv:
        result = run_with(srv, "--approve", "-p", "hi", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "mcp__fault__echo" in offered(srv.requests[0])
    assert pids(pid_file) and all_gone(pid_file)


def test_an_untrusted_clone_cannot_supply_the_code_of_the_users_own_server(home, tmp_path):
    # `python3 -m server` imports ./server.py first: in the clone, the clone's code runs.
    clone, marker = tmp_path / "clone", tmp_path / "planted-ran"
    clone.mkdir()
    (clone / "planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    write_mcp_json(home, {"mine": {"command": sys.executable, "args": ["-m", "planted"]}})
    with FakeServer([answer("hi")]) as srv:
        result = run_with(srv, "-p", "hi", cwd=clone)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    warning, = [line for line in result.stderr.splitlines() if 'MCP server "mine"' in line]
    assert "No module named planted" in warning and "see docs/mcp.md" in warning


def test_a_token_a_server_quotes_back_is_redacted_on_stderr(home, tmp_path, monkeypatch):
    from miniagent.files import redaction
    from mcp.mcp_http_server import McpHttpServer
    monkeypatch.setattr(redaction, "_needles", frozenset())  # this test's secret stays its own
    token = "tok-8d1c2b3a49e5f6071a2b3c4d"
    with McpHttpServer(status=401, body=f"invalid token: Bearer {token}") as web, \
            FakeServer([answer("hi")]) as srv:
        write_mcp_json(home, {"web": {"url": web.url,
                                      "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}}})
        result = run_with(srv, "-p", "hi", cwd=tmp_path, env={"WEB_TOKEN": token})
    assert result.returncode == 0, result.stderr
    assert "HTTP 401" in result.stderr and "[redacted]" in result.stderr
    assert token[4:12] not in result.stderr


def test_no_mcp_offers_no_mcp_tool_and_starts_nothing(home, tmp_path):
    pid_file = tmp_path / "pids"
    write_mcp_json(home, {"fault": fault("normal", pid_file)})
    with FakeServer([answer("hi")]) as srv:
        result = run_with(srv, "--no-mcp", "-p", "hi", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert offered(srv.requests[0]) == ["read", "bash", "edit", "write"]
    assert not pid_file.exists()


def test_tools_flags_choose_mcp_tools_as_pi_does(home, tmp_path):
    pid_file = tmp_path / "pids"
    write_mcp_json(home, {"fault": fault("normal", pid_file)})
    with FakeServer([answer("1"), answer("2"), answer("3")]) as srv:
        for flags in (["--tools", "read"], ["--tools", "read,mcp__fault__e*"],
                      ["--exclude-tools", "mcp__*,*_mcp_*"]):
            result = run_with(srv, *flags, "-p", "hi", cwd=tmp_path)
            assert result.returncode == 0, result.stderr
    kept, chosen, excluded = (offered(request) for request in srv.requests)
    assert kept[0] == "read" and "mcp__fault__echo" in kept and "read_mcp_resource" in kept
    assert chosen == ["read", "mcp__fault__echo", "mcp__fault__embedded"]
    assert excluded == ["read", "bash", "edit", "write"]
    assert all_gone(pid_file)


# --- Servers that fail ------------------------------------------------------------------

@pytest.mark.parametrize("entry, named", [
    ({"command": "/nonexistent/mcp-server"}, "command not found"),
    ("exit", "fatal: config missing"),
    ("hang-initialize", "did not answer"),
])
def test_a_broken_server_is_one_warning_and_the_run_goes_on(home, tmp_path, entry, named):
    pid_file = tmp_path / "pids"
    write_mcp_json(home, {"broken": fault(entry, pid_file) if isinstance(entry, str) else entry})
    started = time.monotonic()
    with FakeServer([answer("fine")]) as srv:
        result = run_with(srv, "-p", "hi", cwd=tmp_path, env={"MINIAGENT_MCP_WAIT": "0.5"})
    assert time.monotonic() - started < 15
    assert result.returncode == 0 and result.stdout.strip() == "fine"
    warnings = [line for line in result.stderr.splitlines() if "MCP server" in line]
    assert len(warnings) == 1 and '"broken"' in warnings[0] and named in warnings[0]
    assert "Traceback" not in result.stderr
    assert all_gone(pid_file)


def test_a_crash_mid_call_is_a_tool_error_and_the_next_call_starts_it_again(home, tmp_path):
    pid_file = tmp_path / "pids"
    write_mcp_json(home, {"fault": fault("normal", pid_file)})
    turns = [{"content": [call("mcp__fault__crash")]},
             {"content": [call("mcp__fault__echo", text="again")]}, answer("done")]
    with FakeServer(turns) as srv:
        result = run_with(srv, "-p", "crash", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    crashed = json.loads(json.dumps(tool_results(srv.requests[1])[0]["content"]))
    assert 'MCP server "fault"' in str(crashed) and "again on the next call" in str(crashed)
    assert "again" in json.dumps(tool_results(srv.requests[2])[-1])
    assert len(pids(pid_file)) == 2 and all_gone(pid_file)


def test_rpc_state_and_commands_show_the_servers(home, tmp_path):
    from helpers import write_script
    from rpc_driver import Rpc
    pid_file = tmp_path / "pids"
    write_mcp_json(home, {"fault": fault("normal", pid_file),
                          "broken": {"command": "/nonexistent/mcp-server"}})
    rpc = Rpc(tmp_path, "--provider", "scripted", "--no-session",
              "--script", write_script(tmp_path, [answer("hi")]))
    try:
        rpc.call({"type": "prompt", "message": "hi"})  # the first prompt waits for them
        rpc.until(lambda record: record["type"] == "agent_settled")
        servers = rpc.call({"type": "get_state"})["mcpServers"]
        commands = rpc.call({"type": "get_commands"})["commands"]
        status, _, stderr = rpc.close()
    finally:
        rpc.kill()
    assert [(server["name"], server["state"]) for server in servers] == [
        ("fault", "connected"), ("broken", "failed")]
    assert "echo" in servers[0]["tools"] and "command not found" in servers[1]["error"]
    mcp = [command for command in commands if command["name"] == "mcp"]  # bundled ones too
    assert mcp == [{"name": "mcp", "description": "MCP servers: fault (connected), "
                                                  "broken (failed)",
                    "source": "extension", "sourceInfo": {
                        "path": "builtin:mcp", "source": "builtin", "scope": "temporary",
                        "origin": "top-level"}}]
    assert status == 0 and stderr.count("MCP server") == 1, stderr
    assert all_gone(pid_file)
