"""One sub-agent run: a miniagent child process, driven over rpc, read event by event.

The child is this program again (`python -m miniagent --mode rpc ...`), so it has its
own context window, its own session file, and the same rules as any run: the
sandbox confines its commands, the reaper ends its processes. We talk to it as an
editor would (modes/rpc/):

    > {"type": "prompt", "message": "List the TODO comments"}
    < ... tool_execution_start {"toolName": "grep"}            -> a progress line
    < {"type": "extension_ui_request", "method": "confirm", ...}   --confirm's question:
    > {"type": "extension_ui_response", "id": ..., "confirmed": false}   asked up here
    < {"type": "message_end", "message": {"role": "assistant", "usage": ...}}  -> counted
    < {"type": "agent_settled"}                                -> done: its last answer
    (stdin closed: the child finishes and exits)

Why rpc and not json mode, as pi's example uses: json mode has nobody to ask, and
--confirm's questions must reach the user who runs the parent. rpc gives the way
back, and a polite `abort` that lets the child end its run and its session file
cleanly; a child that does not stop within ABORT_GRACE seconds is killed, with all
it started.

Left out: streaming the child's text to the parent's screen (one line of progress is
shown instead), and images in its answer.
"""

import json
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

ABORT_GRACE = 5.0  # seconds an aborted child gets to end its run before it is killed
USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite")


@dataclass
class ChildRun:
    """What a sub-agent did, as its events told it."""
    answer: str = ""
    error: Optional[str] = None
    aborted: bool = False
    turns: int = 0
    tool_calls: int = 0
    usage: Dict[str, float] = field(default_factory=lambda: {
        "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0})


Confirm = Callable[[Dict[str, Any]], bool]  # an extension_ui_request -> the answer


def run_child(ctx: Any, argv: List[str], env: Dict[str, str], prompt: str,
              abort: threading.Event, on_step: Callable[[str], None],
              confirm: Confirm) -> ChildRun:
    """Start the child, send it `prompt`, read its events until it has settled."""
    proc = ctx.start_program(argv, stdin=True, confine=False, env=env)  # it confines its own tools
    channel = Channel(proc)
    run, settled = ChildRun(), threading.Event()
    channel.send({"type": "prompt", "message": prompt})
    threading.Thread(target=stop_on_abort, args=(channel, abort, settled), daemon=True).start()
    try:
        for line in proc.stdout:
            event = parse(line)
            if event is not None and read_event(event, run, channel, on_step, confirm):
                break
    finally:
        settled.set()
        channel.finish()
    if not run.error and not run.answer and not run.aborted:
        run.error = "it ended without answering: " + last_line(proc)
    run.aborted = run.aborted or abort.is_set()
    return run


def read_event(event: Dict[str, Any], run: ChildRun, channel: "Channel",
               on_step: Callable[[str], None], confirm: Confirm) -> bool:
    """Take one event in; True once the child has settled (nothing more will come)."""
    kind = event.get("type")
    if kind == "extension_ui_request" and event.get("method") in ("confirm", "select"):
        answer = {"confirmed": confirm(event)} if event["method"] == "confirm" else {
            "cancelled": True}  # a child's own choice is not ours to make
        channel.send({"type": "extension_ui_response", "id": event.get("id"), **answer})
    elif kind == "tool_execution_start":
        run.tool_calls += 1
        on_step(f"{event.get('toolName')} {describe_args(event.get('args'))}")
    elif kind == "message_end" and event["message"].get("role") == "assistant":
        count_reply(run, event["message"])
        on_step(f"turn {run.turns}")
    elif kind == "response" and event.get("success") is False:
        run.error = str(event.get("error"))
        return True
    return kind == "agent_settled"


def count_reply(run: ChildRun, message: Dict[str, Any]) -> None:
    """One assistant reply: its usage added, its text kept as the answer so far."""
    run.turns += 1
    usage = message.get("usage") or {}
    for key in USAGE_KEYS:
        run.usage[key] += usage.get(key) or 0
    run.usage["cost"] += (usage.get("cost") or {}).get("total") or 0.0
    stop = message.get("stopReason")
    if stop == "aborted":
        run.aborted = True
    elif stop == "error":
        run.error = message.get("errorMessage") or "the model's reply failed"
    else:
        run.error = None  # a retried reply that worked
        text = "".join(block.get("text", "") for block in message.get("content", [])
                       if block.get("type") == "text").strip()
        run.answer = text or run.answer


def describe_args(args: Any) -> str:
    """A call's arguments as a few words: its command or path."""
    if not isinstance(args, dict):
        return ""
    value = args.get("command") or args.get("path") or args.get("pattern") or ""
    return " ".join(str(value).split())[:60]


def stop_on_abort(channel: "Channel", abort: threading.Event, settled: threading.Event) -> None:
    """Abort the child when the parent's call is aborted; kill it if it does not stop."""
    while not settled.is_set():
        if abort.wait(0.1):
            channel.send({"type": "abort"})
            if not settled.wait(ABORT_GRACE):
                channel.proc.kill()
            return


def parse(line: bytes) -> Optional[Dict[str, Any]]:
    try:
        event = json.loads(line)
    except ValueError:
        return None  # stdout carries JSON lines only; anything else is not ours to read
    return event if isinstance(event, dict) else None


def last_line(proc: Any) -> str:
    """The child's last line on stderr, or its exit status."""
    proc.stderr.seek(0)
    lines = proc.stderr.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


class Channel:
    """The child's stdin, written from two threads (the reader, the abort watcher)."""

    def __init__(self, proc: Any):
        self.proc = proc
        self._lock = threading.Lock()

    def send(self, record: Dict[str, Any]) -> None:
        with self._lock:
            try:
                self.proc.stdin.write((json.dumps(record) + "\n").encode("utf-8"))
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass  # it has gone (or we closed it): what it did is read from stdout

    def finish(self) -> None:
        """Close stdin, the child's goodbye; wait for it to exit, kill it if it lingers."""
        with self._lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(ABORT_GRACE)
        except subprocess.TimeoutExpired:  # it lingers
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
