"""RPC mode (`miniagent --mode rpc`): the agent as a process that editors and notebooks drive.

The same Harness and Agent as the terminal and print mode; only the subscriber
differs. A program writes one JSON command per line on our stdin; we write on stdout
every event of the agent (the lines of `--mode json`) and one response per command:

    > {"id": "1", "type": "prompt", "message": "What is in this folder?"}
    < {"id": "1", "type": "response", "command": "prompt", "success": true,
       "data": {"disposition": "started"}}
    < {"type": "agent_start"}
    < {"type": "message_update", "assistantMessageEvent": {"type": "text_delta", ...}}
    < ...
    < {"type": "agent_end", "messages": [...], "willRetry": false}
    < {"type": "agent_settled", "aborted": false}
    > {"id": "2", "type": "get_state"}
    < {"id": "2", "type": "response", "command": "get_state", "success": true,
       "data": {"model": {"provider": "ollama", "id": "qwen2.5-coder:7b", ...}, ...}}
    > hello
    < {"type": "response", "command": "parse", "success": false, "error": "..."}

A prompt is answered at once and its run reports through events, also when it fails.
Every other command's response carries its data or its error (and the request's id),
so one bad request never stops the process. The commands are in handlers.py, which
takes some from commands_model.py and commands_session.py.

With `--confirm`, the question before bash, edit or write goes to the program: pi's
`extension_ui_request` (a confirm dialog), answered by an `extension_ui_response`
(confirm_ui.py).

Four threads share the work:

    reader     reads stdin; routes confirmations at once, queues everything else
    main       takes the queued lines in order and answers them (most in an instant)
    run        the Harness's worker: the agent's turns, writing events as they happen
    commands   `bash` and `compact` take long, so each runs on a thread of its own
               and answers when done (abort_bash and abort still get through)

Every line goes out through one lock, so lines never interleave; a quick command is
answered while holding it, so no event of the run a prompt starts can come before the
prompt's response. stdout carries JSON lines only; warnings go to stderr.

The end of stdin is a polite goodbye: the running turn (and a running `bash`) may
finish, then the process exits 0 with nothing left running. A program in a hurry sends
`abort` first. SIGTERM, SIGINT and SIGHUP abort everything and exit 128 + the signal.

Left out: pi's extension UI dialogs other than confirm, and shutdown on an
extension's request.
"""

import json
import math
import os
import queue
import sys
import threading
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, TextIO, Tuple

from ...harness.harness import Harness
from ..output import say, stdout_failure
from ..render import JsonLines
from .confirm_ui import ANSWERS, Confirmations, RpcUI
from ...project.extension_context import begin_extensions
from .handlers import LATER, Commands
from ...tools.hardening.reaper import catch_stop_signals

# A line of stdin, parsed: (the request, None) or (None, the error response to write).
Parsed = Tuple[Optional[Dict[str, Any]], Optional[Dict[str, Any]]]


def run_rpc(harness: Harness, stdin: Optional[BinaryIO] = None,
            stdout: Optional[TextIO] = None) -> int:
    """Serve the protocol until stdin ends; the exit status (0, or 128 + a stop signal,
    or 141 / 1 when stdout could not be written)."""
    if stdin is None and sys.stdin is not None:
        # Bytes, so that only "\n" ends a record (text mode also splits on "\r"); and a
        # reader of our own on a copy of the descriptor: at exit Python closes
        # sys.stdin, which waits for the lock a reader blocked in readline() holds (a
        # fatal error after a stop signal).
        stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    server = RpcServer(harness, stdout or sys.stdout)
    received = catch_stop_signals(lambda signum: server.abort_everything())
    requests: "queue.Queue[Optional[Parsed]]" = queue.Queue()
    threading.Thread(target=server.read, args=(stdin, requests), daemon=True,
                     name="miniagent-rpc-reader").start()
    begin_extensions(harness, RpcUI(server.confirmations))  # questions need the reader
    while not received and server.stdout_error is None:
        try:
            parsed = requests.get(timeout=0.5)  # a timeout, so that a stop signal is noticed
        except queue.Empty:
            continue
        if parsed is None:
            break
        server.handle(*parsed)
    server.finish()
    if received:
        return 128 + received[0]
    if server.stdout_error is not None:
        return stdout_failure(server.stdout_error)
    return 0


