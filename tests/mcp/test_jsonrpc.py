"""The JSON-RPC Connection over an in-memory transport: answers matched to questions,
timeouts, progress, abort, cancellation, and what the server sends us."""

import queue
import threading
import time

import pytest

from miniagent.mcp.jsonrpc import Connection, RequestAborted, RequestTimeout, RpcError
from miniagent.mcp.transport import Transport, TransportClosed


class FakeTransport(Transport):
    """Records what the connection sends; the test plays the server with receive()."""

    def __init__(self):
        self.sent = queue.Queue()
        self.closed = False

    def start(self):
        pass

    def send(self, message):
        if self.closed:
            raise TransportClosed("gone")
        self.sent.put(message)

    def close(self):
        self.closed = True

    def describe(self):
        return "fake"

    def receive(self, message):
        self.on_message(message)  # as the transport's reader thread would

    def next_sent(self):
        return self.sent.get(timeout=5)


def connect(on_notification=lambda method, params: None, on_request=lambda method, params: {}):
    transport = FakeTransport()
    connection = Connection(transport, on_notification, on_request)
    connection.start()
    return transport, connection


def in_background(function, *args, **kwargs):
    """Run `function` on a thread; the returned queue gets its result or its exception."""
    outcome = queue.Queue()

    def run():
        try:
            outcome.put(function(*args, **kwargs))
        except Exception as exc:  # handed to the test to assert on
            outcome.put(exc)
    threading.Thread(target=run, daemon=True).start()
    return outcome


def answer(request_id, result):
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def test_answers_are_matched_to_their_requests_by_id_whatever_their_order():
    transport, connection = connect()
    first = in_background(connection.request, "a", timeout=5)
    sent_first = transport.next_sent()
    second = in_background(connection.request, "b", {"x": 1}, timeout=5)
    sent_second = transport.next_sent()
    assert (sent_first["id"], sent_second["id"]) == (1, 2)
    assert sent_second == {"jsonrpc": "2.0", "id": 2, "method": "b", "params": {"x": 1}}
    transport.receive(answer(2, {"for": "b"}))
    transport.receive(answer(1, {"for": "a"}))
    assert first.get(timeout=5) == {"for": "a"}
    assert second.get(timeout=5) == {"for": "b"}


def test_messages_that_are_not_json_rpc_answers_to_us_are_ignored():
    transport, connection = connect()
    outcome = in_background(connection.request, "a", timeout=5)
    request_id = transport.next_sent()["id"]
    transport.receive({"jsonrpc": "1.0", "id": request_id, "result": {"wrong": True}})
    transport.receive(answer(999, {"unknown": True}))
    transport.receive(42)
    transport.receive({"jsonrpc": "2.0", "id": request_id})  # neither result nor error
    transport.receive(answer(request_id, {"right": True}))
    assert outcome.get(timeout=5) == {"right": True}


def test_an_error_answer_raises_rpc_error_with_its_code_and_message():
    transport, connection = connect()
    outcome = in_background(connection.request, "tools/call", timeout=5)
    request_id = transport.next_sent()["id"]
    transport.receive({"jsonrpc": "2.0", "id": request_id,
                       "error": {"code": -32602, "message": "unknown tool", "data": [1]}})
    error = outcome.get(timeout=5)
    assert isinstance(error, RpcError)
    assert (error.code, error.message, error.data) == (-32602, "unknown tool", [1])


def test_a_result_that_is_not_an_object_is_an_error():
    transport, connection = connect()
    outcome = in_background(connection.request, "a", timeout=5)
    transport.receive(answer(transport.next_sent()["id"], [1, 2]))
    assert "not a JSON object" in str(outcome.get(timeout=5))


