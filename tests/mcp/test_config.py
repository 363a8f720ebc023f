"""mcp.json: loading, checking and merging the user's and the project's servers, the
values resolved when a server starts, and the entries `miniagent mcp add` writes.

The warnings are what a user reads, so most tests compare whole lines."""

import json
import os

import pytest

from miniagent.errors import ConfigError
from miniagent.files import redaction
from miniagent.files.redaction import redact
from miniagent.mcp.config import (
    ServerConfig, add_server, entry_problem, load_servers, project_config_path,
    remove_server, resolved_command, resolved_cwd, resolved_env, resolved_headers,
    user_config_path)


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def write(path, servers, **top):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **top}))
    return str(path)


def load(home, project, trusted=True):
    return load_servers(home, str(project), trusted)


def load_one(home, project, entry):
    """The config and warnings of a user file holding one server, "s"."""
    write(user_config_path(home), {"s": entry})
    return load(home, project)


# --- Files ---------------------------------------------------------------------------


def test_no_files_means_no_servers_and_no_warnings(home, project):
    assert load(home, project) == ([], [])


def test_a_file_without_mcp_servers_has_none_and_is_fine(home, project):
    user_config_path(home).write_text('{"autoEnableCodemode": false}')
    assert load(home, project) == ([], [])


@pytest.mark.parametrize("text,says", [
    ("{not json", "invalid JSON at line 1, column 2: Expecting property name enclosed "
                  "in double quotes"),
    ("[1, 2]", "the file must be an object"),
    ('{"mcpServers": ["time"]}', "mcpServers must be an object"),
])
def test_a_file_that_is_not_a_server_list_is_one_warning(home, project, text, says):
    path = user_config_path(home)
    path.write_text(text)
    assert load(home, project) == ([], [f"{path}: {says}; no MCP servers read from it"])


# --- Entries -------------------------------------------------------------------------


def test_a_stdio_entry_keeps_its_values_as_written(home, project):
    path = write(user_config_path(home), {"git": {
        "command": "~/bin/mcp-server-git", "args": ["--repository", "."],
        "env": {"TOKEN": "${GIT_TOKEN}"}, "cwd": "src", "timeout": 5, "enabled": False}})
    assert load(home, project) == ([ServerConfig(
        "git", path, command="~/bin/mcp-server-git", args=["--repository", "."],
        env={"TOKEN": "${GIT_TOKEN}"}, cwd="src", timeout=5.0, enabled=False)], [])


