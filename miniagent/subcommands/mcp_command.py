"""`miniagent mcp list|add|remove`: MCP servers set up and checked from a shell.

    miniagent mcp add time -- uvx mcp-server-time       a stdio server, in ~/.miniagent/mcp.json
    miniagent mcp add -l git -- uvx mcp-server-git -r .  the same in this project's file
    miniagent mcp add docs --url https://example.com/mcp --bearer-token-env-var DOCS_TOKEN
    miniagent mcp remove time
    miniagent mcp list [--json]                          connect to each, show what it offers

`add` and `remove` edit a file (mcp/config.py) and connect to nothing. `add` checks the
entry with the loader's own check first, so what it writes is what a run can load.
Everything after `--` is the server's command line, passed on untouched: it is one
program and its arguments, never a shell command.

`list` is where a user looks when a server's tools do not show up. It reads the
configuration as a run would (the project's file only if this directory is trusted
already: a listing never asks), prints the configuration's warnings, connects every
enabled server (mcp/servers.py), and closes them again:

    time  connected  stdio  uvx mcp-server-time
      tools: convert_time, get_current_time
    git   failed     stdio  uvx mcp-server-git --repository /src/app
      error: MCP server "git" exited (status 1) before answering initialize: ...
    docs  disabled   http   https://example.com/mcp

It exits 1 when an entry is invalid or an enabled server did not connect, so a script
(or the agent, through bash) can check a setup before a run relies on it.

The servers it starts follow a run's process rules: the first stop signal (Ctrl-C,
SIGTERM, SIGHUP) stops them and exits with 128 + the signal, a second one quits at once,
and at exit the sweep (tools/hardening/reaper.py, set up by cli.py) kills whatever a
server left behind, such as a daemon it forked. `--json` writes the servers' texts with
the characters that could drive a terminal escaped (modes/terminal.py).

Left out: pi's `login` and `logout` (no OAuth here), and `--exposure` / `--description`
(every MCP tool is offered to the model directly).
"""

import argparse
import os
import re
import shutil
import signal
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ..errors import ConfigError
from ..files.home import miniagent_home
from ..mcp.config import (
    ServerConfig, add_server, entry_problem, load_servers, name_problem,
    project_config_path, remove_server, shown, user_config_path)
from ..files.text import to_json
from ..modes.output import ArgumentParser, say, usage_error
from ..modes.terminal import for_terminal, json_for_terminal
from ..project.trust import resolve_trust
from ..tools.hardening.reaper import catch_stop_signals

if TYPE_CHECKING:  # for the reader and a type checker: loaded only when servers are listed
    from ..mcp.servers import ServerStatus

GRACE = 5.0  # seconds a listing waits past the longest server timeout
VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def main(argv: List[str]) -> int:
    """Run `miniagent mcp ARGV...` and return its exit status."""
    own, command = split_at_dashes(argv)
    args = build_parser().parse_args(own)
    if command is not None and args.action != "add":
        return usage_error(f"mcp {args.action} takes no command after -- "
                           f"(see miniagent mcp {args.action} --help)")
    if args.action == "add":
        return add_command(args, command or [])
    if args.action == "remove":
        return remove_command(args)
    return list_command(args.json)


def split_at_dashes(argv: List[str]) -> Tuple[List[str], Optional[List[str]]]:
    """Our options, and the server's command line after the first `--` (None without
    one). Split here rather than by argparse, which would read the server's own
    options (`--repository`) as ours."""
    if "--" not in argv:
        return argv, None
    at = argv.index("--")
    return argv[:at], argv[at + 1:]


