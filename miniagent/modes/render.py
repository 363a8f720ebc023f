"""Rendering: the non-interactive front ends, each just a subscriber to the event bus.

The agent announces everything as events (events.py); a front end decides what a
person or a program gets to see. Three views, one event stream:

  * `JsonLines`: every event as one compact JSON line on stdout, for programs
    (`--mode json`). Nothing else is ever written to stdout in that mode.
  * `StepPrinter`: a short account of the work on stderr while it happens: what the
    model says between steps, each tool call on one line, its result folded to a few
    lines. Example:

        Let me see what is in this project.
          $ ls
            README.md
            hello.py
        Now let me run it and see the error.
          $ python3 hello.py
            … 4 lines before
            !   File "/tmp/miniagent-demo-x/hello.py", line 5, in greet
            !     return "Hello, " + nme + "!"
            !                        ^^^
            ! NameError: name 'nme' is not defined. Did you mean: 'name'?
            ! Command exited with code 1

  * `final_answer`: the last assistant message, which print mode puts on stdout so
    that `miniagent -p "..." > answer.txt` captures just the answer.

The pieces every view shares live here too: `describe_call` (one line per tool call),
`fold_result` (a result cut to five lines and a count; the user's own `!cmd` gets its
last fifty), `Notices` (retries and
compaction) and `footer_text` (tokens, cost and context after a prompt). The
interactive terminal's run view (interactive/view.py) is built from them.

Left out: the terminal's escape codes and the live display (terminal.py, tui/, interactive/).
"""

import json
import sys
from typing import Any, Callable, Dict, List, Optional, TextIO

from ..core.messages import Message, text_of, tool_calls
from ..files.text import one_line, to_json
from ..models.registry import find_model, load_providers
from ..errors import ConfigError
from .terminal import for_terminal

FOLD_LINES = 5  # result lines shown per tool call
USER_SHELL_LINES = 50  # of the user's own `!cmd`: they asked for that output to read it
LINE_WIDTH = 100


class JsonLines:
    """Write each event as one JSON line and flush, so a reader sees it at once.

    When writing fails (the reader went away: `miniagent --mode json ... | head -1`, or
    the disk is full), `on_closed(error)` is called once so the caller can stop the run
    (no point running tools for nobody), and further events are dropped.
    """

    def __init__(self, out: TextIO, on_closed: Callable[[OSError], None] = lambda error: None):
        self.out = out
        self.on_closed = on_closed
        self.closed = False

    def __call__(self, event: Dict[str, Any]) -> None:
        if self.closed:
            return
        # default=str: a tool's details might hold a value JSON cannot spell (a Path);
        # the line must still be written rather than lose the event.
        line = to_json(event, default=str)
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except OSError as error:
            self.closed = True
            self.on_closed(error)


class StepPrinter:
    """Show the agent's steps on a text stream (stderr) while it works; with
    show_steps=False only the notices (retries, compaction: print mode keeps stderr
    for problems)."""

    def __init__(self, out: TextIO = sys.stderr, show_steps: bool = True):
        self.out = out
        self.show_steps = show_steps
        self.notices = Notices()

    def __call__(self, event: Dict[str, Any]) -> None:
        kind = event["type"]
        notice = self.notices(event)
        if notice:
            self._write("  " + notice)
        if not self.show_steps:
            return
        if kind == "message_end" and event["message"].get("role") == "assistant":
            self._show_commentary(event["message"])
        elif kind == "tool_execution_start":
            self._write("  " + describe_call(event["toolName"], event["args"]))
        elif kind == "tool_execution_end":
            error = event["isError"]
            for line in fold_result(text_of(event["result"]), error):
                self._write(("    ! " if error and not line.startswith("…") else "    ") + line)

    def _show_commentary(self, message: Message) -> None:
        # Only text that comes with tool calls is commentary; the final answer is the
        # caller's to print (on stdout).
        text = text_of(message).strip()
        if text and tool_calls(message):
            self._write(text)

    def _write(self, text: str) -> None:
        try:
            self.out.write(for_terminal(text) + "\n")
            self.out.flush()
        except OSError:
            pass  # a closed terminal: the run goes on without its display


def describe_call(name: str, args: Any) -> str:
    """One line per tool call: `$ ls` for bash, `read hello.py` for file tools."""
    args = args if isinstance(args, dict) else {}
    if name == "bash" and "command" in args:
        return "$ " + shorten(str(args["command"]).replace("\n", " ; "))
    if "pattern" in args:  # grep and find
        where = f" in {args['path']}" if args.get("path") else ""
        return shorten(f"{name} {args['pattern']!r}{where}")
    if "path" in args:
        return f"{name} {args['path']}"
    return shorten(f"{name} {json.dumps(args, ensure_ascii=False)}")


def shorten(line: str, width: int = LINE_WIDTH) -> str:
    return line if len(line) <= width else line[:width - 3] + "..."


