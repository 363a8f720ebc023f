"""JSON-RPC 2.0: how a client matches answers to its questions, in both directions.

MCP speaks JSON-RPC 2.0. Three kinds of message travel, each a JSON object:

    {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}    a request
    {"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}                  its answer
    {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": ..}} or an error
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": ..}  a notification

A request carries an id and gets exactly one answer with the same id; a notification has
no id and gets none. Both sides may send requests: the server may ask us ("ping"), and
it tells us things by notification ("the tool list changed").

A Connection sits on top of one Transport. Its one rule: whoever asks waits, and the
transport's reader thread never does. The flow of a request:

    request()  --send-->  server                 the caller's thread registers a
       |                                         _Pending under a fresh id, sends,
       | waits on _Pending.answered              then waits for its Event
       v
    reader thread  --on_message-->  _deliver()   an answer: find the _Pending by id,
                                                 store the answer, set the Event

What the reader thread does with each message, so that it is never blocked:

    an answer           wakes the waiting request (an unknown id is ignored)
    progress            restarts the clock of the request whose token it names
    a notification      queued for one notification thread: handled in order
    a server request    answered on a thread of its own: a slow handler blocks nothing

A request ends in one of four ways: its answer (a result, or RpcError), RequestTimeout
(nothing heard for `timeout` seconds, or `max_total` passed), RequestAborted (the abort
Event was set), or TransportClosed (the server is gone). On a timeout or an abort we
tell the server with notifications/cancelled, so it can stop the work.

Left out: sending batches (we never need them; a batch that arrives is delivered item by
item by the transport), and string ids of our own (ours are integers from 1).
"""

import itertools
import queue
import threading
import time
from typing import Any, Callable, Dict, Optional

from .transport import Transport, TransportClosed

WAIT_STEP = 0.1
"""Longest single wait for an answer: how quickly an abort is noticed."""
INTERNAL_ERROR = -32603
MAX_SERVER_REQUESTS = 8
"""Server requests handled at once; more wait on the reader thread."""


class RpcError(Exception):
    """The other side answered with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"error {code}: {message}")
        self.code = code
        self.message = message
        self.data = data


class RequestTimeout(Exception):
    """No answer (nor progress) within the timeout, or the total time ran out."""


class RequestAborted(Exception):
    """The caller's abort Event was set while the request waited."""


class _Pending:
    """One request waiting for its answer."""

    def __init__(self, with_progress: bool,
                 on_progress: Optional[Callable[[dict], None]] = None) -> None:
        self.answered = threading.Event()  # set by the answer, or by the transport closing
        self.answer: Optional[dict] = None
        self.with_progress = with_progress
        self.on_progress = on_progress  # hears each progress notification's params
        self.failure: Optional[TransportClosed] = None  # the send failed: this, raised
        self.last_heard = time.monotonic()  # progress moves it forward


