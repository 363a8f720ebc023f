"""Streamable HTTP: an MCP server as a web endpoint, one POST per message.

A remote MCP server is one URL (often https://host/mcp). Every JSON-RPC message we send
is POSTed to it, and what the server has to say back comes in that POST's response, in
one of three forms:

    POST /mcp  {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
      -> 200 application/json    {"jsonrpc": "2.0", "id": 1, "result": {...}}

    POST /mcp  {"jsonrpc": "2.0", "id": 2, "method": "tools/call", ...}
      -> 200 text/event-stream   id: 7                 <- a "priming" event: no data,
                                 data:                    only an id to resume from

                                 id: 8
                                 data: {"jsonrpc": "2.0", "method": "notifications/progress", ...}

                                 id: 9
                                 data: {"jsonrpc": "2.0", "id": 2, "result": {...}}

    POST /mcp  a notification, or our answer to a server's request
      -> 202 Accepted            (no body)

An event stream lets the server speak before it answers: progress notifications, and
requests of its own (a ping) that we answer with POSTs of our own. Each stream is read
on a thread of its own, so send() returns once the headers are in and a long tool call
does not hold the caller. A JSON body is handed on before send() returns; a server that
answers in JSON sends its headers with the answer, so there send() waits for it (up to
the timeout, or until close()).

The rest is a few headers and rules:

- `Mcp-Session-Id`: the server may hand one out with its answer to initialize; we send
  it on every later request. A 404 to it (a 400 from the official TypeScript servers)
  means the server forgot the session: SessionExpired tells the client to initialize
  again.
- `MCP-Protocol-Version`: the version initialize agreed, on every later request.
- A stream cut before its answer arrived is resumed: a GET with `Last-Event-ID` (the
  last event id we got) asks the server to replay what followed. Without an id, or
  when resuming fails, the request gets an error answer at once, so whoever waits for
  it stops waiting (http_stream.py follows a stream).
- A redirect is followed, but the configured headers (a token, an API key) stay with
  their origin: a 307 to another scheme, host or port arrives without them (requests
  itself drops only `Authorization`).
- Everything is bounded: a body or event over 16 MB breaks the transport for good;
  every wait has a timeout; close() ends every read at once (the sockets are shut
  down: see http/transport.py), then DELETEs the session.

Left out: OAuth (a bearer token goes in the configured headers), the standalone GET
stream a server may offer for messages unrelated to any request (servers send what
matters on the POST's stream), and the legacy HTTP+SSE transport of 2024, which is
refused with a line saying so: a URL ending in /sse, or a URL that answers a POST made
before any session with 400, 404 or 405 while a GET on it opens an event stream whose
first event is `endpoint` (where that transport tells clients to POST).
"""

import threading
import urllib.parse
from typing import Dict, Optional, Set

import requests
from requests.structures import CaseInsensitiveDict

from ..http.errors import Aborted, connection_reason, server_message, unreachable
from ..http.transport import BackgroundRequest, StreamError, iter_body
from .http_stream import MAX_MESSAGE_BYTES, ResponseStream, TooLarge, excerpt, parse_messages
from .http_stream import read_events
from .transport import SessionExpired, Transport, TransportClosed

MAX_ERROR_BYTES = 64 * 1024  # of an error body, worth reading for its message
CONNECT_TIMEOUT = 10.0
LEGACY_PROBE_TIMEOUT = 5.0  # the GET that asks whether a failed URL is a legacy server
CLOSE_TIMEOUT = 1.5  # the DELETE is a courtesy to the server: not worth a longer wait
BOTH_KINDS = "application/json, text/event-stream"
EVENT_STREAM = "text/event-stream"
LEGACY_SSE = ("the server speaks the legacy SSE transport, which miniagent does not "
              "support; use its streamable HTTP endpoint (often /mcp)")