class RpcServer:
    """The protocol around one Harness: framing, dispatch, responses, confirmations."""

    def __init__(self, harness: Harness, stdout: TextIO):
        self.harness = harness
        self.stdout_error: Optional[OSError] = None
        self.out = Output(JsonLines(stdout, on_closed=self._stdout_broke))
        self.confirmations = Confirmations(self.out)
        self.commands = Commands(harness, self._answer_later)
        self._background: List[threading.Thread] = []
        # A long-lived process, like the terminal: compact after a run, ready for the next.
        harness.compact_after_run = True
        harness.agent.subscribe(self.out)  # every event, as one JSON line
        if harness.project is not None:  # a failing extension handler, as pi reports it
            harness.project.extensions.on_error = lambda path, event, error: self.out({
                "type": "extension_error", "extensionPath": path, "event": event,
                "error": error})
        # --confirm: assemble.py built the gate (which calls, the refusal the model
        # reads); here it asks the program instead of a terminal.
        if harness.confirm_gate is not None:
            harness.agent.subscribe(self.confirmations.note_call)
            harness.confirm_gate.ask = self.confirmations.ask

    # --- Reading ---------------------------------------------------------------------

    def read(self, stdin: Optional[BinaryIO],
             requests: "queue.Queue[Optional[Parsed]]") -> None:
        """The reader thread: answers to confirm requests are delivered at once (the run
        waits for them); every other line is queued for the main thread. None: the end."""
        try:
            for line in read_records(stdin):
                request, problem = parse_request(line)
                if request is not None and request["type"] in ANSWERS:
                    self.confirmations.deliver(request)
                else:
                    requests.put((request, problem))
        except OSError as error:  # a broken pipe on stdin is an end like any other
            say(f"miniagent: reading stdin failed ({error}); finishing")
        finally:
            self.confirmations.close()  # nobody is left to answer: every question is a no
            requests.put(None)

    # --- Answering -------------------------------------------------------------------

    def handle(self, request: Optional[Dict[str, Any]],
               problem: Optional[Dict[str, Any]]) -> None:
        """Answer one parsed line (see parse_request)."""
        if problem is not None:
            self.out(problem)
        elif request["type"] == "abort":
            # Abort waits for the run to end, and the run needs the output lock to
            # write its last events: this one is answered without holding it.
            self._answer(request, self._abort)
        else:
            with self.out.lock:
                self._answer(request, self.commands.handler(request["type"]))

    def _answer(self, request: Dict[str, Any], handler: Callable[[dict], Any]) -> None:
        """Run the handler and write its response (unless it answers later itself)."""
        try:
            data = handler(request)
        except Exception as exc:  # noqa: BLE001 - any failure is this request's answer
            self.out(response(request, error=str(exc) or type(exc).__name__))
            return
        if data is not LATER:
            self.out(response(request, data))

    def _answer_later(self, request: Dict[str, Any], work: Callable[[], Any]) -> Any:
        """Run `work` on a thread of its own; its result (or failure) is the response."""
        thread = threading.Thread(target=self._answer, args=(request, lambda _: work()),
                                  daemon=True, name=f"miniagent-rpc-{request['type']}")
        self._background = [t for t in self._background if t.is_alive()] + [thread]
        thread.start()
        return LATER

    def _abort(self, request: Dict[str, Any]) -> None:
        self.confirmations.refuse_pending()  # a run waiting for an answer must not wait on
        self.harness.abort()
        self.commands.abort_compaction()
        self.harness.wait()  # answered once the run has ended: a prompt may follow at once

    # --- Stopping --------------------------------------------------------------------

    def abort_everything(self) -> None:
        """A stop signal or a reader gone: stop the run, a compaction and a command."""
        self.confirmations.refuse_pending()
        self.harness.abort()
        self.commands.abort_compaction()
        self.commands.abort_bash(None)

    def finish(self) -> None:
        """Wait for the run and the commands still running: nothing outlives us."""
        self.harness.wait()
        for thread in self._background:
            thread.join()

    def _stdout_broke(self, error: OSError) -> None:
        self.stdout_error = error
        self.abort_everything()  # the program that drove us is gone