def test_an_http_entry_and_the_defaults(home, project):
    path = write(user_config_path(home), {"docs": {
        "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}})
    [docs], warnings = load(home, project)
    assert docs == ServerConfig("docs", path, url="https://example.com/mcp",
                                headers={"Authorization": "Bearer ${T}"})
    assert (docs.kind, docs.timeout, docs.enabled, warnings) == ("http", 60.0, True, [])


@pytest.mark.parametrize("entry,kind", [
    ({"type": "stdio", "command": "x"}, "stdio"),
    ({"type": "http", "url": "http://127.0.0.1:1/mcp"}, "http"),
    ({"type": "streamable-http", "url": "https://h/mcp"}, "http"),
])
def test_type_may_be_written_out(home, project, entry, kind):
    [server], warnings = load_one(home, project, entry)
    assert (server.kind, warnings) == (kind, [])


def test_claude_desktop_and_pi_keys_are_accepted_and_ignored(home, project):
    [server], warnings = load_one(home, project, {
        "command": "npx", "args": ["-y", "@x/y"], "description": "Search the docs",
        "exposure": "deferred", "toolExposure": {"get_*": "direct"}, "alwaysAllow": ["a"]})
    assert (server.command, server.args, warnings) == ("npx", ["-y", "@x/y"], [])


def test_the_fields_of_the_other_transport_are_dropped(home, project):
    [server], _ = load_one(home, project, {"url": "https://h/mcp", "args": ["x"],
                                           "env": {"A": "1"}})
    assert (server.args, server.env, server.command) == ([], {}, None)


@pytest.mark.parametrize("entry,problem", [
    ({"url": "https://h/sse", "type": "sse"},
     'type "sse" (the legacy SSE transport) is not supported; try the server\'s streamable '
     "HTTP endpoint, often /mcp instead of /sse"),
    ({"url": "https://h/mcp", "oauth": {"clientId": "me"}},
     'OAuth sign-in is not supported; use "headers" with a bearer token'),
    ({"command": "x", "url": "https://h/mcp"},
     "command and url must not both be given (a server is stdio or HTTP)"),
    ({"args": ["x"]}, "command (stdio) or url (streamable HTTP) must be given"),
    ({"type": "stdio"}, "command (stdio) or url (streamable HTTP) must be given"),
    ({"type": "ws", "url": "https://h"},
     'type must be one of stdio, http, streamable-http (got "ws")'),
    ({"type": ["stdio"], "command": "x"},
     'type must be one of stdio, http, streamable-http (got ["stdio"])'),
    ({"type": "http", "command": "x"}, 'type must be "stdio" with a command (got "http")'),
    ({"type": "stdio", "url": "https://h"},
     'type must be "http" or "streamable-http" with a url (got "stdio")'),
    ("uvx mcp-server-time", 'the entry must be an object (got "uvx mcp-server-time")'),
    ({"command": ""}, 'command must be a non-empty string (got "")'),
    ({"command": ["uvx", "x"]}, 'command must be a non-empty string (got ["uvx", "x"])'),
    ({"command": "uvx", "args": "mcp-server-time"},
     'args must be a list of strings (got "mcp-server-time")'),
    ({"command": "uvx", "args": [1]}, "args must be a list of strings (got [1])"),
    ({"command": "x", "cwd": 3}, "cwd must be a non-empty string (got 3)"),
    ({"url": "ws://h/mcp"}, 'url must start with http:// or https:// (got "ws://h/mcp")'),
    ({"command": "x", "timeout": 0}, "timeout must be a positive number of seconds (got 0)"),
    ({"command": "x", "timeout": "60"},
     'timeout must be a positive number of seconds (got "60")'),
    ({"command": "x", "timeout": True},
     "timeout must be a positive number of seconds (got true)"),
    ({"command": "x", "enabled": "no"}, 'enabled must be true or false (got "no")'),
])
def test_a_bad_entry_is_one_warning_naming_file_server_and_field(home, project, entry, problem):
    assert load_one(home, project, entry) == (
        [], [f'{user_config_path(home)}: mcp server "s": {problem}; skipped'])


@pytest.mark.parametrize("key", ["env", "headers"])
def test_a_bad_env_or_headers_value_is_not_echoed(home, project, key):
    # they carry keys: a warning that quoted one would put it in a log
    entry = {"url": "https://h/mcp"} if key == "headers" else {"command": "x"}
    entry[key] = {"Authorization": "Bearer sk-secret", "Retries": 3}
    _, [warning] = load_one(home, project, entry)
    assert warning.endswith(f'"s": {key} must be an object of strings; skipped')
    assert "sk-secret" not in warning


def test_a_timeout_written_as_infinity_is_refused(home, project):
    user_config_path(home).write_text('{"mcpServers": {"s": {"command": "x", "timeout": Infinity}}}')
    assert load(home, project)[1] == [f'{user_config_path(home)}: mcp server "s": timeout '
                                      f"must be a positive number of seconds (got Infinity); skipped"]


def test_the_other_entries_still_load_beside_a_bad_one(home, project):
    write(user_config_path(home), {"a": {"command": "a"}, "bad": {"command": 1},
                                   "c": {"url": "https://c/mcp"}})
    servers, warnings = load(home, project)
    assert [s.name for s in servers] == ["a", "c"] and len(warnings) == 1


# --- Names ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["my server", "tools.v2", "", "ünï"])
def test_a_name_holds_only_letters_digits_underscore_and_dash(home, project, name):
    write(user_config_path(home), {name: {"command": "x"}, "ok_1-b": {"command": "y"}})
    servers, warnings = load(home, project)
    assert [s.name for s in servers] == ["ok_1-b"]
    assert warnings == [f"{user_config_path(home)}: mcp server {json.dumps(name, ensure_ascii=False)}: "
                        f"the name must hold only letters, digits, _ and -; skipped"]


def test_names_differing_only_in_dash_and_underscore_are_one_server(home, project):
    write(user_config_path(home), {"my-tool": {"command": "a"}, "my_tool": {"command": "b"}})
    servers, warnings = load(home, project)
    assert [(s.name, s.command) for s in servers] == [("my-tool", "a")]
    assert warnings == [f'{user_config_path(home)}: mcp server "my_tool": the name must differ '
                        f'from "my-tool" in more than - and _ (they name the same server); skipped']


# --- The project's file ----------------------------------------------------------------


def test_an_untrusted_projects_file_is_not_read(home, project):
    write(project_config_path(str(project)), {"evil": {"command": "rm"}, "bad": 1})
    assert load(home, project, trusted=False) == ([], [])


def test_a_trusted_projects_servers_are_added_after_the_users(home, project):
    write(user_config_path(home), {"time": {"command": "t"}})
    path = write(project_config_path(str(project)), {"git": {"command": "g"}})
    servers, warnings = load(home, project)
    assert [(s.name, s.source) for s in servers] == [
        ("time", str(user_config_path(home))), ("git", path)] and warnings == []


@pytest.mark.parametrize("spelling", ["my-tool", "my_tool"])
def test_a_project_entry_replaces_the_users_of_the_same_name(home, project, spelling):
    write(user_config_path(home), {"my-tool": {"command": "mine", "env": {"A": "1"}},
                                   "other": {"command": "o"}})
    write(project_config_path(str(project)), {spelling: {"url": "https://p/mcp"}})
    servers, _ = load(home, project)
    assert [(s.name, s.kind, s.env) for s in servers] == [
        (spelling, "http", {}), ("other", "stdio", {})]


def test_a_project_entry_with_only_enabled_switches_the_users_server(home, project):
    write(user_config_path(home), {"git": {"command": "g", "env": {"T": "x"}, "enabled": False},
                                   "time": {"command": "t"}})
    write(project_config_path(str(project)), {"git": {"enabled": True, "timeout": 1},
                                              "time": {"enabled": False}})
    [git, time], warnings = load(home, project)
    assert (git.enabled, git.env, git.timeout, git.source) == (
        True, {"T": "x"}, 60.0, str(user_config_path(home)))
    assert (time.enabled, warnings) == (False, [])


def test_an_override_without_a_user_server_is_ignored_with_a_warning(home, project):
    path = write(project_config_path(str(project)), {"ghost": {"enabled": False}})
    assert load(home, project) == ([], [
        f'{path}: mcp server "ghost": sets only enabled, but no valid user server of that '
        f"name exists; ignored"])


def test_a_bad_override_or_a_bad_project_entry_leaves_the_users_server(home, project):
    write(user_config_path(home), {"a": {"command": "a"}, "b": {"command": "b"}})
    path = write(project_config_path(str(project)), {"a": {"enabled": "yes"},
                                                    "b": {"command": "b2", "args": "x"}})
    servers, warnings = load(home, project)
    assert [(s.command, s.enabled) for s in servers] == [("a", True), ("b", True)]
    assert warnings == [f'{path}: mcp server "a": enabled must be true or false (got "yes"); skipped',
                        f'{path}: mcp server "b": args must be a list of strings (got "x"); skipped']


def test_started_in_the_home_folders_parent_the_file_is_read_once(tmp_path):
    home = tmp_path / ".miniagent"
    write(user_config_path(home), {"time": {"command": "t"}})
    servers, warnings = load_servers(home, str(tmp_path), True)
    assert [s.name for s in servers] == ["time"] and warnings == []


# --- Values resolved at start ------------------------------------------------------------


def test_env_and_headers_read_variables_and_commands():
    config = ServerConfig("s", "f", command="x",
                          env={"TOKEN": "${TOKEN}", "MISSING": "${NOPE}", "CMD": "!echo hi",
                               "LITERAL": "plain"},
                          headers={"Authorization": "Bearer ${TOKEN}", "X-Empty": "a${NOPE}b"})
    environ = {"TOKEN": "abc"}
    assert resolved_env(config, environ) == {"TOKEN": "abc", "MISSING": "", "CMD": "hi",
                                             "LITERAL": "plain"}
    assert resolved_headers(config, environ) == {"Authorization": "Bearer abc", "X-Empty": "ab"}


def test_a_failing_command_is_empty_text():
    config = ServerConfig("s", "f", command="x", env={"KEY": "!exit 3"})
    assert resolved_env(config, {}) == {"KEY": ""}


def test_cwd_is_taken_from_a_trusted_session_directory(tmp_path):
    home = os.path.expanduser("~")
    session = str(tmp_path)
    assert resolved_cwd(ServerConfig("s", "f", command="x"), session, True) == session
    assert resolved_cwd(ServerConfig("s", "f", command="x", cwd="src"), session, True) == \
        os.path.join(session, "src")
    assert resolved_cwd(ServerConfig("s", "f", command="x", cwd="/srv"), session, True) == "/srv"
    assert resolved_cwd(ServerConfig("s", "f", command="x", cwd="~/w"), session, True) == \
        home + "/w"


def test_until_the_directory_is_trusted_a_server_starts_from_the_home_folder(tmp_path):
    # The clone would supply the server's code: `python3 -m server` imports ./server.py.
    home, session = os.path.expanduser("~"), str(tmp_path)
    assert resolved_cwd(ServerConfig("s", "f", command="x"), session, False) == home
    assert resolved_cwd(ServerConfig("s", "f", command="x", cwd="src"), session, False) == \
        os.path.join(home, "src")
    assert resolved_cwd(ServerConfig("s", "f", command="x", cwd="/srv"), session, False) == "/srv"


def test_a_stdio_server_inherits_only_the_basic_variables_and_its_own():
    environ = {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C.UTF-8", "https_proxy": "http://p:3128",
               "OPENAI_API_KEY": "sk-secret", "ANTHROPIC_API_KEY": "sk-ant-secret",
               "AWS_SECRET_ACCESS_KEY": "x", "OWN": "mine"}
    config = ServerConfig("s", "f", command="x", env={"GIT_PAGER": "cat", "MINE": "${OWN}"})
    assert resolved_env(config, environ) == {
        "PATH": "/bin", "HOME": "/h", "LC_ALL": "C.UTF-8", "https_proxy": "http://p:3128",
        "GIT_PAGER": "cat", "MINE": "mine"}


def test_resolved_header_and_env_values_are_kept_out_of_what_we_write(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    token, command_token = "tok-4f9a8c7e6d5b4a39281706f5", "cmd-0a1b2c3d4e5f60718293a4b5"
    config = ServerConfig("s", "f", url="https://h/mcp",
                          headers={"Authorization": "Bearer ${TOKEN}",
                                   "X-Literal": "a-plain-value-written-in-the-file"})
    resolved_headers(config, {"TOKEN": token})
    resolved_env(ServerConfig("s", "f", command="x", env={"K": f"!echo {command_token}"}), {})
    shown = redact(f"401: Bearer {token} refused; {command_token}; "
                   f"a-plain-value-written-in-the-file")
    assert token[4:] not in shown and command_token[4:] not in shown
    assert shown.endswith("; a-plain-value-written-in-the-file")  # a literal is no secret


def test_a_leading_tilde_slash_in_command_and_args_is_the_home_directory():
    home = os.path.expanduser("~")
    config = ServerConfig("s", "f", command="~/bin/srv", args=["~/data", "a~/b", "~user/x"])
    assert resolved_command(config) == (home + "/bin/srv", [home + "/data", "a~/b", "~user/x"])


# --- Writing entries ---------------------------------------------------------------------


def test_add_server_creates_the_file_and_its_folder(project):
    path = project_config_path(str(project))
    add_server(path, "time", {"command": "uvx", "args": ["mcp-server-time"]})
    assert path.read_text() == (
        '{\n  "mcpServers": {\n    "time": {\n      "command": "uvx",\n      "args": [\n'
        '        "mcp-server-time"\n      ]\n    }\n  }\n}\n')


def test_add_server_keeps_every_other_key_and_server(home):
    path = user_config_path(home)
    write(path, {"a": {"command": "a", "custom": 1}, "time": {"command": "old"}},
          autoEnableCodemode=False)
    add_server(path, "time", {"command": "new"})
    add_server(path, "b", {"url": "https://b/mcp"})
    assert json.loads(path.read_text()) == {
        "mcpServers": {"a": {"command": "a", "custom": 1}, "time": {"command": "new"},
                       "b": {"url": "https://b/mcp"}},
        "autoEnableCodemode": False}


def test_add_server_replaces_the_other_spelling_of_a_name(home):
    path = user_config_path(home)
    write(path, {"my-tool": {"command": "old"}})
    add_server(path, "my_tool", {"command": "new"})
    assert json.loads(path.read_text()) == {"mcpServers": {"my_tool": {"command": "new"}}}


@pytest.mark.parametrize("text", ["{broken", "[]", '{"mcpServers": 3}'])
def test_a_file_that_cannot_be_updated_is_left_alone(home, text):
    path = user_config_path(home)
    path.write_text(text)
    with pytest.raises(ConfigError, match=str(path)):
        add_server(path, "time", {"command": "t"})
    with pytest.raises(ConfigError, match=str(path)):
        remove_server(path, "time")
    assert path.read_text() == text


def test_remove_server_says_whether_it_was_there(home):
    path = user_config_path(home)
    assert remove_server(path, "time") is False and not path.exists()
    write(path, {"my-tool": {"command": "a"}, "b": {"command": "b"}})
    assert remove_server(path, "time") is False
    assert remove_server(path, "my_tool") is True
    assert json.loads(path.read_text()) == {"mcpServers": {"b": {"command": "b"}}}


def test_entry_problem_is_the_loaders_check():
    # `miniagent mcp add` checks what it writes with the same words the loader uses
    assert entry_problem({"command": "uvx", "args": ["x"]}) is None
    assert entry_problem({"url": "ftp://h"}) == 'url must start with http:// or https:// (got "ftp://h")'
