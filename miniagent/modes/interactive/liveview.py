"""The live view: the interactive terminal's subscriber, drawing the run as it happens.

Print mode shows a run after the fact; a person at a terminal wants to watch it. This
subscriber turns the event stream into a screen that tells the truth at every moment:

    event                                  on screen
    agent_start / turn_start               ⠋ waiting for the model · 2s   (live line)
    message_update text_delta              the text, as it arrives (printed once)
    message_update thinking_delta          the thinking, dimmed
    tool_execution_start                   ⠹ running $ pytest -q · 3s     (live line)
    tool_execution_update (bash output)    its last 5 lines under the live line
    tool_execution_end                     the call's header and its folded result,
                                           together, in call order; live lines erased
                                           (a `!cmd` of the user's: its last 50 lines)
    message_end (error / aborted)          the reason, on one line (an error once the
                                           harness is not retrying it: see below)
    auto_retry_start                       the retry notice (render.Notices)
    compaction_start / _end                ⠼ compacting · 4s, then one line: the outcome

Parallel tool calls all start before any ends, and their ends arrive in call order
(loop.py), so "print each call when it ends" is what keeps every result under its
own call. A failed reply's error line waits for the next event: when that is a retry,
the retry notice names the error instead, so each failure is on screen once and the
final one ends the run's output. After a prompt's run the REPL calls `show_footer()`:
tokens, cost, context.
The REPL also shows its own waits here (`wait("compacting")` while /compact runs) and
its questions (`ask(question)` stops the live area until the answer is in).

Three threads write here: the agent's (events), a ticker (the spinner's clock, ten
times a second) and the REPL's main thread (notes like "queued"). One lock keeps
their lines whole. Without terminal controls (TERM=dumb) there is no live area at
all: the text still streams, and each tool call is printed when it ends.

Left out: Markdown rendering, syntax highlighting, a status bar, resizing redraws.
"""

import threading
import time
from typing import Any, Dict, List, Optional

from ...messages import one_line, text_of
from ..render import USER_SHELL_LINES, Notices, describe_call, fold_result, footer_text
from ..terminal import SPINNER, Screen, for_terminal
from ..usershell import CALL_ID as USER_SHELL_CALL

WINDOW_LINES = 5  # live output lines shown under a running command
TICK_SECONDS = 0.1


