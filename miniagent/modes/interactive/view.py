"""The run view: the interactive terminal's subscriber, turning events into lines.

Print mode shows a run after the fact; a person at a terminal wants to watch it. This
subscriber turns the event stream into two kinds of lines (the terminal UI's renderer,
tui/renderer.py, draws them; the line mode, TERM=dumb, prints them):

  * **finished lines**, for the scrollback, printed once: a paragraph of the answer
    once it is complete, a tool call with its folded result, a notice (the answer's
    blocks as renderer Blocks, with their Markdown: a narrower window renders them
    again from it);
  * **the live part**, redrawn many times: the answer's unfinished paragraph, the
    spinner line (what runs, for how long) and a running command's last lines.

    event                                  on screen
    agent_start / turn_start               ⠋ waiting for the model · 2s   (live)
    message_update text_delta              the answer as Markdown: a block goes to the
                                           scrollback once the next one begins (live
                                           until then, since later text can change it),
                                           and under it ⠹ working · 12s, the whole run
    message_update thinking_delta          the thinking, dimmed, line by line
    tool_execution_start                   ⠹ running $ pytest -q · 3s     (live)
    tool_execution_update (bash output)    its last 5 lines under the spinner (live)
    tool_execution_end                     the call's header and its folded result
                                           (tool_result.py: a command's last lines, a
                                           file's first, an edit's diff), live until
                                           the next line: Ctrl+O opens it in place
    message_end (error / aborted)          the reason, on one line (an error once the
                                           harness is not retrying it: see below)
    auto_retry_start, compaction_*         one notice line (render.Notices); a retry's
                                           wait counts down: ⠼ retrying in 3s (2 of 3)
    auto_retry_end, cancelled              (stopped before the retry)

Parallel tool calls all start before any ends, and their ends arrive in call order
(loop.py), so "print each call when it ends" keeps every result under its own call.
A failed reply's error line waits for the next event: when that is a retry, the retry
notice names the error instead, so each failure is on screen once.

Threads: events arrive on the agent's thread, the REPL's main thread takes the lines
and draws them. One lock guards the state; `on_change` (the REPL's wake-up) is called
after each change so the main thread draws soon, at most ~30 times a second.

Without a live area (the line mode) `progress()` gives a plain line now and then
instead ("running $ sleep 8: 5s", "working: 10s"), so a run is never invisible.

While a question waits for the user (a --confirm, an extension's), nothing runs:
`hold(True)` takes the status line away (no spinner, no clock, no progress line), and
`hold(False)` starts the clock of what runs again.
"""

import threading
import time
from functools import partial
from typing import Any, Callable, Dict, List, Optional

from ...files.text import one_line
from ...core.messages import text_of
from ...tui.markdown import render_markdown
from ...tui.markdown_stream import MarkdownStream, render_finished
from ...tui.renderer import Block, Entry, lines_of
from ...tui.spinner import status_line
from ...tui.style import Style
from ...tui.width import wrap
from ..render import Notices, describe_call, footer_text
from ..terminal import for_terminal
from .working import WorkingLine
from .tool_result import FinishedCall

WINDOW_LINES = 5  # live output lines shown under a running command
PROGRESS_SECONDS = 5  # the line mode's progress line, this often while something runs
CANCELLED = "Retry cancelled"  # auto_retry_end's finalError when an abort ended the wait


