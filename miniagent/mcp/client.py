"""The MCP client: one server's lifecycle, its tools and its resources.

MCP puts a handshake in front of everything else. The client speaks first:

    -> initialize {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: ...}
    <- {protocolVersion: "2025-06-18", capabilities: {tools: {listChanged: true}},
        serverInfo: {name, version}, instructions: "..."}
    -> notifications/initialized                  now the session is open

The server answers with the version it will speak: ours if it knows it, else another.
We accept the versions we know (SUPPORTED_VERSIONS; they differ in details we do not
use) and refuse any other. We declare no capabilities of our own: miniagent offers no
sampling (the server asking our model), roots or elicitation (asking the user).

After the handshake, the requests this client makes:

    tools/list                      every page, following nextCursor
    tools/call                      with a progress token: a long call that reports
                                    progress is not cut off by the per-request timeout
                                    (max_total still is)
    resources/list, resources/templates/list, resources/read, ping

and what it answers when the server asks: "ping" with {}, anything else with error
-32601 (method not found). notifications/tools/list_changed calls on_tools_changed
(from the notification thread, so it may make requests of its own); other
notifications (logging, resources changed) are ignored.

Every failure is an McpError whose text is one line starting `MCP server "NAME": `, so
a warning or a tool error can show it as it is. An abort is the exception:
RequestAborted passes through unchanged, as the caller asked for it.

A client is used once: connect(), requests, close(). To reconnect after a crash, make
a new client with a new transport.
"""

import threading
from typing import Callable, List, Optional

from .. import __version__
from ..files.text import one_line
from .jsonrpc import Connection, RequestAborted, RequestTimeout, RpcError
from .transport import SessionExpired, Transport, TransportClosed

PROTOCOL_VERSION = "2025-11-25"
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
METHOD_NOT_FOUND = -32601
MAX_PAGES = 100
"""A server whose nextCursor never ends is cut off here."""
MAX_ERROR_CHARS = 1000
"""Room for an error and the stderr tail a stdio transport quotes (600 characters)."""


class McpError(Exception):
    """One line naming the server: 'MCP server "time": ...'"""


