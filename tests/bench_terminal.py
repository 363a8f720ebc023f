"""Benchmark rows for the terminal: python tests/bench_terminal.py (or via tests/bench.py).

- Abort latency as a person feels it: Ctrl-C typed into the real REPL (a pseudo-terminal,
  tests/pty_driver.py) until "(stopped)" is on screen, while an answer streams (the test
  server holds the rest of it) and while `bash` runs `sleep 30`. Goals: 0.2 s and 0.5 s.
- The cost of drawing a streamed token: the live view writing text deltas to a file with
  terminal controls on (the spinner's redraws included), against writing and flushing the
  same pieces to a file directly.
"""

import io
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_plumbing import best_of  # noqa: E402
from fake_server import FakeServer  # noqa: E402
from pty_driver import Terminal  # noqa: E402
from miniagent.modes.interactive.liveview import LiveView  # noqa: E402
from miniagent.modes.terminal import Screen  # noqa: E402

ABORTS = 5
STREAM_GOAL, TOOL_GOAL = 0.2, 0.5
TOKENS = 20_000
TOKEN = "word "


def abort_latencies(args, home, cwd):
    """Seconds from each Ctrl-C to "(stopped)" on screen, one prompt at a time."""
    latencies = []
    with Terminal(args, env={"MINIAGENT_HOME": home}, cwd=cwd) as term:
        term.expect("> ")
        for number in range(ABORTS):
            term.send(f"go {number}\r")
            term.expect("Hello fr" if "--base-url" in args else "running $ sleep")
            start = time.perf_counter()
            term.send("\x03")
            term.expect("(stopped)")
            latencies.append(time.perf_counter() - start)
            term.expect("> ")
        term.send("\x04")
        term.wait()
    return latencies


def abort_rows():
    home, cwd = tempfile.mkdtemp(prefix="miniagent-bench-"), tempfile.mkdtemp()
    held = {"content": [{"type": "text", "text": "Hello from a stream that never ends"}],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([held] * ABORTS) as server:
        streaming = abort_latencies(["--base-url", server.base_url + "/v1", "--model",
                                     "fake-model"], home, cwd)
    script = os.path.join(cwd, "script.json")
    with open(script, "w") as file:
        json.dump([{"content": [{"type": "toolCall", "name": "bash",
                                 "arguments": {"command": "sleep 30"}}]}] * ABORTS, file)
    tool = abort_latencies(["--provider", "scripted", "--script", script], home, cwd)
    for what, latencies, goal in (("streaming", streaming, STREAM_GOAL),
                                  ("bash running sleep 30", tool, TOOL_GOAL)):
        mean = sum(latencies) / len(latencies)
        yield (f"Ctrl-C in the REPL to (stopped), {what} (mean of {ABORTS})",
               f"{mean * 1000:.0f} ms", f"goal {goal * 1000:.0f} ms", f"{mean / goal:.2f}x of goal")


class FileTerminal(io.TextIOWrapper):
    """A real file that says it is a terminal, so the live view sends its controls."""

    def isatty(self):
        return True


def render_rows():
    path = os.path.join(tempfile.mkdtemp(prefix="miniagent-bench-"), "screen.txt")
    events = [{"type": "message_update",
               "assistantMessageEvent": {"type": "text_delta", "delta": TOKEN}}] * TOKENS

    def through_the_view():
        with FileTerminal(open(path, "wb"), encoding="utf-8") as out:
            view = LiveView(Screen(out, env={"TERM": "xterm"}))
            view({"type": "agent_start"})
            for event in events:
                view(event)
            view.close()

    def straight_to_a_file():
        with open(path, "w", encoding="utf-8") as out:
            for _ in range(TOKENS):
                out.write(TOKEN)
                out.flush()  # the view flushes each piece too: a stream must show at once

    view_s, file_s = best_of(3, through_the_view), best_of(3, straight_to_a_file)
    yield ("live view, per streamed token (20,000 tokens)", f"{view_s / TOKENS * 1e6:.1f} us",
           f"write+flush {file_s / TOKENS * 1e6:.2f} us", f"{view_s / file_s:.1f}x")


def rows():
    yield from abort_rows()
    yield from render_rows()


if __name__ == "__main__":
    for row in rows():
        print(*row, sep="  |  ")