class Output:
    """Every line on stdout goes through here: one writer at a time."""

    def __init__(self, lines: JsonLines):
        self.lock = threading.RLock()  # re-entrant: a command's own events pass while held
        self._lines = lines

    def __call__(self, record: Dict[str, Any]) -> None:
        with self.lock:
            try:
                self._lines(record)
            except (ValueError, RecursionError) as error:
                if record.get("type") != "response":
                    raise  # an event: the agent's emit reports it and the run goes on
                self._lines(unwritable(record, error))


def unwritable(answer: Dict[str, Any], error: Exception) -> Dict[str, Any]:
    """The error response for one that cannot be written as JSON (an id nested a
    thousand deep parses, but is too deep to write back): without the id."""
    return {"type": "response", "command": answer.get("command"), "success": False,
            "error": f"The response could not be written as JSON ({reason(error)}): send a "
                     f"string or a number as the id"}


# --- Framing -----------------------------------------------------------------------------

def read_records(stdin: Optional[BinaryIO]) -> Iterator[str]:
    """The lines of stdin as strict JSONL records: split on "\\n" only, a trailing "\\r"
    removed, a last line without "\\n" kept; blank lines are skipped.

    Example: b'{"type": "abort"}\\r\\n{"a": "x\\xe2\\x80\\xa8y"}' -> '{"type": "abort"}',
    '{"a": "x\\u2028y"}' (U+2028 inside a string is no line end here, unlike str.splitlines)
    """
    if stdin is None:  # started without a stdin: nothing will ever come
        return
    for raw in iter(stdin.readline, b""):
        record = raw[:-1] if raw.endswith(b"\n") else raw
        record = record[:-1] if record.endswith(b"\r") else record
        if record.strip():
            yield record.decode("utf-8", errors="replace")


def parse_request(line: str) -> Parsed:
    """(the request, None), or (None, the error response for a line that is none).

    Strict JSON only: NaN and Infinity are refused (echoed back in a response's id they
    would make a line no JSON reader accepts), and so is nesting too deep for the
    decoder (`[[[[...` a hundred thousand deep), which must not end the reader thread.
    """
    try:
        request = json.loads(line, parse_constant=refuse_constant, parse_float=finite_float)
    except (ValueError, RecursionError) as exc:
        return None, {"type": "response", "command": "parse", "success": False,
                      "error": f"Failed to parse command: {reason(exc)}"}
    if not isinstance(request, dict):
        return None, {"type": "response", "command": None, "success": False,
                      "error": 'A command is a JSON object such as {"type": "get_state"}'}
    if not isinstance(request.get("type"), str):
        return None, response(request, error='The command has no "type": say which command, '
                                             'e.g. {"type": "get_state"}')
    return request, None


def reason(error: Exception) -> str:
    """Why JSON failed, in words (a RecursionError's own are about Python)."""
    return "nested too deeply" if isinstance(error, RecursionError) else str(error)


def refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number; send a finite number or a string")


def finite_float(text: str) -> float:
    """A JSON number as a float, refused when it overflows to infinity (1e999)."""
    value = float(text)
    if value in (math.inf, -math.inf):
        refuse_constant(text)
    return value


def response(request: Dict[str, Any], data: Any = None,
             error: Optional[str] = None) -> Dict[str, Any]:
    """The response to `request`: its id (when it had one), success and data or error."""
    answer: Dict[str, Any] = {"type": "response", "command": request.get("type")}
    if "id" in request:
        answer = {"id": request["id"], **answer}
    if error is not None:
        answer.update(success=False, error=error)
    else:
        answer["success"] = True
        if data is not None:
            answer["data"] = data
    return answer