class LiveView:
    def __init__(self, screen: Screen):
        self.screen = screen
        self._lock = threading.Lock()
        self._waiting_since: Optional[float] = None  # set until the model's first token
        self._waiting_for = "waiting for the model"
        self._asking = False  # a question is on screen: the live area stays away
        self._notices = Notices()
        self._failure: Optional[str] = None  # a failed reply's line, until a retry or not
        self._running: Dict[str, str] = {}  # call id -> its one-line header, in call order
        self._running_since = 0.0
        self._window: List[str] = []  # the last lines of the latest live output
        self._usage: Dict[str, Any] = {}  # summed over the replies since the last footer
        self._context_tokens = 0  # the last reply's total: what the next request re-sends
        self._stopped = threading.Event()
        if screen.controls:
            threading.Thread(target=self._tick, daemon=True, name="miniagent-spinner").start()
        self._reset_usage()

    # --- Events ----------------------------------------------------------------------------

    def __call__(self, event: Dict[str, Any]) -> None:
        kind = event["type"]
        with self._lock:
            if kind == "auto_retry_start":  # its notice names the error instead
                self._failure = None
            elif kind not in ("turn_end", "agent_end"):
                self._show_failure()
            notice = self._notices(event)
            if notice:
                self._line(self.screen.style(for_terminal(notice), "yellow"))
            if kind in ("agent_start", "turn_start"):
                self._wait_for_model()
            elif kind == "compaction_start":
                self._wait_for_model("compacting the conversation")
            elif kind == "compaction_end":
                self._waiting_since = None
            elif kind == "message_update":
                self._show_delta(event["assistantMessageEvent"])
            elif kind == "message_end" and event["message"].get("role") == "assistant":
                self._end_reply(event["message"])
            elif kind == "tool_execution_start":
                self._start_call(event)
            elif kind == "tool_execution_update":
                self._window = last_lines(text_of(event["partialResult"]), WINDOW_LINES)
            elif kind == "tool_execution_end":
                self._end_call(event)
            elif kind == "agent_end":
                self._waiting_since = None
                self._running.clear()
            self._draw_live()

    def _wait_for_model(self, what: str = "waiting for the model") -> None:
        self._waiting_since = time.monotonic()
        self._waiting_for = what

    def _show_delta(self, update: Dict[str, Any]) -> None:
        kind = update["type"]
        if kind in ("text_delta", "thinking_delta"):
            self._waiting_since = None  # the first token is here: the spinner stops
            text = for_terminal(update.get("delta") or "")
            self.screen.write(self.screen.style(text, "dim") if kind == "thinking_delta"
                              else text)
        elif kind in ("text_end", "thinking_end"):
            self.screen.end_line()

    def _end_reply(self, message: Dict[str, Any]) -> None:
        self._waiting_since = None
        self.screen.end_line()
        self._add_usage(message.get("usage") or {})
        reason = message.get("stopReason")
        if reason == "error":
            self._failure = "error: " + one_line(message.get("errorMessage") or "unknown error")
        elif reason == "aborted":
            self._line(self.screen.style("(stopped)", "dim"))

    def _show_failure(self) -> None:
        """The held error line of a failed reply the harness did not retry (after it
        come only turn_end and agent_end, then the harness's retry or what follows)."""
        if self._failure is not None:
            self._line(self.screen.style(for_terminal(self._failure), "red"))
            self._failure = None

    def _start_call(self, event: Dict[str, Any]) -> None:
        if not self._running:
            self._running_since = time.monotonic()
        self._running[event["toolCallId"]] = describe_call(event["toolName"], event["args"])
        self._waiting_since = None

    def _end_call(self, event: Dict[str, Any]) -> None:
        header = self._running.pop(event["toolCallId"], None) or describe_call(
            event["toolName"], event.get("args"))
        self._window = []  # the live output is replaced by the folded result
        error = event["isError"]
        style = self.screen.style
        lines = [style("  " + for_terminal(header), "bold")]
        for line in fold_for(event):
            marker = "    ! " if error and not line.startswith("…") else "    "
            lines.append(style(for_terminal(marker + line), "red" if error else "dim"))
        self._line("\n".join(lines))

    # --- Writing -----------------------------------------------------------------------------

    def _line(self, text: str) -> None:
        self.screen.end_line()
        self.screen.write(text + "\n")

    def _draw_live(self) -> None:
        """Redraw the live area: the spinner line and a running command's last lines."""
        now = time.monotonic()
        spin = SPINNER[int(now / TICK_SECONDS) % len(SPINNER)]
        fit, style = self.screen.fit, self.screen.style
        lines = []
        if self._asking:
            pass  # the question and the answer being typed own the screen's last line
        elif self._running:
            what = for_terminal(", ".join(self._running.values()))
            lines.append(fit(f"{spin} running {what} · {now - self._running_since:.0f}s"))
            lines += [style(fit("    " + for_terminal(line)), "dim") for line in self._window]
        elif self._waiting_since is not None:
            lines.append(f"{spin} {self._waiting_for} · {now - self._waiting_since:.0f}s")
        if lines or self.screen.live_height:
            self.screen.draw_live(lines)

    def _tick(self) -> None:
        while not self._stopped.wait(TICK_SECONDS):
            with self._lock:
                if self._running or self._waiting_since is not None:
                    self._draw_live()

    # --- For the REPL ------------------------------------------------------------------------

    def note(self, text: str, style: Optional[str] = None) -> None:
        """A line from the REPL itself ("queued: ..."), kept clear of the live area."""
        with self._lock:
            self._line(self.screen.style(text, style) if style else text)
            self._draw_live()

    def wait(self, what: Optional[str]) -> None:
        """Show the spinner with `what` ("compacting"); None ends the wait."""
        with self._lock:
            if what is None:
                self._waiting_since = None
            else:
                self._wait_for_model(what)
            self._draw_live()

    def ask(self, question: str) -> None:
        """Put a question on screen (its last line is where the answer is typed) and
        keep the live area away until `answered()`."""
        with self._lock:
            self._asking = True
            self._draw_live()  # erases the live area
            head, _, last = question.rpartition("\n")
            if head:
                self._line(head)
            else:
                self.screen.end_line()
            self.screen.write(last)

    def answered(self, line_ended: bool) -> None:
        """The answer is in; `line_ended`: it ended with Enter (the cursor is on a new line)."""
        with self._lock:
            self._asking = False
            if line_ended:
                self.screen.at_line_start = True
            self._draw_live()

    def show_footer(self, model: Any, also: str = "") -> None:
        """The line after a prompt's run, with `also` at its end (the tools --confirm
        always allows); the counts start again from zero."""
        with self._lock:
            self._show_failure()
            self._waiting_since = None
            self._running.clear()
            self._draw_live()
            footer = footer_text(self._usage, self._context_tokens, model)
            footer += f" · {also}" if also else ""
            self._line(self.screen.style(footer, "dim"))
            self._reset_usage()

    def close(self) -> None:
        self._stopped.set()

    def _add_usage(self, usage: Dict[str, Any]) -> None:
        for key in ("input", "output", "cacheRead"):
            self._usage[key] += usage.get(key, 0)
        self._usage["cost"] += (usage.get("cost") or {}).get("total", 0.0)
        if usage.get("totalTokens"):
            self._context_tokens = usage["totalTokens"]

    def _reset_usage(self) -> None:
        self._usage = {"input": 0, "output": 0, "cacheRead": 0, "cost": 0.0}


def fold_for(event: Dict[str, Any]) -> List[str]:
    """A finished call's result as shown: a model's call folded to a few lines, the
    user's own `!cmd` (usershell.py) to its last USER_SHELL_LINES."""
    text, error = text_of(event["result"]), event["isError"]
    if event["toolCallId"] == USER_SHELL_CALL:
        return fold_result(text, True, USER_SHELL_LINES)
    return fold_result(text, error)


def last_lines(text: str, count: int) -> List[str]:
    """Example: last_lines("a\\nb\\n\\nc\\n", 2) -> ["b", "c"] (blank lines skipped)."""
    return [line for line in text.split("\n") if line.strip()][-count:]
