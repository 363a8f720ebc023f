"""Rendering: the non-interactive front ends, each just a subscriber to the event bus.

The agent announces everything as events (events.py); a front end decides what a
person or a program gets to see. Three views, one event stream:

  * `JsonLines`: every event as one compact JSON line on stdout, for programs
    (`--mode json`). Nothing else is ever written to stdout in that mode.
  * `StepPrinter`: a short account of the work on stderr while it happens: what the
    model says between steps, each tool call on one line, the first lines of its result.
    Example:

        Let me see what is in this project.
          $ ls
            README.md
            hello.py
        Now let me run it and see the error.
          $ python3 hello.py
            ... (6 lines before)
            !                        ^^^
            ! NameError: name 'nme' is not defined. Did you mean: 'name'?
            ! Command exited with code 1

  * `final_answer`: the text of the last assistant message, which print mode puts on
    stdout so that `miniagent -p "..." > answer.txt` captures just the answer.

Left out: the interactive terminal (streaming text as it arrives, colours, input while
the agent works) comes with the terminal issue, as another subscriber.
"""

import json
import sys
from typing import Any, Callable, Dict, List, Optional, TextIO

from .httperrors import one_line
from .messages import Message, text_of, tool_calls

RESULT_LINES = 3  # result lines shown per tool call
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
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"), default=str)
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except OSError as error:
            self.closed = True
            self.on_closed(error)


class StepPrinter:
    """Show the agent's steps on a text stream (stderr) while it works; with
    show_steps=False only the retry notices (print mode keeps stderr for problems)."""

    def __init__(self, out: TextIO = sys.stderr, show_steps: bool = True):
        self.out = out
        self.show_steps = show_steps

    def __call__(self, event: Dict[str, Any]) -> None:
        kind = event["type"]
        if not self.show_steps and kind not in ("auto_retry_start", "http_retry"):
            return
        if kind == "message_end" and event["message"].get("role") == "assistant":
            self._show_commentary(event["message"])
        elif kind == "tool_execution_start":
            self._write("  " + describe_call(event["toolName"], event["args"]))
        elif kind == "tool_execution_end":
            self._show_result(event["result"], event["isError"])
        elif kind == "auto_retry_start":
            self._write(f"  (retry {event['attempt']}/{event['maxAttempts']} in "
                        f"{event['delayMs'] / 1000:g} s: {one_line(event['errorMessage'])})")
        elif kind == "http_retry":
            self._write(f"  (trying the request again in {event['delayMs'] / 1000:.1f} s: "
                        f"{one_line(event['errorMessage'])})")

    def _show_commentary(self, message: Message) -> None:
        # Only text that comes with tool calls is commentary; the final answer is the
        # caller's to print (on stdout).
        text = text_of(message).strip()
        if text and tool_calls(message):
            self._write(text)

    def _show_result(self, result: Dict[str, Any], is_error: bool) -> None:
        text = text_of(result)
        lines = [line for line in text.split("\n") if line.strip()] or ["(no output)"]
        hidden = len(lines) - RESULT_LINES
        if is_error:  # an error's cause is at its end ("NameError: ...", "exited with code 1")
            shown, marker = lines[-RESULT_LINES:], "! "
            if hidden > 0:
                self._write(f"    ... ({hidden} lines before)")
        else:
            shown, marker = lines[:RESULT_LINES], ""
        for line in shown:
            self._write("    " + marker + shorten(line))
        if hidden > 0 and not is_error:
            self._write(f"    ... ({hidden} more lines)")

    def _write(self, text: str) -> None:
        try:
            self.out.write(for_terminal(text) + "\n")
            self.out.flush()
        except OSError:
            pass  # a closed terminal: the run goes on without its display


# Control characters shown as what they are instead of sent to the terminal: file
# contents and model output may carry escape sequences that retitle the window, clear
# the screen or write the clipboard (OSC 52). Tabs and newlines stay as they are.
_VISIBLE = {code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in "\t\n"}
_VISIBLE[0x7F] = "\u2421"
_VISIBLE.update({code: "\ufffd" for code in range(0x80, 0xA0)})


def for_terminal(text: str) -> str:
    """Example: "red \\x1b[31m" -> "red \u241b[31m" (ESC shown as the symbol for ESC)."""
    return text.translate(_VISIBLE)


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


def final_answer(messages: List[Message]) -> Optional[Message]:
    """The last assistant message of the run, or None."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return message
    return None
