"""mcp.json: which MCP servers a run starts, and how an entry is checked and written.

An MCP server is a program (or a URL) that offers the agent tools. Which servers to
start is written down once, in the shape Claude Desktop, Claude Code, Cursor and pi all
use, so an entry copied from one of them works here unchanged:

    {"mcpServers": {
       "time": {"command": "uvx", "args": ["mcp-server-time"]},          # stdio: a child
       "docs": {"url": "https://example.com/mcp",                        # streamable HTTP
                "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}, "timeout": 30},
       "git":  {"command": "~/bin/mcp-server-git", "args": ["--repository", "."],
                "cwd": "src", "env": {"GIT_TOKEN": "!pass show git"}, "enabled": false}}}

`type` ("stdio", "http", "streamable-http") may be left out: a `command` means stdio, a
`url` streamable HTTP. `timeout` is seconds per request (default 60), `enabled: false`
keeps an entry without starting it.

Two files are read, and the second only for a trusted project, because an entry is a
program to run: a cloned repository must not start one on your machine unasked.

    ~/.miniagent/mcp.json             yours, always read
    <project>/.miniagent/mcp.json     the project's, read once the directory is trusted

A project entry replaces yours of the same name. One without `command`, `url` or `type`
only switches yours on or off: `{"mcpServers": {"git": {"enabled": true}}}`.

Like models.json, each entry is checked field by field when it is read. A bad one is
one warning, naming the file, the server and the field, and is skipped; the others
still load:

    /home/me/.miniagent/mcp.json: mcp server "time": args must be a list of strings (got "mcp-server-time"); skipped

A server name holds letters, digits, `_` and `-`, and `my-tool` and `my_tool` are the
same server (its tools are called `mcp__my_tool__...` either way, naming.py).

Values are kept as written and resolved when a server starts (the `resolved_*`
functions): `${NAME}` in `env` and `headers` reads the environment (unset: empty), a
value that is wholly `!command` is that command's output (models/values.py), a relative
`cwd` is taken from the session's directory, and a leading `~/` is your home. A value
that was resolved is a secret kept out of the file, so it is registered for redaction
(files/redaction.py): a 401 that quotes the token never reaches stderr or a session.

Two rules keep a directory from supplying a server's code or our keys:

    working directory   until the project is trusted, an entry with no `cwd` (or a
                        relative one) starts in your home folder, not the session's
                        directory: `python3 -m server` would import the clone's
                        server.py, and `npx` prefers the clone's node_modules
    environment         a stdio server inherits only INHERITED (PATH, HOME, the locale,
                        the proxies, ...) plus its own `env`, never a provider's key

Left out: OAuth (an entry with `oauth` is skipped, with one line: a bearer token goes in
`headers`), the legacy SSE transport, pi's `exposure`, `toolExposure` and `description`
(accepted and ignored: every tool is offered to the model directly), VS Code's `servers`
key, and a lock around add/remove (two writes at the same instant: the last one wins).
"""

import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ..errors import ConfigError
from ..files.atomic import replace_atomically
from ..files.redaction import add_secret
from ..files.safeopen import read_json_file
from ..models.values import resolve_value
from ..project.settings import config_files

DEFAULT_TIMEOUT = 60.0  # seconds a server has to answer one request
TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http"}  # written -> kind
NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass
class ServerConfig:
    """One checked entry of mcp.json, its values as written (resolved at start)."""
    name: str
    source: str                      # the file it came from (path as text)
    command: Optional[str] = None    # stdio
    args: List[str] = field(default_factory=list)
    env: Dict[str, str] = field(default_factory=dict)    # raw values (may hold ${NAME})
    cwd: Optional[str] = None
    url: Optional[str] = None        # streamable HTTP
    headers: Dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    enabled: bool = True

    @property
    def kind(self) -> str:
        """Either "stdio" (a command to start) or "http" (a URL to post to)."""
        return "stdio" if self.command is not None else "http"


def user_config_path(home: Path) -> Path:
    return Path(home) / "mcp.json"


def project_config_path(cwd: str) -> Path:
    return Path(os.path.realpath(cwd)) / ".miniagent" / "mcp.json"


# --- Checking one entry ----------------------------------------------------------------


def is_text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def is_string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


# What each field must be: a test, and the words for the warning (as models/registry.py).
FIELDS = {
    "command": (is_text, "be a non-empty string"),
    "args": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
             "be a list of strings"),
    "env": (is_string_map, "be an object of strings"),
    "cwd": (is_text, "be a non-empty string"),
    "url": (lambda v: isinstance(v, str) and v.lower().startswith(("http://", "https://")),
            "start with http:// or https://"),
    "headers": (is_string_map, "be an object of strings"),
    # type(): True is an int; NaN and Infinity are floats json reads
    "timeout": (lambda v: type(v) in (int, float) and math.isfinite(v) and v > 0,
                "be a positive number of seconds"),
    "enabled": (lambda v: isinstance(v, bool), "be true or false"),
}
SECRET_FIELDS = ("env", "headers")  # their values may be keys: never echoed in a warning


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) < 60 else text[:56] + "..."


