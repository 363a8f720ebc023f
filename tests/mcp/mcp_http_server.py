"""A scripted streamable-HTTP MCP server for tests: real HTTP on 127.0.0.1, with faults.

The HTTP transport (miniagent/mcp/http.py) is tested against real sockets, as the
providers are against tests/fake_server.py: chunked event streams, connections cut or
reset, stalls. One URL, http://127.0.0.1:PORT/mcp, answers as an MCP server does:

    POST a request       -> its answer, as JSON or as an SSE stream (knob `sse`)
    POST a notification  -> 202 Accepted (also our answers to its requests)
    GET + Last-Event-ID  -> the rest of a cut stream, replayed after that event
    DELETE               -> the session ends

It knows four methods: initialize (hands out a session id, "s-1", "s-2", ... unless
`session=False`), tools/list (one tool, echo), tools/call (echo's answer, "Echo: <message>"),
ping; any other is a JSON-RPC error -32601.

Knobs (keyword arguments, fixed for the server's life):

    sse=True | {"tools/call"}    answer every request (or those methods) as SSE, else JSON
    event_ids=True               events carry ids, after a priming event (an id, no data)
    retry_ms=N                   the priming event carries `retry: N`
    cut_after=N                  end a POST's stream after N events (priming included);
                                 the resuming GET serves the rest
    cut_how="end" | "reset"      end the chunked body cleanly, or reset the connection
    resume_status=405            answer a resuming GET with that status instead
    progress=N                   N notifications/progress before an SSE answer
    server_request={...}         a request of the server's (ping) sent on the stream
                                 first; the answer waits until ours has been POSTed
    hold=True                    hold an SSE answer until `srv.go_on.set()`, sending
                                 keep-alive comments (`srv.hung_up` is set if we hang up)
    stall_before_headers=S       say nothing for S seconds (ends at shutdown)
    status=401, body="..."       answer every POST with that status and body
    redirect=(307, URL)          answer a POST to /mcp with that status and Location: URL
    batch=True                   a JSON answer is a batch: [a log notification, the answer]
    huge_mb=N                    the answer is an SSE event / a JSON body of N MB
    malformed=True               the answer is not JSON
    delete_status=405            how a DELETE is answered (default 200)
    legacy=True                  the 2024 HTTP+SSE transport: POST is 405, GET opens a
                                 stream whose first event is `endpoint`

`srv.requests` holds one {"method", "path", "headers" (lower-case names), "body"} per
request; `srv.wait_for(predicate)` waits until a recorded request satisfies it.
`srv.expire_session()` forgets the session: requests carrying its id get 404.
"""

import json
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler

from fake_server import LocalServer

