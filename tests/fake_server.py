"""A scripted model server for tests: real HTTP on 127.0.0.1, both wire protocols.

The providers and the HTTP layer are tested against real sockets, not mocks, so that
chunked transfer encoding, keep-alive, resets and stalls behave as they do in the
wild. The server plays the scripted-model script format (providers/scripted.py): a list of turns
or {"turns": [...]}, one turn per POST, served in order:

    {"content": [{"type": "text", "text": "Hi"},
                 {"type": "thinking", "thinking": "hmm"},
                 {"type": "toolCall", "name": "read", "arguments": {"path": "a.py"}}],
     "stopReason"?: "stop" | "length" | "toolUse", "errorMessage"?: "...",
     "usage"?: {"input", "output", "cacheRead", "cacheWrite"}, "delayMs"?: 5}

A POST to .../chat/completions gets an OpenAI Chat Completions stream, a POST to
.../v1/messages an Anthropic Messages stream. GET /v1/models and /api/tags (Ollama)
list one model. Running out of turns is an HTTP 500 that says so. The window probe's
questions (models/window.py) get 404s, or with FakeServer(turns, window=N) a llama.cpp
/props that serves N tokens (FakeServer(turns, props={...}): that /props body).

A turn may carry a "fault" instead of, or on top of, its content:

    {"status": 429, "headers": {"retry-after": "1"}, "body": {...} | "text"}
                                         answer with that status (the turn is used up)
    {"raw": "latin-1 text", "status"?: 200, "headers"?: {...}}   replay bytes verbatim
                                         (see turn_from_capture; "raw_base64" also works)
    {"reset_after_bytes": N}             send N body bytes, then reset the connection
    {"reset_before_headers": true}       reset the connection before the status line
    {"stall_seconds": S, "stall_after_bytes"?: N}   go silent after the headers and N
                                         body bytes (a stall ends at server shutdown)
    {"stall_seconds": S, "before_headers": true}    go silent before the status line
    {"hold_after_pieces": N}             send N events, then wait for `srv.go_on.set()`;
                                         a client that hangs up meanwhile sets `srv.hung_up`
    {"malformed": true}                  a chunk with broken JSON early in the stream
    {"in_band_error": {"type", "message"}}   end with an error chunk / `event: error`
    {"no_done": true}                    end without [DONE] / message_stop
    {"truncate": "before_finish"}        end before the finish reason / message_delta
    {"line_ending": "\\r" | "\\r\\n"}       SSE line ends (default "\\n")
    {"chunk_size": 1}                    at most N bytes per HTTP chunk (default: an event)

A sub-agent's turns can be scripted apart from its parent's (children run side by
side, so one list in order could not say whose turn comes next):

    {"turns": [...the parent's...],
     "children": {"List the TODOs": [...turns...], "Check the tests": [...]}}

A request whose first user message contains a key of "children" takes the next turn
of that child's list; any other request takes the next of "turns".

Usage: with FakeServer(turns) as srv: srv.base_url ...; srv.requests holds one
{"path", "headers" (lower-case names), "body", "client" (host, port)} per POST
received (the client's port tells whether a connection was kept alive); the GETs and
Ollama's POST /api/show, which ask about the server rather than send the agent's
requests, are kept apart in srv.questions as "GET /props", "POST /api/show" ...
"""

import base64
import json
import select
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from miniagent.core.provider import with_tool_use
from miniagent.core.sse import iter_sse

MODEL = "fake-model"
PIECE = 8  # characters per streamed text / argument delta


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-reply is what the fault tests are about: no traceback
    on stderr for it (the CLI runs in this process, and stderr is what the tests read)."""

    def handle_error(self, request, client_address):
        pass


class LocalServer:
    """An HTTP server on 127.0.0.1 with one thread per connection, serving while it is
    used as a context manager (the scripted model below, tests/mcp's MCP server)."""

    def __init__(self, handler):
        self.stopping = threading.Event()  # ends stalls, holds and delays at shutdown
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True  # a stalled handler never blocks shutdown

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self):
        # A short poll interval keeps shutdown (which waits for the next poll) fast.
        threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc_info):
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


