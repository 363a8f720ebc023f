"""Every MCP server of a run: connected in parallel, waited for briefly, never left behind.

A run may name several servers in mcp.json; each one is a process to start (or a URL
to reach) and a handshake to make, which takes from a few milliseconds to seconds
(`npx` may download first). So they connect in parallel, each on a thread of its own,
as the run starts, and the first request waits for them at most CONNECT_WAIT seconds:

    start()       every enabled server begins connecting            (threads)
    first prompt  waits until each is connected or failed, or 10 s have passed;
                  a server that failed, or is still not ready, is one warning line,
                  and the run goes on without it (a late one joins at a later prompt)
    tools()       the connected servers' tools as Tools (tools.py), named by naming.py
    a call        goes to its server; a server that died meanwhile is a tool error for
                  that call, and the next call starts it again
    close()       every server stopped, in parallel: no process is left

A server that sends `notifications/tools/list_changed` has its list asked again before
the next prompt, so new tools appear and withdrawn ones go.

Left out: the protocol (client.py, jsonrpc.py), the transports (stdio.py, http.py) and
the file format (config.py).
"""

import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from ..files.home import seconds_from_env
from ..core.tools import Tool, ToolError
from .client import McpClient, McpError
from .config import ServerConfig, resolved_command, resolved_cwd, resolved_env, resolved_headers
from .jsonrpc import RequestAborted
from .naming import tool_name
from .tools import resource_tools, server_tool, within_limits
from .transport import SessionExpired, Transport

ENVIRONMENT_HINT = (" (a stdio server gets only PATH, HOME, the locale and proxy variables "
                    "of your environment, plus its own env: see docs/mcp.md)")
CONNECT_WAIT = 10.0
"""How long the first request waits for the servers still connecting (seconds;
MINIAGENT_MCP_WAIT changes it, for tests and slow starters)."""


@dataclass
class ServerStatus:
    """One server as `miniagent mcp list`, /mcp and rpc show it."""

    name: str
    state: str  # "connected" | "failed" | "connecting" | "disabled"
    tools: List[str] = field(default_factory=list)
    error: Optional[str] = None
    source: str = ""
    transport: str = ""
    kind: str = ""  # "stdio" | "http"


def make_transport(config: ServerConfig, cwd: str, trusted: bool) -> Transport:
    """The transport an entry asks for: a child process, or a URL (which alone needs
    the HTTP library, so it is loaded only then)."""
    if config.kind == "http":
        from .http import HttpTransport
        return HttpTransport(config.url, resolved_headers(config, os.environ), config.timeout)
    from .stdio import StdioTransport
    command, args = resolved_command(config)
    return StdioTransport(command, args, resolved_env(config, os.environ),
                          resolved_cwd(config, cwd, trusted))


class ConnectedServer:
    """One server: its client while connected, the tools it lists, its last error."""

    def __init__(self, config: ServerConfig, cwd: str, trusted: bool = False):
        self.config, self.name, self.cwd, self.trusted = config, config.name, cwd, trusted
        self.state = "connecting" if config.enabled else "disabled"
        self.error: Optional[str] = None
        self.client: Optional[McpClient] = None
        self.raw_tools: List[Dict[str, Any]] = []
        self.settled = threading.Event()  # connected or failed, the first time
        self.tools_changed = False
        self._lock = threading.Lock()  # one connection attempt at a time
        self._transport: Optional[Transport] = None
        self.closed = False  # the run is ending: no reconnecting

    def connect(self, abort: Optional[threading.Event] = None) -> None:
        """Start the server, make the handshake, list its tools; McpError when it fails
        (RequestAborted when `abort` is set meanwhile)."""
        self._transport = make_transport(self.config, self.cwd, self.trusted)
        client = McpClient(self.name, self._transport, self.config.timeout,
                           on_tools_changed=self._note_tools_changed)
        try:
            client.connect(abort)
            raw = client.list_tools() if "tools" in client.capabilities else []
        except McpError as exc:
            client.close()
            if self.config.kind == "stdio":  # a variable it missed may be the reason
                raise McpError(f"{exc}{ENVIRONMENT_HINT}") from exc
            raise
        except BaseException:
            client.close()
            raise
        self.client, self.raw_tools, self.state, self.error = client, raw, "connected", None

    def fail(self, error: str) -> None:
        self.state, self.error = "failed", error

    def _note_tools_changed(self) -> None:
        self.tools_changed = True  # asked again before the next prompt (refresh_tools)

    def refresh_tools(self) -> None:
        """Ask for the tool list again after the server said it changed."""
        if self.tools_changed and self.client is not None and self.client.alive:
            self.tools_changed = False
            try:
                self.raw_tools = self.client.list_tools()
            except McpError as exc:
                self.fail(str(exc))

    @property
    def has_resources(self) -> bool:
        """Did the server say it has resources (when it last connected)?"""
        client = self.client
        return client is not None and "resources" in client.capabilities

    def request(self, what: str, call: Callable[[McpClient], Dict[str, Any]],
                abort: threading.Event) -> Dict[str, Any]:
        """`call(client)` on a live client (a server that died is started again first);
        its failures as ToolErrors the model can read."""
        try:
            return self._call(what, call, abort, may_retry=True)
        except McpError:  # an HTTP server forgot the session (404) and never saw the
            return self._call(what, call, abort, may_retry=False)  # request: ask again

    def _call(self, what: str, call: Callable[[McpClient], Dict[str, Any]],
              abort: threading.Event, may_retry: bool) -> Dict[str, Any]:
        try:
            client = self._live_client(abort)
            return call(client)
        except RequestAborted:
            raise ToolError("Operation aborted") from None
        except McpError as exc:
            if may_retry and isinstance(exc.__cause__, SessionExpired):
                raise
            if not client.alive:
                self.fail(str(exc))
                raise ToolError(f"{exc}; miniagent starts the server again on the next "
                                f"call") from None
            raise ToolError(f"{exc} (asking for {what})") from None

    def _live_client(self, abort: threading.Event) -> McpClient:
        with self._lock:
            if self.client is not None and self.client.alive:
                return self.client
            if self.closed:
                raise ToolError(f'MCP server "{self.name}" was stopped: the run is ending')
            if self.client is not None:
                self.client.close()
                self.client = None
            try:
                self.connect(abort)
            except McpError as exc:
                self.fail(str(exc))
                raise ToolError(str(exc)) from None
            return self.client

    def close(self) -> None:
        """Stop the server, even in the middle of its handshake (no lock is taken: a
        connect waiting for its answer ends when its transport closes)."""
        self.closed = True
        if self.client is not None:
            self.client.close()
        elif self._transport is not None:
            self._transport.close()

    def status(self) -> ServerStatus:
        transport = self._transport.describe() if self._transport else \
            (self.config.url or " ".join([self.config.command or ""] + self.config.args))
        connected = self.state == "connected"
        names = [str(raw.get("name")) for raw in self.raw_tools] if connected else []
        return ServerStatus(self.name, self.state, names, self.error, self.config.source,
                            transport, self.config.kind)