def test_no_answer_times_out_and_tells_the_server_the_request_is_cancelled():
    transport, connection = connect()
    started = time.monotonic()
    with pytest.raises(RequestTimeout, match="no answer within 0.3 s"):
        connection.request("tools/call", timeout=0.3)
    assert time.monotonic() - started < 3
    transport.next_sent()  # the request
    assert transport.next_sent() == {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": 1, "reason": "timed out"}}


def test_initialize_is_never_cancelled():
    transport, connection = connect()
    with pytest.raises(RequestTimeout):
        connection.request("initialize", {}, timeout=0.2)
    transport.next_sent()
    assert transport.sent.empty()


def test_progress_restarts_the_timeout_but_max_total_still_ends_the_request():
    transport, connection = connect()
    outcome = in_background(connection.request, "tools/call", {"name": "x"}, timeout=0.25,
                            max_total=30, with_progress=True)
    sent = transport.next_sent()
    token = sent["params"]["_meta"]["progressToken"]
    assert sent["params"]["name"] == "x"
    for step in range(6):  # 0.6 s of work, reported every 0.1 s: over two timeouts
        transport.receive({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": step}})
        time.sleep(0.1)  # the server working, not a wait for the connection
    transport.receive(answer(sent["id"], {"done": True}))
    assert outcome.get(timeout=5) == {"done": True}

    outcome = in_background(connection.request, "tools/call", timeout=0.25, max_total=0.5,
                            with_progress=True)
    token = transport.next_sent()["params"]["_meta"]["progressToken"]
    started = time.monotonic()
    while outcome.empty() and time.monotonic() - started < 10:
        transport.receive({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token, "progress": 1}})
        time.sleep(0.05)
    error = outcome.get(timeout=5)
    assert isinstance(error, RequestTimeout) and "0.5 s in total" in str(error)
    assert time.monotonic() - started < 5


def test_progress_for_another_token_does_not_keep_a_request_alive():
    transport, connection = connect()
    outcome = in_background(connection.request, "tools/call", timeout=0.5, with_progress=True)
    token = transport.next_sent()["params"]["_meta"]["progressToken"]
    started = time.monotonic()
    while outcome.empty() and time.monotonic() - started < 10:
        transport.receive({"jsonrpc": "2.0", "method": "notifications/progress",
                           "params": {"progressToken": token + 100, "progress": 1}})
        time.sleep(0.1)
    assert isinstance(outcome.get(timeout=5), RequestTimeout)
    assert time.monotonic() - started < 5


def test_abort_ends_the_request_at_once_and_cancels_it():
    transport, connection = connect()
    abort = threading.Event()
    outcome = in_background(connection.request, "tools/call", timeout=60, abort=abort)
    transport.next_sent()
    started = time.monotonic()
    abort.set()
    assert isinstance(outcome.get(timeout=5), RequestAborted)
    assert time.monotonic() - started < 2
    cancelled = transport.next_sent()
    assert cancelled["method"] == "notifications/cancelled"
    assert cancelled["params"] == {"requestId": 1, "reason": "aborted by the user"}


def test_a_closed_transport_fails_waiting_and_later_requests_with_its_reason():
    transport, connection = connect()
    outcome = in_background(connection.request, "a", timeout=60)
    transport.next_sent()
    transport.on_closed("exited with status 1: boom")
    error = outcome.get(timeout=5)
    assert isinstance(error, TransportClosed) and str(error) == "exited with status 1: boom"
    with pytest.raises(TransportClosed, match="status 1"):
        connection.request("b", timeout=60)
    assert connection.closed_reason == "exited with status 1: boom"


def test_close_closes_the_transport_and_fails_what_waits():
    transport, connection = connect()
    outcome = in_background(connection.request, "a", timeout=60)
    transport.next_sent()
    connection.close()
    assert transport.closed
    assert isinstance(outcome.get(timeout=5), TransportClosed)


def test_server_requests_are_answered_on_their_own_thread_so_answers_still_arrive():
    release = threading.Event()

    def on_request(method, params):
        if method == "slow":
            release.wait(10)
            return {"slow": "done"}
        raise RpcError(-32601, f"no {method}")

    transport, connection = connect(on_request=on_request)
    transport.receive({"jsonrpc": "2.0", "id": "s1", "method": "slow"})
    transport.receive({"jsonrpc": "2.0", "id": "s2", "method": "sampling/createMessage",
                       "params": {}})
    assert transport.next_sent() == {"jsonrpc": "2.0", "id": "s2",
                                     "error": {"code": -32601,
                                               "message": "no sampling/createMessage"}}
    outcome = in_background(connection.request, "a", timeout=5)
    transport.receive(answer(transport.next_sent()["id"], {"a": 1}))
    assert outcome.get(timeout=5) == {"a": 1}  # while the slow handler still runs
    release.set()
    assert transport.next_sent() == {"jsonrpc": "2.0", "id": "s1", "result": {"slow": "done"}}


def test_notifications_arrive_in_order_and_a_slow_handler_blocks_no_answer():
    seen = queue.Queue()
    release = threading.Event()

    def on_notification(method, params):
        seen.put((method, params))
        release.wait(10)

    transport, connection = connect(on_notification=on_notification)
    for n in range(3):
        transport.receive({"jsonrpc": "2.0", "method": f"notifications/n{n}",
                           "params": {"n": n}})
    outcome = in_background(connection.request, "a", timeout=5)
    transport.receive(answer(transport.next_sent()["id"], {}))
    assert outcome.get(timeout=5) == {}
    release.set()
    assert [seen.get(timeout=5) for _ in range(3)] == [
        ("notifications/n0", {"n": 0}), ("notifications/n1", {"n": 1}),
        ("notifications/n2", {"n": 2})]


def test_a_flood_of_server_requests_runs_a_few_handlers_at_a_time_and_answers_all():
    lock = threading.Lock()
    running, most = [0], [0]
    release = threading.Event()

    def on_request(method, params):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1
        return {}

    transport, connection = connect(on_request=on_request)
    flood = in_background(lambda: [transport.receive({"jsonrpc": "2.0", "id": n, "method": "ping"})
                                   for n in range(20)])
    release.set()
    flood.get(timeout=10)
    answered = sorted(transport.next_sent()["id"] for _ in range(20))
    assert answered == list(range(20))
    assert most[0] <= 8