ECHO_TOOL = {"name": "echo", "description": "Echoes the message back",
             "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                             "required": ["message"]}}


class McpHttpServer(LocalServer):
    """The server, started and stopped as a context manager; one thread per connection."""

    def __init__(self, **knobs):
        super().__init__(_Handler)
        self.knobs = knobs
        self.requests = []
        self.go_on = threading.Event()  # releases a held answer
        self.hung_up = threading.Event()  # the client hung up on a held stream
        self.session_id = None
        self._sessions = 0
        self._streams = {}  # stream number -> its events, (id, data) pairs
        self._lock = threading.Condition()
        self._httpd.mcp = self

    @property
    def url(self) -> str:
        return self.root + "/mcp"

    def record(self, request: dict) -> None:
        with self._lock:
            self.requests.append(request)
            self._lock.notify_all()

    def wait_for(self, predicate, timeout: float = 10) -> bool:
        """Block until a recorded request satisfies predicate(request) (True), or timeout."""
        with self._lock:
            return self._lock.wait_for(lambda: any(map(predicate, self.requests)), timeout)

    def of(self, method: str) -> list:
        """The recorded requests with that HTTP method."""
        with self._lock:
            return [r for r in self.requests if r["method"] == method]

    def new_session(self) -> str:
        with self._lock:
            self._sessions += 1
            self.session_id = f"s-{self._sessions}"
            return self.session_id

    def expire_session(self) -> None:
        self.session_id = None

    def open_stream(self, events) -> int:
        with self._lock:
            number = len(self._streams) + 1
            self._streams[number] = [(f"{number}-{index}", data) for index, data in
                                     enumerate(events)]
            return number

    def stream_events(self, number: int) -> list:
        with self._lock:
            return self._streams[number]


def answer_for(message: dict):
    """The result (or error) of one of the four methods."""
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        return {"result": {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                           "capabilities": {"tools": {}},
                           "serverInfo": {"name": "scripted-http", "version": "1.0"}}}
    if method == "tools/list":
        return {"result": {"tools": [ECHO_TOOL]}}
    if method == "tools/call":
        text = f"Echo: {(params.get('arguments') or {}).get('message')}"
        return {"result": {"content": [{"type": "text", "text": text}]}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked encoding and keep-alive
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    @property
    def mcp(self) -> McpHttpServer:
        return self.server.mcp

    def _record(self, body=None) -> None:
        headers = {name.lower(): value for name, value in self.headers.items()}
        self.mcp.record({"method": self.command, "path": self.path, "headers": headers,
                         "body": body})

    # --- The three methods ---------------------------------------------------------------

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            message = json.loads(raw)
        except ValueError:
            message = raw.decode("utf-8", errors="replace")
        self._record(message)
        knobs = self.mcp.knobs
        if knobs.get("stall_before_headers") and self.mcp.stopping.wait(knobs["stall_before_headers"]):
            return
        if knobs.get("legacy"):
            return self._send(405, "application/json", b'{"error": "use GET for the stream"}')
        if "redirect" in knobs and self.path == "/mcp":
            status, location = knobs["redirect"]
            return self._send(status, None, b"", {"Location": location})
        if "status" in knobs:
            return self._send(knobs["status"], "text/plain", knobs.get("body", "").encode())
        if not self._session_ok():
            return self._send(404, "application/json", b'{"error": "session not found"}')
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return self._send(202, None, b"")
        headers = {}
        if message["method"] == "initialize" and knobs.get("session", True):
            headers["Mcp-Session-Id"] = self.mcp.new_session()
        sse = knobs.get("sse", False)
        if sse is True or (isinstance(sse, (set, list)) and message["method"] in sse):
            self._answer_as_stream(message, headers)
        else:
            self._answer_as_json(message, headers)

    def do_GET(self):
        self._record()
        knobs = self.mcp.knobs
        if knobs.get("legacy"):
            self._start_stream(200, {})
            self._chunk(b"event: endpoint\ndata: /messages?sessionId=abc\n\n")
            return self._wait_for_go_on()
        if "resume_status" in knobs:
            return self._send(knobs["resume_status"], "text/plain", b"no resuming here")
        last_id = self.headers.get("Last-Event-ID", "")
        number, _, index = last_id.partition("-")
        if not self._session_ok() or not number.isdigit() or not index.isdigit():
            return self._send(400, "text/plain", b"GET needs a Last-Event-ID we sent")
        events = self.mcp.stream_events(int(number))[int(index) + 1 :]
        self._start_stream(200, {})
        self._send_events(events, cut_after=None)

    def do_DELETE(self):
        self._record()
        self._send(self.mcp.knobs.get("delete_status", 200), None, b"")

    def _session_ok(self) -> bool:
        sent = self.headers.get("Mcp-Session-Id")
        return sent is None or sent == self.mcp.session_id

    # --- Answers -----------------------------------------------------------------------------

    def _answer_as_json(self, message: dict, headers: dict):
        knobs = self.mcp.knobs
        if knobs.get("huge_mb"):
            body = b'{"jsonrpc": "2.0", "id": 1, "result": {"x": "' + b"x" * (knobs["huge_mb"] << 20) + b'"}}'
        elif knobs.get("malformed"):
            body = b'{"jsonrpc": "2.0", "id": '
        else:
            answer = {"jsonrpc": "2.0", "id": message["id"], **answer_for(message)}
            if knobs.get("batch"):  # a log line first, the answer second, in one list
                log = {"level": "info", "data": "working"}
                answer = [{"jsonrpc": "2.0", "method": "notifications/message", "params": log}, answer]
            body = json.dumps(answer).encode()
        self._send(200, "application/json", body, headers)

    def _answer_as_stream(self, message: dict, headers: dict):
        """The events of one answer: priming, the server's request, progress, the answer."""
        knobs = self.mcp.knobs
        events = [""] if knobs.get("event_ids", True) else []
        if knobs.get("server_request"):
            events.append(json.dumps(knobs["server_request"]))
        for step in range(knobs.get("progress", 0)):
            params = {"progressToken": message["id"], "progress": step + 1, "total": 10}
            events.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                      "params": params}))
        if knobs.get("malformed"):
            events.append('{"jsonrpc": "2.0", "id": ')
        else:
            events.append(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer_for(message)}))
        number = self.mcp.open_stream(events)
        self._start_stream(200, headers)
        if knobs.get("huge_mb"):
            return self._send_huge_event(knobs["huge_mb"])
        self._send_events(self.mcp.stream_events(number), knobs.get("cut_after"))

    def _send_events(self, events, cut_after):
        knobs = self.mcp.knobs
        for sent, (event_id, data) in enumerate(events):
            if sent == cut_after:
                return self._cut(knobs.get("cut_how", "end"))
            last = sent == len(events) - 1
            if last and knobs.get("hold") and not self._wait_for_go_on():
                return
            if last and knobs.get("server_request") and not self._wait_for_our_answer():
                return
            self._chunk(self._event(event_id, data))
        self._end_stream()

    def _event(self, event_id: str, data: str) -> bytes:
        lines = []
        if self.mcp.knobs.get("event_ids", True):
            lines.append(f"id: {event_id}")
            if data == "" and "retry_ms" in self.mcp.knobs:
                lines.append(f"retry: {self.mcp.knobs['retry_ms']}")
        lines.append(f"data: {data}")
        return ("\n".join(lines) + "\n\n").encode("utf-8")

    def _send_huge_event(self, megabytes: int):
        self._chunk(b"data: ")
        piece = b"x" * (1 << 20)
        try:
            for _ in range(megabytes):
                self._chunk(piece)
        except OSError:
            return  # the client gave up on it, as it should
        self._chunk(b"\n\n")
        self._end_stream()

    def _wait_for_our_answer(self) -> bool:
        """The server's request is answered by a POST of the client's own."""
        request_id = self.mcp.knobs["server_request"]["id"]

        def is_answer(request):
            body = request["body"]
            return isinstance(body, dict) and body.get("id") == request_id and "method" not in body

        return self.mcp.wait_for(is_answer)

    def _wait_for_go_on(self) -> bool:
        """Hold the answer until go_on; on a stream, keep-alive comments meanwhile show
        whether the client is still there (False: it hung up, or shutdown)."""
        while not self.mcp.go_on.wait(0.05):
            if self.mcp.stopping.is_set():
                return False
            if self._streaming:
                try:
                    self._chunk(b": keep-alive\n\n")
                except OSError:
                    self.mcp.hung_up.set()
                    self.close_connection = True
                    return False
        return True

    # --- Bytes on the wire -------------------------------------------------------------------

    _streaming = False

    def _send(self, status: int, content_type, body: bytes, headers=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _start_stream(self, status: int, headers: dict):
        self._streaming = True
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_stream(self):
        self.wfile.write(b"0\r\n\r\n")

    def _cut(self, how: str):
        if how == "reset":  # SO_LINGER 0: the kernel sends RST, the client sees a reset
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        else:  # a clean end, as a server that wants the client to come back does
            self._end_stream()
        self.close_connection = True