class McpServers:
    """The run's servers. `trusted` says whether the session's directory may be their
    working directory (config.resolved_cwd); `keep(name)` says whether the model is
    offered a tool of that name (--tools / --exclude-tools); `on_warning(line)` hears
    each failure once."""

    def __init__(self, configs: List[ServerConfig], cwd: str, trusted: bool = False,
                 on_warning: Callable[[str], None] = lambda line: None,
                 keep: Callable[[str], bool] = lambda name: True):
        self.servers = [ConnectedServer(config, cwd, trusted) for config in configs]
        self.on_warning = on_warning
        self.keep = keep
        self._started_at: Optional[float] = None
        self._waited = False
        self._closing = False
        self._told_too_many: set = set()  # servers whose tools were cut (within_limits)

    def start(self) -> None:
        """Begin connecting every enabled server, each on a thread of its own."""
        self._started_at = time.monotonic()
        for server in self.servers:
            if server.config.enabled:
                threading.Thread(target=self._connect, args=(server,), daemon=True,
                                 name=f"mcp-{server.name}").start()

    def _connect(self, server: ConnectedServer) -> None:
        try:
            server.connect()
        except McpError as exc:
            server.fail(str(exc))
            if not self._closing:
                self.on_warning(f"{exc}; going on without it")
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the thread silently
            server.fail(f'MCP server "{server.name}": {exc}')
            if not self._closing:
                self.on_warning(f"{server.error}; going on without it")
        finally:
            server.settled.set()

    def wait_ready(self, timeout: float) -> None:
        """Wait until each enabled server has connected or failed, at most `timeout` s."""
        deadline = time.monotonic() + timeout
        for server in self.servers:
            if server.config.enabled:
                server.settled.wait(max(0.0, deadline - time.monotonic()))

    def before_prompt(self) -> None:
        """What a prompt does first: the first one waits for the servers (at most
        CONNECT_WAIT s from start()) and names those still not ready; every one asks
        changed tool lists again."""
        if not self._waited and self._started_at is not None:
            self._waited = True
            wait = seconds_from_env("MINIAGENT_MCP_WAIT", CONNECT_WAIT)
            self.wait_ready(wait - (time.monotonic() - self._started_at))
            for server in self.servers:
                if server.state == "connecting":
                    self.on_warning(f'MCP server "{server.name}" did not answer within '
                                    f"{wait:g} s; going on without it for now")
        for server in self.servers:
            server.refresh_tools()

    def statuses(self) -> List[ServerStatus]:
        return [server.status() for server in self.servers]

    def tools(self) -> List[Tool]:
        """The connected servers' tools, then the resource tools when a server has
        resources; only those `keep` allows."""
        tools: List[Tool] = []
        taken = set()
        # A server that crashed keeps its tools (raw_tools): its next call starts it again.
        for server in self.servers:
            valid = [raw for raw in server.raw_tools
                     if isinstance(raw, dict) and isinstance(raw.get("name"), str)]
            valid, too_many = within_limits(server.name, valid)
            if too_many and server.name not in self._told_too_many:
                self._told_too_many.add(server.name)  # once a run, not before every prompt
                self.on_warning(too_many)
            for raw in valid:
                name = tool_name(server.name, raw["name"], taken.__contains__)
                taken.add(name)
                if self.keep(name):
                    tools.append(server_tool(server, raw, name))
        if self.with_resources():
            tools.extend(tool for tool in resource_tools(self.with_resources)
                         if self.keep(tool.name))
        return tools

    def with_resources(self) -> List[ConnectedServer]:
        """The servers the resource tools reach."""
        return [server for server in self.servers if server.has_resources]

    def close(self) -> None:
        """Stop every server, in parallel; returns once all are gone."""
        self._closing = True
        closers = [threading.Thread(target=server.close, daemon=True) for server in self.servers]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join(10)