def key_value(text: str) -> Tuple[str, str]:
    """`--env KEY=VALUE` and `--header KEY=VALUE`: split at the first `=`."""
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"KEY=VALUE expected (got {text!r})")
    return key, value


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="miniagent mcp",
                            description="Add, remove and check MCP servers (mcp.json).")
    actions = parser.add_subparsers(dest="action", metavar="{list,add,remove}", required=True)
    listing = actions.add_parser("list", help="connect to each enabled server, show its tools",
                                 description="Connect to every enabled server and show its "
                                             "state, tools and errors; exit 1 if one fails.")
    listing.add_argument("--json", action="store_true", help="one JSON document")
    add = actions.add_parser(
        "add", help="add or replace a server (does not connect)",
        usage="miniagent mcp add NAME [-l] [--env K=V]... [--cwd DIR] [--timeout S] "
              "-- CMD ARGS...\n       miniagent mcp add NAME [-l] --url URL [--header K=V]... "
              "[--bearer-token-env-var NAME] [--timeout S]",
        description="Add a stdio server (its command after --) or a streamable HTTP "
                    "server (--url) to mcp.json; an entry of the same name is replaced.")
    add.add_argument("name", metavar="NAME", help="letters, digits, _ and -")
    add.add_argument("--env", action="append", type=key_value, default=[], metavar="K=V",
                     help="a variable for the server; ${NAME} and !command are read at start")
    add.add_argument("--cwd", metavar="DIR",
                     help="where it runs (relative: to the session's directory)")
    add.add_argument("--url", metavar="URL", help="a streamable HTTP endpoint, often .../mcp")
    add.add_argument("--header", action="append", type=key_value, default=[], metavar="K=V",
                     help="an HTTP header sent with every request")
    add.add_argument("--bearer-token-env-var", metavar="NAME",
                     help="send Authorization: Bearer ${NAME}")
    add.add_argument("--timeout", type=float, metavar="S", help="seconds per request (default 60)")
    remove = actions.add_parser("remove", help="remove a server from mcp.json")
    remove.add_argument("name", metavar="NAME")
    for sub in (add, remove):
        sub.add_argument("-l", "--local", action="store_true",
                         help="this project's .miniagent/mcp.json instead of your own")
    return parser


# --- add and remove ----------------------------------------------------------------------


def add_command(args: argparse.Namespace, command: List[str]) -> int:
    entry, mistake = build_entry(args, command)
    if mistake:
        return usage_error(f"mcp add: {mistake} (see miniagent mcp add --help)")
    problem = name_problem(args.name) or entry_problem(entry)
    if problem:
        return usage_error(f"mcp add: mcp server {shown(args.name)}: {problem} "
                           f"(see miniagent mcp add --help)")
    path = config_path(args.local)
    try:
        add_server(path, args.name, entry)
    except (ConfigError, OSError) as error:
        say(f"miniagent mcp add: {describe_failure(error, path)}")
        return 1
    kind = "stdio" if "command" in entry else "http"
    print(f"Added {kind} server {args.name} to {path}")
    if args.local:
        note_if_untrusted(path)
    return 0


def build_entry(args: argparse.Namespace,
                command: List[str]) -> Tuple[Dict[str, Any], Optional[str]]:
    """The mcp.json entry the options describe, or the reason they describe none."""
    if (args.url is None) == (not command):
        return {}, "give either the server's command after -- or --url URL"
    if args.url is None and (args.header or args.bearer_token_env_var):
        return {}, "--header and --bearer-token-env-var go with --url"
    if args.url is not None and (args.env or args.cwd):
        return {}, "--env and --cwd go with a command after --"
    if args.url is None:
        entry: Dict[str, Any] = {"command": command[0], "args": command[1:]}
        entry.update({"env": dict(args.env)} if args.env else {})
        entry.update({"cwd": args.cwd} if args.cwd else {})
    else:
        headers = dict(args.header)
        token = args.bearer_token_env_var
        if token is not None and not VARIABLE.match(token):
            return {}, (f"--bearer-token-env-var must name an environment variable "
                        f"(got {shown(token)})")
        if token is not None:
            headers["Authorization"] = "Bearer ${" + token + "}"
        entry = {"url": args.url, **({"headers": headers} if headers else {})}
    if args.timeout is not None:  # 30, not 30.0, in the file
        entry["timeout"] = int(args.timeout) if args.timeout.is_integer() else args.timeout
    return entry, None


def remove_command(args: argparse.Namespace) -> int:
    path = config_path(args.local)
    try:
        removed = remove_server(path, args.name)
    except (ConfigError, OSError) as error:
        say(f"miniagent mcp remove: {describe_failure(error, path)}")
        return 1
    if not removed:
        say(f"miniagent mcp remove: no server {shown(args.name)} in {path}")
        return 1
    print(f"Removed server {args.name} from {path}")
    return 0


def config_path(local: bool) -> Path:
    return project_config_path(os.getcwd()) if local else user_config_path(miniagent_home())