def field_problem(entry: Dict[str, Any], keys: Iterable[str]) -> Optional[str]:
    """The first of `keys` present in `entry` with a wrong value, as words, or None."""
    for key in keys:
        ok, what = FIELDS[key]
        if key in entry and not ok(entry[key]):
            got = "" if key in SECRET_FIELDS else f" (got {shown(entry[key])})"
            return f"{key} must {what}{got}"
    return None


def entry_problem(entry: Any) -> Optional[str]:
    """What is wrong with one server entry, in the words after its name, or None.

    Example: {"command": "uvx", "args": "mcp-server-time"} ->
    'args must be a list of strings (got "mcp-server-time")'
    """
    if not isinstance(entry, dict):
        return f"the entry must be an object (got {shown(entry)})"
    if "oauth" in entry:
        return 'OAuth sign-in is not supported; use "headers" with a bearer token'
    written = entry.get("type")
    if written == "sse":
        return ('type "sse" (the legacy SSE transport) is not supported; try the '
                "server's streamable HTTP endpoint, often /mcp instead of /sse")
    if written is not None and (not isinstance(written, str) or written not in TYPES):
        return f"type must be one of stdio, http, streamable-http (got {shown(written)})"
    if "command" in entry and "url" in entry:
        return "command and url must not both be given (a server is stdio or HTTP)"
    if "command" not in entry and "url" not in entry:
        return "command (stdio) or url (streamable HTTP) must be given"
    if written is not None and "command" in entry and TYPES[written] != "stdio":
        return f'type must be "stdio" with a command (got {shown(written)})'
    if written is not None and "url" in entry and TYPES[written] != "http":
        return f'type must be "http" or "streamable-http" with a url (got {shown(written)})'
    return field_problem(entry, FIELDS)


def name_problem(name: str) -> Optional[str]:
    if NAME.match(name):
        return None
    return "the name must hold only letters, digits, _ and -"


def server_key(name: str) -> str:
    """The identity of a server name: `my-tool` and `my_tool` are one server."""
    return name.replace("-", "_")


def to_config(name: str, entry: Dict[str, Any], source: str) -> ServerConfig:
    """A checked entry as a ServerConfig; the fields of the other transport are dropped."""
    shared = dict(timeout=float(entry.get("timeout", DEFAULT_TIMEOUT)),
                  enabled=entry.get("enabled", True))
    if "command" in entry:
        return ServerConfig(name, source, command=entry["command"],
                            args=list(entry.get("args", [])), env=dict(entry.get("env", {})),
                            cwd=entry.get("cwd"), **shared)
    return ServerConfig(name, source, url=entry["url"],
                        headers=dict(entry.get("headers", {})), **shared)


# --- Loading both files ----------------------------------------------------------------


def load_servers(home: Path, cwd: str,
                 trusted: bool) -> Tuple[List[ServerConfig], List[str]]:
    """Every valid entry (disabled ones too, with enabled=False), and one warning line
    per bad entry, unreadable file or skipped oauth entry. The project's file is read
    only when `trusted` (and not at all when the project folder is the home itself)."""
    warnings: List[str] = []
    servers: Dict[str, ServerConfig] = {}  # by server_key; a replaced one keeps its place
    user_file, *project_files = config_files("mcp.json", home, cwd, trusted)
    for key, (name, entry) in read_entries(user_file, warnings).items():
        add_checked(servers, key, name, entry, str(user_file), warnings)
    for project_file in project_files:
        for key, (name, entry) in read_entries(project_file, warnings).items():
            if is_override(entry):
                override_enabled(servers, key, name, entry, str(project_file), warnings)
            else:
                add_checked(servers, key, name, entry, str(project_file), warnings)
    return list(servers.values()), warnings


def read_entries(path: Path, warnings: List[str]) -> Dict[str, Tuple[str, Any]]:
    """A file's entries by server_key, as (name, entry). A missing file has none; one
    that is no JSON object has none and one warning; a bad or repeated name is one
    warning, and the entries themselves are checked by the caller."""
    if not path.exists():
        return {}
    try:
        data = read_json_file(path)
    except ConfigError as error:
        warnings.append(f"{error}; no MCP servers read from it")
        return {}
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        what = "mcpServers" if isinstance(data, dict) else "the file"
        warnings.append(f"{path}: {what} must be an object; no MCP servers read from it")
        return {}
    found: Dict[str, Tuple[str, Any]] = {}
    for name, entry in servers.items():
        first = found.get(server_key(name))
        if first is not None:  # which of the two would win is not for the file's order to say
            problem = (f"the name must differ from {shown(first[0])} in more than - and _ "
                       f"(they name the same server)")
        else:
            problem = name_problem(name)
        if problem:
            warnings.append(skipped(path, name, problem))
        else:
            found[server_key(name)] = (name, entry)
    return found


def skipped(source: Any, name: str, problem: str) -> str:
    return f"{source}: mcp server {shown(name)}: {problem}; skipped"