class RunView:
    def __init__(self, style: Style, on_change: Callable[[], None] = lambda: None,
                 expandable: bool = False):
        self.style = style
        self.expandable = expandable  # Ctrl+O shows a folded result whole (screen.py)
        self.on_change = on_change
        self.width = 79  # the columns lines are made for; the REPL keeps it current
        self.rows: Optional[int] = None  # the rows the live part may take at most
        self._lock = threading.Lock()
        self._commits: List[Entry] = []  # finished lines not yet taken by the REPL
        self._answer: Optional[MarkdownStream] = None  # the answer being streamed
        self._thinking = ""  # the thinking's unfinished line
        self._waiting_since: Optional[float] = None  # set until the model's first token
        self._waiting_for = "waiting for the model"
        self._notices = Notices()
        self._failure: Optional[str] = None  # a failed reply's line, until a retry or not
        self._running: Dict[str, str] = {}  # call id -> its one-line header, in call order
        self._running_since = 0.0
        self._working = WorkingLine()  # "working", a retry's countdown (working.py)
        self._window: List[str] = []  # the last lines of the latest live output
        self._progress_at = 0.0  # when the line mode last printed a progress line
        self._usage: Dict[str, Any] = {}  # summed over the replies since the last footer
        self._context_tokens = 0  # the last reply's total: what the next request re-sends
        self.folded: List[str] = []  # the last folded result, whole (Ctrl+O shows it)
        self._last_call: Optional[FinishedCall] = None  # still live: Ctrl+O opens it there
        self._last_call_at = 0  # where in _commits it goes once a line comes after it
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
                self._commit(self.style.apply(for_terminal(notice), "yellow"))
            if kind in ("agent_start", "turn_start"):
                self._working.start(time.monotonic())
                self._wait_for("waiting for the model")
            elif kind == "auto_retry_start":
                self._waiting_since = None  # its notice says the wait: no line yet
                self._progress_at = time.monotonic()
                self._working.retry(event, self._progress_at)
            elif kind == "auto_retry_end" and event.get("finalError") == CANCELLED:
                self._working.retry_at = None
                self._commit(self.style.apply("(stopped before the retry)", "dim"))
            elif kind == "compaction_start":
                self._wait_for("compacting the conversation")
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
        self.on_change()

    def _wait_for(self, what: str) -> None:
        self._waiting_since = time.monotonic()
        self._waiting_for = what
        self._progress_at = 0.0

    def _show_delta(self, update: Dict[str, Any]) -> None:
        kind = update["type"]
        if kind == "text_delta":
            self._waiting_since = None  # the first token is here: the spinner stops
            if self._answer is None:
                self._answer = MarkdownStream(self.style)
            self._answer.feed(for_terminal(update.get("delta") or ""))
            finished = self._answer.take_finished()
            if finished is not None:  # a Block: a narrower window renders it again
                self._commit(Block(finished, partial(render_finished, style=self.style)))
        elif kind == "thinking_delta":
            self._waiting_since = None
            *done, self._thinking = (self._thinking + for_terminal(update.get("delta") or "")
                                     ).split("\n")
            for line in done:
                self._commit_dim(line)
        elif kind == "text_end":
            self._end_answer()
        elif kind == "thinking_end":
            self._commit_dim(self._thinking)
            self._thinking = ""

    def _end_answer(self) -> None:
        if self._answer is not None:
            rest = self._answer.take_rest()
            self._commit(Block(rest, partial(render_markdown, style=self.style)))
            self._answer = None

    def _end_reply(self, message: Dict[str, Any]) -> None:
        self._waiting_since = None
        self._end_answer()
        if self._thinking:
            self._commit_dim(self._thinking)
            self._thinking = ""
        self._add_usage(message.get("usage") or {})
        reason = message.get("stopReason")
        if reason == "error":
            self._failure = "error: " + one_line(message.get("errorMessage") or "unknown error")
        elif reason == "aborted":
            self._commit(self.style.apply("(stopped)", "dim"))

    def _show_failure(self) -> None:
        """The held error line of a failed reply the harness did not retry (after it
        come only turn_end and agent_end, then the harness's retry or what follows)."""
        if self._failure is not None:
            self._commit(self.style.apply(for_terminal(self._failure), "red"))
            self._failure = None

    def _start_call(self, event: Dict[str, Any]) -> None:
        if not self._running:
            self._running_since = time.monotonic()
            self._progress_at = 0.0
        self._running[event["toolCallId"]] = describe_call(event["toolName"], event["args"])
        self._waiting_since = None

    def _end_call(self, event: Dict[str, Any]) -> None:
        header = self._running.pop(event["toolCallId"], None) or describe_call(
            event["toolName"], event.get("args"))
        self._window = []  # the live output is replaced by the folded result
        title = self.style.apply("  " + for_terminal(header), "bold")
        call = FinishedCall(title, event, self.style, hint=self.expandable)
        if call.is_folded(self.width):
            self.folded = call.whole(self.width)
        if not self.expandable:  # no live area to keep it in (the line mode)
            self._commits += call.lines(self.width)
            return
        self._let_go_of_last_call()
        self._last_call, self._last_call_at = call, len(self._commits)

    def _let_go_of_last_call(self) -> None:
        """The last finished call goes to the scrollback, as it is shown now, at its
        place among the lines (what came before it stays before it)."""
        if self._last_call is not None:
            at = self._last_call_at
            self._commits[at:at] = self._last_call.lines(self.width)
            self._last_call = None

    def _commit(self, entry: Entry) -> None:
        self._commits.append(entry)

    def _commit_dim(self, line: str) -> None:
        self._commits += [self.style.apply(row, "dim") for row in wrap(line, self.width)]

    # --- For the REPL: what to draw ------------------------------------------------------

    def take_commits(self) -> List[str]:
        """The finished lines since the last call, in order (each drawn once), made
        for the view's width (the line mode prints them)."""
        return [line for entry in self.take_entries() for line in lines_of(entry, self.width)]

    def take_entries(self) -> List[Entry]:
        """The same as lines and Blocks, which the renderer can render again for
        another width (tui/renderer.py)."""
        with self._lock:
            if len(self._commits) > self._last_call_at:  # a line came after it
                self._let_go_of_last_call()
            lines, self._commits = self._commits, []
            self._last_call_at = 0
            return lines

    def open_last_call(self) -> bool:
        """Ctrl+O: open (or close) the last finished call in place, when it is folded and
        still in the live area; False when it is not (the REPL prints it below)."""
        with self._lock:
            if self._last_call is None or not self._last_call.is_folded(self.width):
                return False
            self._last_call.toggle()
        self.on_change()
        return True

    def let_go(self) -> None:
        """Everything live that is finished, to the scrollback (the screen closes)."""
        with self._lock:
            self._let_go_of_last_call()

    def live(self, now: float) -> List[str]:
        """The live part now: the last finished call (until a line comes after it), the
        answer's unfinished block, the spinner line and a running command's last lines."""
        with self._lock:
            lines = self._last_call.lines(self.width) if self._last_call else []
            lines += self._answer.live(self.width, self.rows) if self._answer else []
            if self._thinking:
                lines += [self.style.apply(row, "dim") for row in wrap(self._thinking,
                                                                       self.width)]
            status = self._status(now)
            if status is not None:
                what, since = status
                lines.append(status_line(what, since, now, self.width, self.style))
            if self._running:
                lines += [self.style.apply("    " + for_terminal(line), "dim")
                          for line in self._window]
            return lines

    def busy(self) -> bool:
        """Is a spinner on screen (so the REPL redraws it as the seconds pass)?"""
        with self._lock:
            return self._status(time.monotonic()) is not None

    def progress(self, now: float) -> Optional[str]:
        """For the line mode: "running: $ sleep 8 · 5s" when one is due, else None."""
        with self._lock:
            status = self._status(now)
            if status is None or now - self._progress_at < PROGRESS_SECONDS:
                return None
            what, since = status
            if since is None:  # a countdown says its own time
                self._progress_at = now
                return what
            if now - since < PROGRESS_SECONDS:
                return None  # a short wait needs no line
            self._progress_at = now
            return f"{what}: {now - since:.0f}s"

    def _status(self, now: float):
        """What the status line says, and since when (None: no clock); None for no
        line: nothing runs, or a question waits for the user."""
        if self._working.held:
            return None
        if self._running:
            return "running " + for_terminal(", ".join(self._running.values())), \
                self._running_since
        if self._waiting_since is not None:
            return self._waiting_for, self._waiting_since
        return self._working.status(now)

    # --- For the REPL: its own lines -------------------------------------------------------

    def note(self, text: str, style: Optional[str] = None) -> None:
        """A line from the REPL itself ("queued: ..."), into the scrollback."""
        with self._lock:
            self._commit(self.style.apply(text, style) if style else text)
        self.on_change()

    def wait(self, what: Optional[str]) -> None:
        """Show the spinner with `what` ("compacting"); None ends the wait."""
        with self._lock:
            if what is None:
                self._waiting_since = None
            else:
                self._wait_for(what)
        self.on_change()

    def hold(self, held: bool) -> None:
        """A question waits for the user (True): no status line; answered (False): the
        clock of what runs starts again, since nothing ran meanwhile."""
        with self._lock:
            self._working.held = held
            if not held:
                self._running_since = time.monotonic()
        self.on_change()

    def show_footer(self, model: Any, also: str = "") -> None:
        """The line after a prompt's run, with `also` at its end (the tools --confirm
        always allows); the counts start again from zero."""
        with self._lock:
            self._show_failure()
            self._end_answer()
            self._waiting_since = None
            self._working.end()
            self._running.clear()
            usage = self._usage if self._usage["reported"] else None
            footer = footer_text(usage, self._context_tokens, model)
            footer += f" · {also}" if also else ""
            self._commit(self.style.apply(footer, "dim"))
            self._reset_usage()
        self.on_change()

    def _add_usage(self, usage: Dict[str, Any]) -> None:
        for key in ("input", "output", "cacheRead"):
            self._usage[key] += usage.get(key, 0)
        self._usage["cost"] += (usage.get("cost") or {}).get("total", 0.0)
        if usage.get("totalTokens"):  # zero: the reply never said (stopped before its last chunk)
            self._context_tokens = usage["totalTokens"]
            self._usage["reported"] = True

    def _reset_usage(self) -> None:
        self._usage = {"input": 0, "output": 0, "cacheRead": 0, "cost": 0.0, "reported": False}


def last_lines(text: str, count: int) -> List[str]:
    """Example: last_lines("a\\nb\\n\\nc\\n", 2) -> ["b", "c"] (blank lines skipped)."""
    return [line for line in text.split("\n") if line.strip()][-count:]
