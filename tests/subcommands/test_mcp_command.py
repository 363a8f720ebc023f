"""`miniagent mcp add|remove|list`, as a user runs them: what they print, the exit
status, what lands in mcp.json, and (list) what the servers themselves answered."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import ROOT, run_cli, run_cli_process, start_cli, wait_gone
from miniagent.mcp.config import load_servers, project_config_path, user_config_path
from miniagent.project.trust import record_trust

MCP_TESTS = Path(__file__).parents[1] / "mcp"
FAULT = str(MCP_TESTS / "fault_server.py")


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def mcp(*args, cwd):
    return run_cli("mcp", *args, cwd=str(cwd), bound=60)


def servers_in(path):
    return json.loads(Path(path).read_text())["mcpServers"]


def fault(mode, pid_file, **more):
    return {"command": sys.executable, "args": [FAULT, mode],
            "env": {"FAULT_PID_FILE": str(pid_file)}, **more}


def write_servers(path, servers):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


def pids(pid_file):
    return [int(n) for n in Path(pid_file).read_text().split()] if Path(pid_file).exists() else []


# --- add -----------------------------------------------------------------------------


def test_add_writes_a_stdio_server_to_the_users_file(home, project):
    result = mcp("add", "git", "--env", "TOKEN=${GIT_TOKEN}", "--cwd", "src", "--timeout", "30",
                 "--", "uvx", "mcp-server-git", "--repository", ".", cwd=project)
    path = user_config_path(home)
    assert (result.returncode, result.stdout) == (0, f"Added stdio server git to {path}\n")
    assert servers_in(path) == {"git": {
        "command": "uvx", "args": ["mcp-server-git", "--repository", "."],
        "env": {"TOKEN": "${GIT_TOKEN}"}, "cwd": "src", "timeout": 30}}
    [git], warnings = load_servers(home, str(project), False)  # what a run would load
    assert (git.name, git.kind, warnings) == ("git", "stdio", [])


def test_add_url_with_headers_and_a_bearer_token_variable(home, project):
    result = mcp("add", "docs", "--url", "https://example.com/mcp", "--header", "X-Team=a=b",
                 "--bearer-token-env-var", "DOCS_TOKEN", "--timeout", "2.5", cwd=project)
    assert result.returncode == 0 and result.stdout.startswith("Added http server docs to ")
    assert servers_in(user_config_path(home)) == {"docs": {
        "url": "https://example.com/mcp", "timeout": 2.5,
        "headers": {"X-Team": "a=b", "Authorization": "Bearer ${DOCS_TOKEN}"}}}


def test_add_replaces_a_server_of_the_same_name_and_keeps_the_others(home, project):
    mcp("add", "a", "--", "a", cwd=project)
    mcp("add", "b", "--", "b", cwd=project)
    mcp("add", "a", "--url", "http://127.0.0.1:9/mcp", cwd=project)
    assert servers_in(user_config_path(home)) == {
        "a": {"url": "http://127.0.0.1:9/mcp"}, "b": {"command": "b", "args": []}}


def test_add_local_writes_the_projects_file_and_says_when_it_is_not_read_yet(home, project):
    result = mcp("add", "-l", "time", "--", "uvx", "mcp-server-time", cwd=project)
    path = project_config_path(str(project))
    assert result.stdout == f"Added stdio server time to {path}\n"
    assert f"this directory is not trusted, so runs do not read {path}" in result.stderr
    assert list(servers_in(path)) == ["time"] and not user_config_path(home).exists()
    record_trust(str(project), True, home)
    assert mcp("add", "-l", "git", "--", "g", cwd=project).stderr == ""


@pytest.mark.parametrize("args,says", [
    (["x"], "mcp add: give either the server's command after -- or --url URL"),
    (["x", "--url", "https://h/mcp", "--", "cmd"],
     "mcp add: give either the server's command after -- or --url URL"),
    (["x", "--"], "mcp add: give either the server's command after -- or --url URL"),
    (["x", "--url", "https://h/mcp", "--env", "A=1"], "mcp add: --env and --cwd go with a command after --"),
    (["x", "--header", "A=1", "--", "cmd"], "mcp add: --header and --bearer-token-env-var go with --url"),
    (["my server", "--", "cmd"], 'mcp add: mcp server "my server": the name must hold only '
                                 "letters, digits, _ and -"),
    (["x", "--url", "ws://h/mcp"], 'mcp server "x": url must start with http:// or https:// '
                                   '(got "ws://h/mcp")'),
    (["x", "--timeout", "0", "--", "cmd"], 'mcp server "x": timeout must be a positive number of '
                                           "seconds (got 0)"),
    (["x", "--url", "https://h/mcp", "--bearer-token-env-var", "my-token"],
     '--bearer-token-env-var must name an environment variable (got "my-token")'),
    (["x", "--env", "NOVALUE", "--", "cmd"], "argument --env: KEY=VALUE expected (got 'NOVALUE')"),
])
def test_add_usage_mistakes_are_one_line_and_exit_2(home, project, args, says):
    result = mcp("add", *args, cwd=project)
    assert result.returncode == 2 and says in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "(see miniagent mcp add --help)" in result.stderr
    assert not user_config_path(home).exists()


@pytest.mark.parametrize("args", [[], ["bogus"], ["remove", "x", "--", "y"], ["list", "extra"]])
def test_mcp_usage_mistakes_exit_2(project, args):
    result = mcp(*args, cwd=project)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1


def test_add_leaves_a_broken_file_alone(home, project):
    path = user_config_path(home)
    path.write_text("{broken")
    result = mcp("add", "time", "--", "uvx", "mcp-server-time", cwd=project)
    assert result.returncode == 1 and path.read_text() == "{broken"
    assert result.stderr == f"miniagent mcp add: {path}: invalid JSON at line 1, column 2: " \
                            f"Expecting property name enclosed in double quotes\n"


# --- remove --------------------------------------------------------------------------


def test_remove_deletes_the_server_and_says_so(home, project):
    write_servers(user_config_path(home), {"time": {"command": "t"}, "git": {"command": "g"}})
    result = mcp("remove", "time", cwd=project)
    assert (result.returncode, result.stdout) == (
        0, f"Removed server time from {user_config_path(home)}\n")
    assert list(servers_in(user_config_path(home))) == ["git"]


def test_remove_of_an_absent_server_exits_1_with_a_line(home, project):
    result = mcp("remove", "-l", "time", cwd=project)
    assert result.returncode == 1
    assert result.stderr == f'miniagent mcp remove: no server "time" in {project_config_path(str(project))}\n'


# --- list ----------------------------------------------------------------------------


def test_list_with_no_servers_says_how_to_add_one(home, project):
    result = mcp("list", cwd=project)
    assert result.returncode == 0
    assert result.stdout.startswith("No MCP servers configured (add one: miniagent mcp add NAME")


def test_list_connects_shows_tools_and_leaves_no_process(home, project, tmp_path):
    pid_file = tmp_path / "pids"
    write_servers(user_config_path(home), {"fault": fault("normal", pid_file)})
    result = mcp("list", cwd=project)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["fault", "connected", "stdio"] and FAULT in lines[0]
    tools = " ".join(line.strip() for line in lines[1:])
    assert tools.startswith("tools: echo, add, image,") and tools.endswith("ask, crash")
    assert pids(pid_file) and all(wait_gone(pid) for pid in pids(pid_file))


def test_list_names_the_failed_server_with_its_stderr_and_exits_1(home, project, tmp_path):
    write_servers(user_config_path(home), {
        "good": fault("normal", tmp_path / "pids"),
        "broken": fault("exit", tmp_path / "pids"),
        "hangs": fault("hang-initialize", tmp_path / "pids", timeout=1)})
    result = mcp("list", cwd=project)
    assert result.returncode == 1
    states = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines()
              if not line.startswith(" ")}
    assert states == {"good": "connected", "broken": "failed", "hangs": "failed"}
    errors = [line for line in result.stdout.splitlines() if line.startswith("  error: ")]
    assert len(errors) == 2
    assert errors[0].startswith('  error: MCP server "broken"') and "fatal: config missing" in errors[0]
    assert errors[1].startswith('  error: MCP server "hangs"')
    assert all(wait_gone(pid) for pid in pids(tmp_path / "pids"))


def test_a_disabled_server_is_listed_and_not_started(home, project, tmp_path):
    write_servers(user_config_path(home), {"off": fault("normal", tmp_path / "pids", enabled=False)})
    result = mcp("list", cwd=project)
    assert result.returncode == 0
    assert result.stdout.split()[:3] == ["off", "disabled", "stdio"]
    assert pids(tmp_path / "pids") == []


def test_an_invalid_entry_is_a_warning_and_exit_1(home, project, tmp_path):
    write_servers(user_config_path(home), {"good": fault("normal", tmp_path / "pids"),
                                           "bad": {"command": "x", "args": "y"}})
    result = mcp("list", cwd=project)
    assert result.returncode == 1 and result.stdout.startswith("good ")
    assert result.stderr == (f'miniagent: warning: {user_config_path(home)}: mcp server "bad": '
                             f'args must be a list of strings (got "y"); skipped\n')


def test_list_json_is_one_document_with_the_same_facts(home, project, tmp_path):
    write_servers(user_config_path(home), {"good": fault("normal", tmp_path / "pids"),
                                           "broken": fault("exit", tmp_path / "pids"),
                                           "bad": {"url": "ftp://h"}})
    result = mcp("list", "--json", cwd=project)
    assert result.returncode == 1 and result.stderr == ""
    document = json.loads(result.stdout)
    good, broken = document["servers"]
    assert (good["name"], good["state"], good["kind"], good["error"]) == (
        "good", "connected", "stdio", None)
    assert "echo" in good["tools"] and good["source"] == str(user_config_path(home))
    assert (broken["state"], broken["tools"]) == ("failed", [])
    assert "fatal: config missing" in broken["error"]
    assert document["warnings"] == [f'{user_config_path(home)}: mcp server "bad": url must start '
                                    f'with http:// or https:// (got "ftp://h"); skipped']


def test_list_json_escapes_what_could_drive_the_terminal_and_keeps_the_data(home, project,
                                                                             tmp_path):
    write_servers(user_config_path(home), {"odd": fault("odd-names", tmp_path / "pids")})
    result = mcp("list", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    for raw in ("\u009b", "\u007f", "\u202e"):
        assert raw not in result.stdout
    assert "evil\\u009b2J\\u007f\\u202egnp.exe" in result.stdout
    tools = json.loads(result.stdout)["servers"][0]["tools"]
    assert "evil\u009b2J\u007f\u202egnp.exe" in tools  # the same name to a parser


def test_an_untrusted_projects_servers_are_not_listed_nor_started(home, project, tmp_path):
    write_servers(project_config_path(str(project)), {"proj": fault("normal", tmp_path / "pids")})
    result = mcp("list", cwd=project)
    assert result.returncode == 0 and result.stdout.startswith("No MCP servers configured")
    assert "this directory is not trusted" in result.stderr and pids(tmp_path / "pids") == []
    record_trust(str(project), True, home)
    result = mcp("list", cwd=project)
    assert result.returncode == 0 and result.stdout.split()[:2] == ["proj", "connected"]


@pytest.mark.parametrize("args,loaded", [
    (["list"], "miniagent.mcp.servers"),
    (["add", "x", "--", "y"], "miniagent.mcp.config"),
    (["remove", "fault"], "miniagent.mcp.config"),
])
def test_mcp_with_stdio_servers_does_not_load_the_http_library(home, project, tmp_path,
                                                               args, loaded):
    # python -X importtime lists every module imported (as tests/test_startup.py reads it)
    write_servers(user_config_path(home), {"fault": fault("normal", tmp_path / "pids")})
    env = {**os.environ, "MINIAGENT_HOME": str(home), "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "miniagent", "mcp", *args],
                          cwd=project, env=env, capture_output=True, text=True, timeout=60)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    assert done.returncode == 0 and loaded in names
    assert [name for name in names if name.split(".")[0] in ("requests", "urllib3")] == []


def wait_for_server(pid_file):
    """Until the server has written its pid (bounded: it fails the test after 20 s)."""
    deadline = time.monotonic() + 20
    while not pids(pid_file) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling a file the child writes, bounded by the deadline
    assert pids(pid_file), "the server never started"


def test_list_leaves_no_daemon_a_server_forked_behind(home, project, tmp_path):
    pid_file = tmp_path / "pids"
    write_servers(user_config_path(home), {"forks": fault("daemon", pid_file)})
    result = run_cli_process("mcp", "list", cwd=str(project),
                             env={"MINIAGENT_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert len(pids(pid_file)) == 2  # the server and its daemon
    assert all(wait_gone(pid) for pid in pids(pid_file))


def test_sigterm_while_servers_connect_ends_the_listing_as_a_run_ends(home, project, tmp_path):
    pid_file = tmp_path / "pids"
    write_servers(user_config_path(home), {"hangs": fault("hang-initialize", pid_file)})
    listing = start_cli(["mcp", "list"], cwd=str(project))
    try:
        wait_for_server(pid_file)
        listing.send_signal(signal.SIGTERM)
        _, stderr = listing.communicate(timeout=15)
    finally:
        listing.kill()
    assert listing.returncode == 128 + signal.SIGTERM and "Traceback" not in stderr
    assert all(wait_gone(pid) for pid in pids(pid_file))


def test_ctrl_c_while_servers_connect_exits_130_and_stops_them(home, project, tmp_path):
    pid_file = tmp_path / "pids"
    write_servers(user_config_path(home), {"hangs": fault("hang-initialize", pid_file)})
    listing = start_cli(["mcp", "list"], cwd=str(project))
    try:
        wait_for_server(pid_file)
        listing.send_signal(signal.SIGINT)
        _, stderr = listing.communicate(timeout=15)  # its timeout would be 60 s
    finally:
        listing.kill()
    assert listing.returncode == 130 and "Traceback" not in stderr
    assert all(wait_gone(pid) for pid in pids(pid_file))


def test_list_connects_an_http_server_and_names_a_refused_one(home, project):
    from mcp.mcp_http_server import McpHttpServer
    with McpHttpServer() as srv:
        write_servers(user_config_path(home), {
            "web": {"url": srv.url, "headers": {"Authorization": "Bearer ${WEB_TOKEN}"}},
            "gone": {"url": "http://127.0.0.1:9/mcp"}})
        result = run_cli("mcp", "list", cwd=str(project), env={"WEB_TOKEN": "t0ken"}, bound=60)
    lines = result.stdout.splitlines()
    assert result.returncode == 1  # one enabled server did not connect
    assert lines[0].startswith(f"web   connected  http  {srv.url}")
    assert lines[1].startswith("  tools: echo")
    assert lines[2].startswith("gone  failed     http  http://127.0.0.1:9/mcp")
    assert lines[3].startswith('  error: MCP server "gone": ')
    assert srv.of("POST")[0]["headers"]["authorization"] == "Bearer t0ken"