class Connection:
    """Requests, answers and notifications in both directions over one Transport."""

    def __init__(self, transport: Transport,
                 on_notification: Callable[[str, dict], None],
                 on_request: Callable[[str, dict], Any]) -> None:
        self.transport = transport
        self.on_notification = on_notification
        self.on_request = on_request  # returns a result dict, or raises RpcError
        self.closed_reason: Optional[str] = None
        self._ids = itertools.count(1)
        self._pending: Dict[int, _Pending] = {}
        self._lock = threading.Lock()
        self._notifications: "queue.Queue[Optional[dict]]" = queue.Queue()
        self._handlers = threading.BoundedSemaphore(MAX_SERVER_REQUESTS)
        transport.on_message = self._deliver
        transport.on_closed = self._closed

    def start(self) -> None:
        """Start the notification thread, then the transport (raises TransportClosed)."""
        threading.Thread(target=self._dispatch_notifications, daemon=True,
                         name="mcp-notifications").start()
        self.transport.start()

    # --- Asking ------------------------------------------------------------------------

    def request(self, method: str, params: Optional[dict] = None, *, timeout: float,
                abort: Optional[threading.Event] = None, max_total: Optional[float] = None,
                with_progress: bool = False,
                on_progress: Optional[Callable[[dict], None]] = None) -> dict:
        """Send a request and wait for its result (see the module docstring)."""
        pending = _Pending(with_progress, on_progress)
        with self._lock:
            if self.closed_reason is not None:
                raise TransportClosed(self.closed_reason)
            request_id = next(self._ids)
            self._pending[request_id] = pending
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None or with_progress:
            message["params"] = dict(params or {})
        if with_progress:
            # The request's own id is a fresh token: unique among the requests in flight.
            meta = dict(message["params"].get("_meta") or {}, progressToken=request_id)
            message["params"]["_meta"] = meta
        try:
            self._send_meanwhile(message, pending)
            self._wait(method, request_id, pending, timeout, abort, max_total)
        finally:
            with self._lock:
                del self._pending[request_id]
        return self._result_of(pending)

    def _send_meanwhile(self, message: dict, pending: _Pending) -> None:
        """Send on a thread of its own while the caller waits: over HTTP a send lasts
        until the server answers (a JSON answer comes with its headers), and the wait
        must watch the abort and the clock from the start. A failed send ends the wait
        at once, with its own error (SessionExpired stays itself)."""
        def failed(exc: TransportClosed) -> None:
            pending.failure = exc
            pending.answered.set()
        self._send_in_background(message, failed)

    def _send_in_background(self, message: dict,
                            on_failure: Callable[[TransportClosed], None]) -> None:
        def send() -> None:
            try:
                self.transport.send(message)
            except TransportClosed as exc:
                on_failure(exc)
        threading.Thread(target=send, daemon=True, name="mcp-send").start()

    def _wait(self, method: str, request_id: int, pending: _Pending, timeout: float,
              abort: Optional[threading.Event], max_total: Optional[float]) -> None:
        """Until the answer is in, or the caller gives up (then the server is told)."""
        started = time.monotonic()
        while not pending.answered.wait(WAIT_STEP):
            now = time.monotonic()
            if abort is not None and abort.is_set():
                self._cancel(method, request_id, "aborted by the user")
                raise RequestAborted(f"{method} was aborted")
            if max_total is not None and now - started >= max_total:
                self._cancel(method, request_id, "took too long")
                raise RequestTimeout(f"no answer within {max_total:g} s in total")
            if now - pending.last_heard >= timeout:
                self._cancel(method, request_id, "timed out")
                raise RequestTimeout(f"no answer within {timeout:g} s")

    def _cancel(self, method: str, request_id: int, reason: str) -> None:
        """Tell the server we gave up, without waiting for that send either (a stalled
        HTTP server would hold it too); a server already gone needs no telling."""
        # The spec forbids cancelling initialize: the session is abandoned instead.
        if method == "initialize":
            return
        message = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": request_id, "reason": reason}}
        self._send_in_background(message, lambda exc: None)

    def _result_of(self, pending: _Pending) -> dict:
        if pending.failure is not None:
            raise pending.failure
        answer = pending.answer
        if answer is None:  # woken by the transport closing, not by an answer
            raise TransportClosed(self.closed_reason or "closed")
        error = answer.get("error")
        if error is not None:
            if not isinstance(error, dict):
                raise RpcError(INTERNAL_ERROR, "the server sent an error that is not an object")
            code = error.get("code")
            raise RpcError(code if isinstance(code, int) else INTERNAL_ERROR,
                           str(error.get("message", "")), error.get("data"))
        result = answer.get("result")
        if not isinstance(result, dict):
            raise RpcError(INTERNAL_ERROR, "the server's result is not a JSON object")
        return result

    def notify(self, method: str, params: Optional[dict] = None) -> None:
        """Send a notification (no answer comes). Raises TransportClosed."""
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.transport.send(message)

    def close(self) -> None:
        """Close the transport; requests still waiting fail with TransportClosed."""
        self._closed("the connection was closed")
        self.transport.close()

    # --- What arrives (on the transport's thread) -----------------------------------------

    def _deliver(self, message: dict) -> None:
        """Route one message from the server; anything that is not JSON-RPC is ignored."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            # A server flooding us with requests waits here, not in a thousand threads.
            self._handlers.acquire()
            threading.Thread(target=self._answer_request, args=(message,), daemon=True,
                             name="mcp-server-request").start()
        elif isinstance(method, str):
            self._notified(method, message.get("params"))
        elif "result" in message or "error" in message:
            self._answered(message)

    def _answered(self, message: dict) -> None:
        request_id = message.get("id")
        with self._lock:
            pending = self._pending.get(request_id) if isinstance(request_id, int) else None
        if pending is None:
            return  # an answer to nothing we asked (or to a request we gave up on)
        pending.answer = message
        pending.answered.set()

    def _notified(self, method: str, params: Any) -> None:
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            with self._lock:
                pending = self._pending.get(token) if isinstance(token, int) else None
            if pending is not None and pending.with_progress:
                pending.last_heard = time.monotonic()  # the server is working: restart the clock
                if pending.on_progress is not None:
                    pending.on_progress(params)
            return
        self._notifications.put({"method": method, "params": params})

    def _dispatch_notifications(self) -> None:
        """The notification thread: one at a time, in the order they arrived."""
        while True:
            item = self._notifications.get()
            if item is None:  # the connection closed
                return
            self.on_notification(item["method"], item["params"])

    def _answer_request(self, message: dict) -> None:
        """A server request, on a thread of its own: on_request's result, or its error."""
        try:
            params = message.get("params")
            reply: Dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            try:
                reply["result"] = self.on_request(message["method"],
                                                  params if isinstance(params, dict) else {})
            except RpcError as exc:
                reply["error"] = {"code": exc.code, "message": exc.message}
            self.transport.send(reply)
        except TransportClosed:
            pass  # the server is gone; it no longer needs the answer
        finally:
            self._handlers.release()

    def _closed(self, reason: str) -> None:
        """The transport is gone: remember why (the first reason wins), wake every
        waiting request, stop the notification thread."""
        with self._lock:
            if self.closed_reason is not None:
                return
            self.closed_reason = reason
            waiting = list(self._pending.values())
        for pending in waiting:
            pending.answered.set()
        self._notifications.put(None)