class FakeServer(LocalServer):
    """The scripted model server, started and stopped as a context manager."""

    def __init__(self, script, window=None, props=None):
        super().__init__(_Handler)
        self.turns = script["turns"] if isinstance(script, dict) else list(script)
        self.children = {key: list(turns) for key, turns in
                         (script.get("children", {}) if isinstance(script, dict) else {}).items()}
        self.window = window  # the n_ctx GET /props answers with; None: a 404
        self.props = props  # a whole /props body to answer with instead (a dict)
        self.requests = []
        self.questions = []  # "GET /props": what was asked about the server
        self.go_on = threading.Event()  # ends a hold_after_pieces fault
        self.hung_up = threading.Event()  # the client closed a held connection
        self._next_turn = 0
        self._lock = threading.Condition()
        self._httpd.fake = self

    @property
    def base_url(self) -> str:
        return self.root

    def wait_for_requests(self, count: int, timeout: float = 60) -> bool:
        """Block until `count` requests arrived (True) or the timeout passed."""
        with self._lock:
            return self._lock.wait_for(lambda: len(self.requests) >= count, timeout)

    def record(self, request: dict):
        with self._lock:
            self.requests.append(request)
            self._lock.notify_all()

    def take_turn(self, request=None):
        """The next turn of the script (of the child the request is from, if any), or
        None when it is used up."""
        with self._lock:
            first = first_user_text(request)
            child = next((key for key in self.children if key in first), None)
            if child is not None:
                turns = self.children[child]
                return turns.pop(0) if turns else None
            if self._next_turn >= len(self.turns):
                return None
            self._next_turn += 1
            return self.turns[self._next_turn - 1]


def first_user_text(request) -> str:
    """The text of a request's first user message, in either wire protocol ("" if none)."""
    messages = request.get("messages", []) if isinstance(request, dict) else []
    user = next((m for m in messages if isinstance(m, dict) and m.get("role") == "user"), {})
    content = user.get("content", "")
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def turn_from_capture(body_path) -> dict:
    """A turn replaying a captured response: capture-NAME.txt is the body, and
    capture-NAME.headers.txt the status line and headers."""
    body_path = Path(body_path)
    head = body_path.with_name(body_path.name[: -len(".txt")] + ".headers.txt").read_text()
    status_line, *header_lines = [line for line in head.splitlines() if line.strip()]
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        # The server does its own framing (chunked, keep-alive): drop the capture's.
        if name.lower() not in ("content-length", "transfer-encoding", "connection", "keep-alive"):
            headers[name] = value.strip()
    raw = body_path.read_bytes().decode("latin-1")
    return {"fault": {"raw": raw, "status": int(status_line.split()[1]), "headers": headers}}


# --- Turns and a client for the HTTP-layer tests (test_retry, test_transport, ...) --------

HELLO = {"content": [{"type": "text", "text": "Hello from the fake server"}]}


def status(code, headers=None, body=None) -> dict:
    """A turn answered with that status (and headers, and a JSON or text body)."""
    fault = {"status": code, "headers": headers or {}}
    if body is not None:
        fault["body"] = body
    return {"fault": fault}


def abort_when(srv, requests_seen) -> threading.Event:
    """An abort event that gets set once the server has seen that many requests."""
    abort = threading.Event()

    def watch():
        srv.wait_for_requests(requests_seen)
        abort.set()

    threading.Thread(target=watch, daemon=True).start()
    return abort


def chat(srv, abort=None, **kwargs):
    """POST to the server's OpenAI endpoint with the real transport: the response, or
    the exception."""
    from miniagent.http.transport import post_stream  # here: the core's tests never load it
    url = srv.base_url + "/v1/chat/completions"
    return post_stream(url, {"Authorization": "Bearer k"}, {"model": "m", "stream": True},
                       abort or threading.Event(), **kwargs)


def read_text(response, abort=None) -> str:
    """The concatenated content deltas of an OpenAI stream."""
    from miniagent.http.transport import iter_body
    text = ""
    for event in iter_sse(iter_body(response, abort or threading.Event())):
        if event.data != "[DONE]":
            for choice in json.loads(event.data).get("choices", []):
                text += choice["delta"].get("content") or ""
    return text


# --- The script's turn as the events of either protocol ----------------------------------
# Each builder returns (body, closing): lists of (event name or None, data text). The
# closing part (finish reason, usage, [DONE] / message_delta, message_stop) is kept
# apart so the faults can cut or replace it.


def _pieces(text: str):
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


def _stop_reason(turn) -> str:
    return with_tool_use(turn.get("stopReason") or "stop", turn.get("content", []))


def _usage(turn) -> dict:
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0}
    usage.update(turn.get("usage") or {})
    return usage