def fold_result(text: str, keep_end: bool, keep: int = FOLD_LINES) -> List[str]:
    """A tool result cut to `keep` lines plus a count of the hidden ones. A failure's
    cause is at its end (a traceback's last line, "exited with code 1"), so an error
    keeps its last lines (`keep_end`), as does the user's own `!cmd`, whose last lines
    are what was just on their terminal; a model's successful call keeps its first.
    Blank lines are dropped.

    Examples: 60 lines "1".."60"       -> ["1", "2", "3", "4", "5", "… 55 more lines"]
              the same, keep_end        -> ["… 55 lines before", "56", ..., "60"]
    """
    lines = [shorten(line) for line in text.split("\n") if line.strip()] or ["(no output)"]
    hidden = len(lines) - keep
    if hidden <= 0:
        return lines
    if keep_end:
        return [f"… {hidden} lines before"] + lines[-keep:]
    return lines[:keep] + [f"… {hidden} more lines"]


class Notices:
    """The one-line notices of the harness's events: a retry and an automatic
    compaction. A retry counts the retries, the first one 1, of how many at most:

        retrying in 2 s (1 of 3): 503 overloaded
        retrying in 3.6 s (2 of 3): 503 overloaded

    The final error is not a notice: each front end prints it once, at the end (print
    mode's "miniagent: ..." line, the terminal's "error: ..." line).

    Example: Notices()({"type": "compaction_start", "reason": "threshold"})
             -> "compacting the conversation: the context is nearly full"
    """

    def __call__(self, event: Dict[str, Any]) -> Optional[str]:
        """The notice for this event, or None when it needs none."""
        kind = event["type"]
        if kind == "auto_retry_start":
            return retry_text(event["delayMs"], event["attempt"], event["maxAttempts"],
                              event["errorMessage"])
        if kind == "compaction_start":
            why = ("the last request did not fit the model's window" if event["reason"] ==
                   "overflow" else "the context is nearly full")
            return f"compacting the conversation: {why}"
        if kind == "compaction_end":
            return compaction_outcome(event)
        return None


def retry_text(delay_ms: float, retry: int, retries: int, reason: Optional[str]) -> str:
    """Example: (4000, 2, 3, "503 overloaded") -> "retrying in 4 s (2 of 3): 503 overloaded"
    (the seconds to two digits: 3620 -> "3.6 s", 10 -> "0.01 s")."""
    seconds = f"{delay_ms / 1000:.2g}"
    return f"retrying in {seconds} s ({retry} of {retries}): {one_line(reason or '', 200)}"


def compaction_outcome(event: Dict[str, Any]) -> str:
    """The line after an automatic compaction: compacted_text, or why it did not happen."""
    result = event.get("result")
    if result:
        return compacted_text(result["tokensBefore"])
    if event.get("aborted"):
        return "compaction stopped"
    return one_line(event.get("errorMessage") or "compaction failed")


def compacted_text(tokens_before: int) -> str:
    """Example: 41200 -> "compacted: 41,200 tokens of older conversation are now a summary"."""
    return f"compacted: {tokens_before:,} tokens of older conversation are now a summary"


def footer_text(usage: Optional[Dict[str, float]], context_tokens: int, model: Any) -> str:
    """The line after a prompt's run: the tokens it used, what they cost, and how full
    the context window is (the last reply's tokens: what the next request re-sends).
    `usage` is None when no reply reported its tokens, and a context of 0 tokens was
    never reported: a server may send the counts only in its last chunk (llama.cpp),
    so a reply stopped before it has none, and zeros would be a false count.

    Examples: "1,200 in · 80 out · 1,024 cached · $0.0042 · context 2% of 200k"
              "usage unknown · context unknown of 8k"   (a first reply stopped early)
    """
    window = model.context_window
    counts = (f"{usage['input']:,} in · {usage['output']:,} out · {usage['cacheRead']:,} cached"
              f" · {cost_text(usage['cost'], model)}") if usage is not None else "usage unknown"
    full = f"{100 * context_tokens / window:.0f}%" if context_tokens else "unknown"
    return f"{counts} · context {full} of {window // 1000:,}k"


def cost_text(dollars: float, model: Any) -> str:
    """"$0.0042"; "$0.00" for a free model (a registry entry without prices: Ollama, or
    the scripted model); "cost unknown" for an id the registry does not know."""
    if dollars or any(model.cost.values()) or model.api == "scripted":
        return f"${dollars:.2f}" if dollars >= 0.01 or not dollars else f"${dollars:.4f}"
    try:
        known = find_model(load_providers(), model.id, model.provider) is not None
    except ConfigError:  # the user's models.json broke since the start: we cannot tell
        known = False
    return "$0.00" if known else "cost unknown"


def final_answer(messages: List[Message]) -> Optional[Message]:
    """The last assistant message of the run, or None."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return message
    return None