def describe_failure(error: Exception, path: Path) -> str:
    if isinstance(error, OSError):
        return f"cannot write {path}: {error.strerror or error}"
    return str(error)


def note_if_untrusted(path: Path) -> None:
    """Say so when a run here would not read the project's file yet."""
    try:
        trusted = resolve_trust(os.getcwd(), miniagent_home(), None)
    except ConfigError:  # a damaged trust.json: the run will say so itself
        trusted = False
    if not trusted:
        say(f"miniagent mcp: note: this directory is not trusted, so runs do not read {path} "
            f"(trust it with /trust in the REPL, or --approve for one run)")


# --- list ------------------------------------------------------------------------------------


def list_command(as_json: bool) -> int:
    home, cwd = miniagent_home(), os.getcwd()
    try:
        trusted = resolve_trust(cwd, home, None)  # never asks: an answer given before, or no
    except ConfigError as error:
        say(f"miniagent mcp list: {error}")
        return 2
    configs, warnings = load_servers(home, cwd, trusted)
    if not trusted and project_config_path(cwd).exists():
        note_if_untrusted(project_config_path(cwd))
    for warning in [] if as_json else warnings:  # before connecting, which may take long
        say(f"miniagent: warning: {for_terminal(warning)}")
    received = catch_stop_signals(stop_listing)
    try:
        statuses = connect_all(configs, cwd, trusted) if configs else []
    except KeyboardInterrupt:  # a stop signal while servers connect: closed already
        return 128 + (received[0] if received else signal.SIGINT)
    if as_json:
        document = {"servers": [status_json(s) for s in statuses], "warnings": warnings}
        print(json_for_terminal(to_json(document, indent=2)))
    else:
        print_statuses(statuses, home)
    failed = [s for s in statuses if s.state not in ("connected", "disabled")]
    return 1 if warnings or failed else 0


def stop_listing(signum: int) -> None:
    """The first stop signal: leave the listing; connect_all closes the servers."""
    raise KeyboardInterrupt


def connect_all(configs: List[ServerConfig], cwd: str, trusted: bool) -> List["ServerStatus"]:
    """Every server's ServerStatus after connecting the enabled ones; none left running."""
    # Imported here: only a listing with servers pays for the client (and, when one of
    # them is an HTTP server, for the HTTP library).
    from ..mcp.servers import McpServers
    servers = McpServers(configs, cwd, trusted)
    wait = max(config.timeout for config in configs) + GRACE
    try:
        servers.start()
        servers.wait_ready(wait)
        statuses = servers.statuses()
    finally:
        servers.close()
    for status in statuses:  # the client's own timeout should have ended it first
        if status.state == "connecting" and not status.error:
            status.error = f'MCP server "{status.name}" did not connect within {wait:g} s'
    return statuses


def status_json(status: Any) -> Dict[str, Any]:
    return {"name": status.name, "state": status.state, "kind": status.kind,
            "transport": status.transport, "source": status.source,
            "tools": list(status.tools), "error": status.error}


def print_statuses(statuses: List[Any], home: Path) -> None:
    if not statuses:
        print(f"No MCP servers configured (add one: miniagent mcp add NAME -- CMD ARGS...; "
              f"file: {user_config_path(home)})")
        return
    columns = shutil.get_terminal_size((100, 24)).columns
    print("\n".join(status_lines(statuses, columns)))


def status_lines(statuses: List[Any], columns: int) -> List[str]:
    """One line per server, its tools wrapped under it, then its error if any (the
    REPL's /mcp shows the same). What a server sent (tool names, its stderr in an
    error) is shown, never obeyed."""
    width = max((len(status.name) for status in statuses), default=0)
    lines = []
    for status in statuses:
        lines.append(f"{status.name:<{width}}  {status.state:<10} {status.kind:<5} "
                     f"{for_terminal(status.transport)}")
        if status.state == "connected":
            tools = ", ".join(for_terminal(name) for name in status.tools) or "none"
            lines.append(textwrap.fill(tools, width=max(40, columns), initial_indent="  tools: ",
                                       subsequent_indent="         ", break_long_words=False,
                                       break_on_hyphens=False))
        if status.error:
            lines.append(f"  error: {for_terminal(status.error)}")
    return lines
