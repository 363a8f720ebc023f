"""What carries MCP messages: the Transport contract, and the two ways it ends.

MCP is JSON-RPC 2.0 messages (plain dicts here) sent in both directions between us
(the client) and a server. The protocol does not care how the messages travel; the
spec defines two carriers, and each is a Transport:

    stdio.py   the server is our child process: one JSON message per line on its
               stdin and stdout
    http.py    the server is a web endpoint: each message POSTed, answers as JSON or
               as a Server-Sent Events stream ("streamable HTTP")

A Transport knows nothing of requests, ids or answers (that is `jsonrpc.py`'s job): it
only sends a message, hands every message that arrives to `on_message`, and calls
`on_closed` once, with a one-line reason, when the server is gone for good. The
Connection sets both callbacks before `start()`.
"""

from typing import Callable, Optional


class TransportClosed(Exception):
    """The server is gone (or never came): str(exc) is one line saying why, e.g.
    'exited with status 1: <stderr tail>' / 'connection refused'."""


class SessionExpired(TransportClosed):
    """HTTP only: the server answered 404 to our Mcp-Session-Id; initialize again."""


def _drop_message(message: dict) -> None:
    """The default on_message, until a Connection sets its own."""


def _drop_reason(reason: str) -> None:
    """The default on_closed, until a Connection sets its own."""


class Transport:
    """Carries JSON-RPC messages (dicts) between us and one server.

    on_message is called from the transport's own thread(s), one message at a time (a
    JSON-RPC batch, a list, is delivered item by item). on_closed is called once, when
    the transport is gone for good, with the reason (one line).
    """

    on_message: Callable[[dict], None] = staticmethod(_drop_message)
    on_closed: Callable[[str], None] = staticmethod(_drop_reason)
    # Set by the client after initialize: HTTP sends it as MCP-Protocol-Version on every
    # request; stdio has no headers and ignores it.
    protocol_version: Optional[str] = None

    def start(self) -> None:
        """stdio: spawn the server; http: nothing yet. Raises TransportClosed."""
        raise NotImplementedError

    def send(self, message: dict) -> None:
        """Send one message. Raises TransportClosed (or SessionExpired, HTTP)."""
        raise NotImplementedError

    def close(self) -> None:
        """Idempotent and bounded (<= ~3 s). stdio: close stdin, SIGTERM the process
        group, then SIGKILL it; http: DELETE the session."""
        raise NotImplementedError

    def describe(self) -> str:
        """For listings: "npx -y @x/y" or "https://host/mcp"."""
        raise NotImplementedError

    def stderr_tail(self) -> str:
        """stdio: the last ~600 characters of the server's stderr, as one line; http: ""."""
        return ""