class McpClient:
    """A connection to one MCP server, by name, over a transport."""

    def __init__(self, name: str, transport: Transport, timeout: float = 60.0,
                 on_tools_changed: Callable[[], None] = lambda: None) -> None:
        self.name = name
        self.transport = transport
        self.timeout = timeout
        self.on_tools_changed = on_tools_changed
        self.server_info: dict = {}
        self.instructions: Optional[str] = None
        self.capabilities: dict = {}
        self.protocol_version: Optional[str] = None
        self._connected = False
        self._connection = Connection(transport, self._on_notification, self._on_request)

    @property
    def alive(self) -> bool:
        """Connected, and the transport has not closed since."""
        return self._connected and self._connection.closed_reason is None

    # --- The handshake -----------------------------------------------------------------

    def connect(self, abort: Optional[threading.Event] = None) -> None:
        """Start the transport, initialize, agree on a version, send initialized.
        On failure the transport is closed (no process left) and McpError raised."""
        try:
            self._connection.start()
        except TransportClosed as exc:  # it never ran: "command not found: npx"
            self.close()
            raise McpError(self._prefix() + str(exc)) from exc
        try:
            result = self._connection.request("initialize", {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "miniagent", "version": __version__},
            }, timeout=self.timeout, abort=abort)
            self._accept(result)
            self._connection.notify("notifications/initialized")
        except RequestAborted:
            self.close()
            raise
        except (TransportClosed, RequestTimeout, RpcError, McpError) as exc:
            self.close()
            raise self._error("initialize", exc) from exc
        self._connected = True

    def _accept(self, result: dict) -> None:
        """Take in the server's side of the handshake, or refuse its version."""
        version = result.get("protocolVersion")
        if version not in SUPPORTED_VERSIONS:
            raise McpError(f"the server speaks protocol version {str(version)[:40]!r}; "
                           f"miniagent speaks {', '.join(SUPPORTED_VERSIONS)}")
        self.protocol_version = version
        self.transport.protocol_version = version  # HTTP sends it on every request from now
        info, capabilities = result.get("serverInfo"), result.get("capabilities")
        self.server_info = info if isinstance(info, dict) else {}
        self.capabilities = capabilities if isinstance(capabilities, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None

    # --- Requests ----------------------------------------------------------------------

    def list_tools(self) -> List[dict]:
        """Every tool the server offers, all pages: raw MCP Tool dicts."""
        tools: List[dict] = []
        cursor = None
        for _ in range(MAX_PAGES):
            page = self._request("tools/list", "tools/list", _page(cursor))
            items = page.get("tools")
            if not isinstance(items, list):
                raise McpError(self._prefix() + "tools/list: the answer holds no list of tools")
            tools.extend(item for item in items if isinstance(item, dict))
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                return tools
        raise McpError(self._prefix() + f"tools/list: more than {MAX_PAGES} pages of tools")

    def call_tool(self, name: str, arguments: dict, abort: threading.Event,
                  max_total: float = 600.0,
                  on_progress: Optional[Callable[[dict], None]] = None) -> dict:
        """Call one tool; the raw CallToolResult dict (isError is the caller's to read).
        `on_progress(params)` hears the server's progress notifications for it."""
        return self._request(f'tools/call "{name}"', "tools/call",
                             {"name": name, "arguments": arguments}, abort=abort,
                             max_total=max_total, with_progress=True, on_progress=on_progress)

    def list_resources(self, cursor: Optional[str] = None) -> dict:
        return self._request("resources/list", "resources/list", _page(cursor))

    def list_resource_templates(self, cursor: Optional[str] = None) -> dict:
        return self._request("resources/templates/list", "resources/templates/list",
                             _page(cursor))

    def read_resource(self, uri: str) -> dict:
        return self._request(f"resources/read {uri}", "resources/read", {"uri": uri})

    def ping(self) -> None:
        self._request("ping", "ping")

    def close(self) -> None:
        """Stop the server (bounded, idempotent)."""
        self._connection.close()

    def _request(self, what: str, method: str, params: Optional[dict] = None,
                 abort: Optional[threading.Event] = None, max_total: Optional[float] = None,
                 with_progress: bool = False,
                 on_progress: Optional[Callable[[dict], None]] = None) -> dict:
        """One request, its failures turned into McpError; `what` names it in the error."""
        try:
            return self._connection.request(method, params, timeout=self.timeout, abort=abort,
                                            max_total=max_total, with_progress=with_progress,
                                            on_progress=on_progress)
        except SessionExpired as exc:
            # The HTTP server forgot us: this client is done (alive turns False), and
            # whoever holds it connects a new one.
            self.close()
            raise self._error(what, exc) from exc
        except (TransportClosed, RequestTimeout, RpcError) as exc:
            raise self._error(what, exc) from exc

    def _error(self, what: str, exc: Exception) -> McpError:
        """The one-line McpError for a failed request; the server's own words (an error
        message, its stderr) may hold line breaks, and are joined into the line."""
        if isinstance(exc, McpError):  # already says what is wrong, without the prefix
            return McpError(one_line(self._prefix() + f"{what}: {exc}", MAX_ERROR_CHARS))
        detail = str(exc)
        tail = self.transport.stderr_tail()
        # A closed stdio transport already quotes stderr; a silent server may explain
        # itself there too.
        if isinstance(exc, RequestTimeout) and tail:
            detail += f" (stderr: {tail})"
        return McpError(one_line(self._prefix() + f"{what} failed: {detail}", MAX_ERROR_CHARS))

    def _prefix(self) -> str:
        return f'MCP server "{self.name}": '

    # --- What the server sends us --------------------------------------------------------

    def _on_notification(self, method: str, params: dict) -> None:
        if method == "notifications/tools/list_changed":
            self.on_tools_changed()

    def _on_request(self, method: str, params: dict) -> dict:
        if method == "ping":
            return {}
        raise RpcError(METHOD_NOT_FOUND, f"miniagent does not support {method[:80]} "
                                         "(it declares no client capabilities)")


def _page(cursor: Optional[str]) -> Optional[dict]:
    return {"cursor": cursor} if cursor else None