def add_checked(servers: Dict[str, ServerConfig], key: str, name: str, entry: Any,
                source: str, warnings: List[str]) -> None:
    """Add (or replace) a server if its entry is valid; else one warning."""
    problem = entry_problem(entry)
    if problem:
        warnings.append(skipped(source, name, problem))
    else:
        servers[key] = to_config(name, entry, source)


def is_override(entry: Any) -> bool:
    """A project entry that names no server of its own only switches the user's."""
    return isinstance(entry, dict) and not any(k in entry for k in ("command", "url", "type"))


def override_enabled(servers: Dict[str, ServerConfig], key: str, name: str,
                     entry: Dict[str, Any], source: str, warnings: List[str]) -> None:
    """Apply a project's `{"enabled": ...}` to the user's server of that name."""
    problem = field_problem(entry, ["enabled"])
    if problem:
        warnings.append(skipped(source, name, problem))
    elif key not in servers:
        warnings.append(f"{source}: mcp server {shown(name)}: sets only enabled, but no "
                        f"valid user server of that name exists; ignored")
    else:
        servers[key] = replace(servers[key], enabled=entry.get("enabled", servers[key].enabled))


# --- Resolving values, when a server starts ------------------------------------------------


INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR",
             "http_proxy", "https_proxy", "no_proxy", "all_proxy",
             "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY")
"""What a stdio server inherits of our environment (and every LC_* variable): enough
to find programs and speak the locale; a provider's key is not among them."""


def resolved_value(spec: str, environ: Mapping[str, str]) -> str:
    """What one env or header value stands for now; a resolved one is registered as a
    secret (a literal is no secret of ours, as in models/choose.py).

    Examples: "Bearer ${TOKEN}" with TOKEN=abc -> "Bearer abc", TOKEN unset -> "Bearer ";
    "!gh auth token" -> the command's output ("" when it fails: its stderr says why).
    """
    value = resolve_value(spec, environ, unset_ok=True) or ""
    add_secret(value if value != spec else None)
    return value


def inherited_env(environ: Mapping[str, str]) -> Dict[str, str]:
    """The part of our environment a stdio server gets: INHERITED and LC_*."""
    return {name: value for name, value in environ.items()
            if name in INHERITED or name.startswith("LC_")}


def resolved_env(config: ServerConfig, environ: Mapping[str, str]) -> Dict[str, str]:
    """The server's whole environment: inherited_env, then its own variables, resolved."""
    own = {name: resolved_value(value, environ) for name, value in config.env.items()}
    return {**inherited_env(environ), **own}


def resolved_headers(config: ServerConfig, environ: Mapping[str, str]) -> Dict[str, str]:
    return {name: resolved_value(value, environ) for name, value in config.headers.items()}


def expand_home(text: str) -> str:
    """A leading `~/` is the home directory: "~/bin/x" -> "/home/me/bin/x"."""
    if text == "~" or text.startswith("~/"):
        return os.path.expanduser("~") + text[1:]
    return text


def resolved_cwd(config: ServerConfig, session_cwd: str, trusted: bool) -> str:
    """Where the server runs: the session's directory, or `cwd` taken from there; in
    an untrusted directory, the home folder instead (the module docstring says why).

    Example: cwd "src", session /w/app -> "/w/app/src" (untrusted: "/home/me/src")
    """
    base = session_cwd if trusted else os.path.expanduser("~")
    if config.cwd is None:
        return base
    return os.path.join(base, expand_home(config.cwd))  # an absolute cwd stays


def resolved_command(config: ServerConfig) -> Tuple[str, List[str]]:
    """The program and its arguments (one executable, no shell), `~/` expanded."""
    return expand_home(config.command or ""), [expand_home(arg) for arg in config.args]


# --- Writing entries (`miniagent mcp add|remove`) --------------------------------------------


def add_server(path: Path, name: str, entry: dict) -> None:
    """Set `mcpServers[name]` in the file, keeping every other key and server; the file
    and its folder are created when missing. Raises ConfigError for a file that is not
    a JSON object (it is left alone: the user's own text is not ours to replace)."""
    data = read_for_update(path)
    servers = data.setdefault("mcpServers", {})
    for other in [n for n in servers if server_key(n) == server_key(name) and n != name]:
        del servers[other]  # the same server spelled the other way: replaced, not doubled
    servers[name] = entry
    write_config(path, data)


def remove_server(path: Path, name: str) -> bool:
    """Delete the server (either spelling of its name); False when it is not there."""
    if not path.exists():
        return False
    data = read_for_update(path)
    servers = data.get("mcpServers", {})
    found = [n for n in servers if server_key(n) == server_key(name)]
    for other in found:
        del servers[other]
    if found:
        write_config(path, data)
    return bool(found)


def read_for_update(path: Path) -> Dict[str, Any]:
    if not path.exists():
        return {}
    data = read_json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f'{path}: must be a JSON object whose "mcpServers" is an object; '
                          f"fix it by hand (it was not changed)")
    return data


def write_config(path: Path, data: Dict[str, Any]) -> None:
    """The whole file at once: a reader (a run starting now) never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