class HttpTransport(Transport):
    """The streamable HTTP transport: one requests.Session, one thread per event stream."""

    def __init__(self, url: str, headers: Dict[str, str], timeout: float = 60.0):
        self.url = url
        self.headers = dict(headers)
        self.timeout = timeout  # seconds any read may wait for data
        self._http = OriginBoundSession(self.headers)
        self._session_id: Optional[str] = None
        self._closed = threading.Event()  # set by close(): ends every wait
        self._failure: Optional[str] = None  # why the transport broke for good
        self._lock = threading.Lock()
        self._streams: Set[ResponseStream] = set()
        # on_message sees one message at a time; re-entrant, so that a handler that
        # answers a server's request with send() from inside on_message cannot deadlock.
        self._delivering = threading.RLock()

    # --- The Transport contract ----------------------------------------------------------

    def start(self) -> None:
        """Nothing to open (each message is a request of its own); a URL that names the
        legacy SSE transport is refused before anything is sent."""
        if urllib.parse.urlsplit(self.url).path.rstrip("/").endswith("/sse"):
            raise TransportClosed(LEGACY_SSE)

    def send(self, message: dict) -> None:
        """POST one message; returns once the headers are in (a JSON body delivered).
        Raises SessionExpired for a 404 on our session, TransportClosed otherwise."""
        if self._closed.is_set() or self._failure:
            raise TransportClosed(self._failure or "the connection was closed")
        method = message.get("method")
        if method == "notifications/cancelled":  # nobody waits for that answer now
            self._stop_stream((message.get("params") or {}).get("requestId"))
        headers = self._headers(BOTH_KINDS)
        headers["Content-Type"] = "application/json"
        response = self._request("POST", headers, message, self.timeout, self._closed)
        self._check_status(response)
        if content_type(response) == EVENT_STREAM:
            request_id = message.get("id") if method else None  # (our answers have ids too)
            self._follow_in_background(response, request_id)
        else:
            self._deliver_body(response)

    def close(self) -> None:
        """Stop every stream, then DELETE the session (405 and failures ignored: the
        server may not allow it, and we are leaving anyway). Idempotent; on_closed is
        not called, the closing being ours."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
        self._stop_all_streams()
        if self._session_id:
            headers = self._headers(BOTH_KINDS)
            try:
                self._http.delete(self.url, headers=headers, timeout=CLOSE_TIMEOUT,
                                  stream=True).close()
            except requests.RequestException:
                pass
        self._http.close()

    def describe(self) -> str:
        """The URL without what may be a secret.

        Example: "https://me:pw@example.com/mcp?key=k" -> "https://example.com/mcp"
        """
        parts = urllib.parse.urlsplit(self.url)
        host = parts.netloc.rpartition("@")[2]
        return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))

    # --- Requests and their status ---------------------------------------------------------

    def _headers(self, accept: str) -> CaseInsensitiveDict:
        """The configured headers, and what the protocol adds once it has it."""
        headers = CaseInsensitiveDict(self.headers)
        headers["Accept"] = accept
        if self._session_id:
            headers["Mcp-Session-Id"] = self._session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def _request(self, method: str, headers, body: Optional[dict], timeout: float,
                 stop: threading.Event) -> requests.Response:
        """One request, its wait for the status line cut short by `stop`; every way it
        can fail is a TransportClosed with one line."""
        url = self.describe()
        try:
            exchange = BackgroundRequest(self._http, method, self.url, headers, body,
                                         (CONNECT_TIMEOUT, timeout))
            return exchange.result(stop)
        except Aborted:
            raise TransportClosed("the connection was closed") from None
        except requests.ConnectTimeout:
            reason = f"no answer within {CONNECT_TIMEOUT:g} s"
            raise TransportClosed(unreachable(url, reason)) from None
        except requests.Timeout:
            raise TransportClosed(f"no answer from {url} within {timeout:g} s") from None
        except requests.ConnectionError as exc:
            raise TransportClosed(unreachable(url, connection_reason(exc))) from None
        except (requests.RequestException, ValueError) as exc:
            # A malformed URL, a header value HTTP cannot carry: nothing was sent.
            raise TransportClosed(f"the request could not be sent: {excerpt(str(exc))}") from None

    def _check_status(self, response: requests.Response) -> None:
        """Remember the session id of a success; raise for every other status."""
        status = response.status_code
        if 200 <= status < 300:
            self._session_id = response.headers.get("Mcp-Session-Id") or self._session_id
            return
        try:
            body = self._read_body(response, MAX_ERROR_BYTES)
        except TransportClosed:
            body = b""  # the status alone says enough
        # The spec says 404; the official TypeScript servers (server-everything) answer a
        # session they no longer know with 400 "No valid session ID provided".
        if status in (404, 400) and self._session_id:
            self._session_id = None
            raise SessionExpired(f"the server ended the session ({status})")
        if status in (400, 404, 405) and not self._session_id and self._speaks_legacy_sse():
            raise TransportClosed(LEGACY_SSE)
        raise TransportClosed(status_message(status, body, self.describe()))

    def _speaks_legacy_sse(self) -> bool:
        """The 2024 transport's sign: a GET on the URL opens an event stream whose first
        event is `endpoint`. Asked only after a POST failed with no session yet."""
        headers = self._headers(EVENT_STREAM)
        try:
            response = self._request("GET", headers, None, LEGACY_PROBE_TIMEOUT, self._closed)
        except TransportClosed:
            return False
        if response.status_code != 200 or content_type(response) != EVENT_STREAM:
            response.close()
            return False
        events = read_events(response, self._closed, MAX_ERROR_BYTES)
        try:
            return next(events).event == "endpoint"
        except (StopIteration, StreamError, Aborted, TooLarge):
            return False
        finally:
            events.close()

    # --- Bodies: JSON at once, event streams on a thread -----------------------------------

    def _read_body(self, response: requests.Response, limit: int) -> bytes:
        """At most limit + 1 bytes of the body (one more tells a body over the limit)."""
        body = bytearray()
        chunks = iter_body(response, self._closed)
        try:
            for chunk in chunks:
                body += chunk
                if len(body) > limit:
                    break
        except Aborted:
            raise TransportClosed("the connection was closed") from None
        except StreamError as exc:
            raise TransportClosed(f"reading the answer failed: {exc}") from None
        finally:
            chunks.close()
        return bytes(body[: limit + 1])

    def _deliver_body(self, response: requests.Response) -> None:
        body = self._read_body(response, MAX_MESSAGE_BYTES)
        if len(body) > MAX_MESSAGE_BYTES:
            raise self._fail(f"the server sent a JSON body over {MAX_MESSAGE_BYTES >> 20} MB")
        if not body.strip():
            return  # 202 Accepted: nothing to deliver
        try:
            messages = parse_messages(body)
        except ValueError as exc:
            raise TransportClosed(str(exc)) from None
        for message in messages:
            self._deliver(message)

    def _follow_in_background(self, response: requests.Response, request_id) -> None:
        stream = ResponseStream(request_id, self._deliver, self._resume, self._fail)
        with self._lock:
            self._streams.add(stream)
        thread = threading.Thread(target=self._follow, args=(stream, response),
                                  name="mcp-http-stream", daemon=True)
        thread.start()

    def _follow(self, stream: ResponseStream, response: requests.Response) -> None:
        try:
            stream.follow(response)
        finally:
            with self._lock:
                self._streams.discard(stream)

    def _resume(self, last_id: str, stop: threading.Event) -> Optional[requests.Response]:
        """GET a stream again from after its event `last_id`; None when that fails."""
        headers = self._headers(EVENT_STREAM)
        headers["Last-Event-ID"] = last_id
        try:
            response = self._request("GET", headers, None, self.timeout, stop)
        except TransportClosed:
            return None
        if response.status_code == 200 and content_type(response) == EVENT_STREAM:
            return response
        response.close()
        return None

    # --- Delivery and endings ----------------------------------------------------------------

    def _deliver(self, message: dict) -> None:
        with self._delivering:
            self.on_message(message)

    def _stop_stream(self, request_id) -> None:
        with self._lock:
            for stream in self._streams:
                if request_id is not None and stream.request_id == request_id:
                    stream.stop.set()

    def _stop_all_streams(self) -> None:
        with self._lock:
            for stream in self._streams:
                stream.stop.set()

    def _fail(self, reason: str) -> TransportClosed:
        """The server broke the transport for good: stop everything, tell on_closed once."""
        with self._lock:
            first = self._failure is None
            self._failure = self._failure or reason
        self._stop_all_streams()
        if first:
            self.on_closed(reason)
        return TransportClosed(reason)


class OriginBoundSession(requests.Session):
    """A requests.Session that sends the configured headers to their own origin only."""

    def __init__(self, configured: Dict[str, str]):
        super().__init__()
        self.configured = list(configured)

    def rebuild_auth(self, prepared, response) -> None:
        """Called by requests for each redirect it follows, before the next request."""
        super().rebuild_auth(prepared, response)
        if origin(response.request.url) != origin(prepared.url):
            for name in self.configured:
                prepared.headers.pop(name, None)


def origin(url: str) -> tuple:
    """Example: "https://h.example/mcp?x=1" -> ("https", "h.example", 443)."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme)


def content_type(response: requests.Response) -> str:
    """Example: "text/event-stream; charset=utf-8" -> "text/event-stream"."""
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


def status_message(status: int, body: bytes, url: str) -> str:
    """One line for a status we cannot go on from.

    Examples:
        500, b'{"error": {"message": "boom"}}' -> "HTTP 500 from https://h/mcp: boom"
        401, b"Unauthorized" -> "HTTP 401 from https://h/mcp: Unauthorized; check the
                                 headers (a bearer token?); OAuth sign-in is not supported"
    """
    line = f"HTTP {status} from {url}"
    text = body.decode("utf-8", errors="replace").strip()
    if text:
        line += ": " + excerpt(server_message(text))
    if status in (401, 403):
        line += "; check the headers (a bearer token?); OAuth sign-in is not supported"
    return line