def openai_events(turn, request):
    model = request.get("model") or MODEL
    head = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}

    def chunk(delta, finish=None):
        return None, json.dumps({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    body = [chunk({"role": "assistant", "content": ""})]
    calls = 0
    for block in turn.get("content", []):
        if block["type"] == "text":
            body += [chunk({"content": piece}) for piece in _pieces(block["text"])]
        elif block["type"] == "thinking":
            body += [chunk({"reasoning_content": piece}) for piece in _pieces(block["thinking"])]
        elif block["type"] == "toolCall":
            call_id = block.get("id") or f"call_fake_{calls}"
            opening = {"index": calls, "id": call_id, "type": "function",
                       "function": {"name": block["name"], "arguments": ""}}
            body.append(chunk({"tool_calls": [opening]}))
            for piece in _pieces(json.dumps(block.get("arguments", {}))):
                body.append(chunk({"tool_calls": [{"index": calls, "function": {"arguments": piece}}]}))
            calls += 1
    if turn.get("errorMessage"):
        return body, [_openai_error({"message": turn["errorMessage"], "type": "server_error"})]
    finish = {"stop": "stop", "length": "length", "toolUse": "tool_calls"}[_stop_reason(turn)]
    closing = [chunk({}, finish)]
    if (request.get("stream_options") or {}).get("include_usage"):
        u = _usage(turn)
        usage = {"prompt_tokens": u["input"] + u["cacheRead"], "completion_tokens": u["output"],
                 "total_tokens": u["input"] + u["cacheRead"] + u["output"],
                 "prompt_tokens_details": {"cached_tokens": u["cacheRead"]}}
        closing.append((None, json.dumps({**head, "choices": [], "usage": usage})))
    closing.append((None, "[DONE]"))
    return body, closing


def _openai_error(error):
    return None, json.dumps({"error": error})


def anthropic_events(turn, request):
    u = _usage(turn)

    def event(name, **fields):
        return name, json.dumps({"type": name, **fields})

    message = {"id": "msg_fake", "type": "message", "role": "assistant",
               "model": request.get("model") or MODEL, "content": [], "stop_reason": None,
               "stop_sequence": None,
               "usage": {"input_tokens": u["input"], "cache_read_input_tokens": u["cacheRead"],
                         "cache_creation_input_tokens": u["cacheWrite"], "output_tokens": 1}}
    body = [event("message_start", message=message), event("ping")]
    for index, block in enumerate(turn.get("content", [])):
        start, deltas = _anthropic_block(index, block)
        body.append(event("content_block_start", index=index, content_block=start))
        body += [event("content_block_delta", index=index, delta=delta) for delta in deltas]
        body.append(event("content_block_stop", index=index))
    if turn.get("errorMessage"):
        return body, [_anthropic_error({"type": "api_error", "message": turn["errorMessage"]})]
    reason = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}[_stop_reason(turn)]
    closing = [event("message_delta", delta={"stop_reason": reason, "stop_sequence": None},
                     usage={"output_tokens": u["output"]}),
               event("message_stop")]
    return body, closing


def _anthropic_block(index, block):
    """(content_block_start's block, the deltas) for one script block."""
    if block["type"] == "text":
        return {"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in _pieces(block["text"])]
    if block["type"] == "thinking" and block.get("redacted"):
        return {"type": "redacted_thinking", "data": block.get("thinkingSignature", "")}, []
    if block["type"] == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"])]
        signature = block.get("thinkingSignature") or f"sig-fake-{index}"
        return {"type": "thinking", "thinking": "", "signature": ""}, deltas + [
            {"type": "signature_delta", "signature": signature}]
    start = {"type": "tool_use", "id": block.get("id") or f"toolu_fake_{index}",
             "name": block["name"], "input": {}}
    arguments = _pieces(json.dumps(block.get("arguments", {})))
    # Real streams often open a tool block with an empty fragment.
    return start, [{"type": "input_json_delta", "partial_json": p} for p in [""] + arguments]


def _anthropic_error(error):
    return "error", json.dumps({"type": "error", "error": error})


PROTOCOLS = {  # path suffix -> (events builder, in-band error event, malformed chunk)
    "/chat/completions": (openai_events, _openai_error, (None, '{"choices": [{"delta": {"content": "x')),
    "/v1/messages": (anthropic_events, _anthropic_error,
                     ("content_block_delta", '{"type": "content_block_delta", "index": 0, "delta": {')),
}


def stream_pieces(turn, request, protocol, fault) -> list:
    """The turn's SSE stream as bytes, one piece per event, faults applied."""
    build, error_event, malformed = protocol
    body, closing = build(turn, request)
    if fault.get("malformed"):
        body.insert(1, malformed)
    if fault.get("in_band_error"):
        closing = [error_event(fault["in_band_error"])]
    if fault.get("no_done"):
        closing = closing[:-1]
    if fault.get("truncate") == "before_finish":
        closing = []
    end = fault.get("line_ending", "\n")
    pieces = []
    for name, data in body + closing:
        lines = ([f"event: {name}"] if name else []) + [f"data: {data}"]
        pieces.append((end.join(lines) + end + end).encode("utf-8"))
    return pieces


# --- HTTP ----------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked encoding and keep-alive
    disable_nagle_algorithm = True  # tiny chunks must leave at once

    def log_message(self, format, *args):
        pass  # keep test output clean

    def do_GET(self):
        fake = self.server.fake
        fake.questions.append(f"GET {self.path}")
        if self.path == "/props" and fake.props:
            self._send_json(200, fake.props)
        elif self.path == "/props" and fake.window:
            self._send_json(200, {"default_generation_settings": {"n_ctx": fake.window}})
        elif self.path.endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "fake"}]})
        elif self.path.endswith("/api/tags"):
            self._send_json(200, {"models": [{"name": MODEL, "model": MODEL}]})
        else:
            self._send_json(404, {"error": {"message": f"no route for GET {self.path}"}})

    def do_POST(self):
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.endswith("/api/show"):  # Ollama's model facts: the window probe asks,
            # kept apart like a GET, so srv.requests counts what the agent sent
            fake.questions.append(f"POST {self.path}")
            return self._send_json(404, {"error": f"no route for POST {self.path}"})
        try:
            request = json.loads(raw)
        except ValueError:
            request = raw.decode("utf-8", errors="replace")
        fake.record({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                     "body": request, "client": self.client_address})
        protocol = next((p for suffix, p in PROTOCOLS.items() if self.path.endswith(suffix)), None)
        if protocol is None:
            return self._send_json(404, {"error": {"message": f"no route for POST {self.path}"}})
        turn = fake.take_turn(request)
        if turn is None:
            message = f"fake server: the script has no turn left ({len(fake.turns)} turns, all served)"
            return self._send_json(500, {"type": "error", "error": {"type": "api_error", "message": message}})
        fault = turn.get("fault") or {}
        try:
            self._answer(turn, request if isinstance(request, dict) else {}, protocol, fault)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away (an abort, a test ending)

    def _answer(self, turn, request, protocol, fault):
        if fault.get("reset_before_headers"):
            return self._reset()
        if fault.get("before_headers") and self.server.fake.stopping.wait(fault.get("stall_seconds", 0)):
            self.close_connection = True
            return
        if "raw" in fault or "raw_base64" in fault:
            raw = fault["raw"].encode("latin-1") if "raw" in fault else base64.b64decode(fault["raw_base64"])
            headers = fault.get("headers") or {"Content-Type": "text/event-stream"}
            return self._send_chunked(fault.get("status", 200), headers, [raw], fault, 0)
        if "status" in fault:
            body = fault.get("body", {"error": {"message": f"fake error {fault['status']}"}})
            return self._send_json(fault["status"], body, fault.get("headers"))
        pieces = stream_pieces(turn, request, protocol, fault)
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        headers.update(fault.get("headers") or {})
        self._send_chunked(200, headers, pieces, fault, turn.get("delayMs", 0) / 1000)

    def _send_json(self, status, body, headers=None):
        data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_chunked(self, status, headers, pieces, fault, delay):
        """Send the pieces as HTTP chunks, or re-cut into chunk_size bytes each, with
        `delay` seconds before each and the stall or reset the fault asks for."""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        size = fault.get("chunk_size")
        if size:
            data = b"".join(pieces)
            pieces = [data[i : i + size] for i in range(0, len(data), size)]
        sent = 0
        stall_at = fault.get("stall_after_bytes", 0) if "stall_seconds" in fault else None
        reset_at = fault.get("reset_after_bytes")
        for index, piece in enumerate(pieces):
            if index == fault.get("hold_after_pieces") and not self._hold():
                return
            if stall_at is not None and sent >= stall_at:
                stall_at = None
                if self.server.fake.stopping.wait(fault["stall_seconds"]):
                    self.close_connection = True
                    return
            if reset_at is not None and sent + len(piece) >= reset_at:
                self._write_chunk(piece[: reset_at - sent])
                return self._reset()
            if delay and self.server.fake.stopping.wait(delay):
                return
            self._write_chunk(piece)
            sent += len(piece)
        self.wfile.write(b"0\r\n\r\n")

    def _hold(self) -> bool:
        """Wait for the test's go_on; False if the client hung up first (or shutdown)."""
        fake = self.server.fake
        while not fake.go_on.wait(0.01):
            if fake.stopping.is_set() or self._client_left():
                fake.hung_up.set()
                self.close_connection = True
                return False
        return True

    def _client_left(self) -> bool:
        if not select.select([self.connection], [], [], 0)[0]:
            return False
        try:
            return not self.connection.recv(1, socket.MSG_PEEK)  # b"": the client closed
        except OSError:  # reset
            return True

    def _write_chunk(self, piece: bytes):
        if piece:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))

    def _reset(self):
        """Close with SO_LINGER 0: the kernel sends RST, the client sees a reset."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

