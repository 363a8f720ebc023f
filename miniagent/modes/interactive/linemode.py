"""The line mode: the REPL on a terminal that takes no control codes (TERM=dumb).

An editor's shell buffer (Emacs M-x shell), some CI consoles and screen readers show
text, and a cursor move or a colour code arrives there as garbage. So on TERM=dumb the
REPL draws nothing twice: the terminal stays in its ordinary line mode (the kernel
echoes what is typed and edits the line: Backspace, Ctrl-U), every line is printed
once, and instead of a spinner a plain progress line comes every few seconds:

    > run the slow tests
      running $ sleep 8: 5s
      $ sleep 8
        (no output)

It offers what screen.py offers the REPL (read_input, watch, ask, put_back), with the
same run view (view.py) in plain text, printed as its lines are finished (on the
agent's thread too: a lock keeps them in order). Left out: history, completion, Esc (in line
mode a key reaches the program only with Enter; Ctrl-C stops a turn).
"""

import os
import select
import sys
import threading
import time
from typing import Callable, List, Optional, TextIO, Tuple

from ...tui.style import Style
from .screen import Interrupted
from .view import RunView

POLL_SECONDS = 0.1  # while the agent works: how often output and the keyboard are looked at


class LineScreen:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.view = RunView(Style(False), on_change=self._flush)  # printed as they come
        self._writing = threading.Lock()  # the agent's thread prints too: lines in order
        self.question: Optional[str] = None  # a --confirm question: printed once
        self.queued: Callable[[], List[Tuple[str, str]]] = lambda: []  # (kind, text)
        self.live_area = False  # lines are printed once; the kernel echoes what is typed
        self.interrupts = 0  # Ctrl-C presses while the agent works, not yet handled
        self._at_prompt = False
        self._asked: Optional[str] = None  # the question already printed

    def start(self) -> None:
        pass

    def close(self) -> None:
        self._flush()

    def changed(self) -> None:
        self._flush()

    def interrupt(self) -> None:
        """Ctrl-C: at the prompt it ends the line being read (the kernel has it)."""
        if self._at_prompt:
            raise Interrupted("")
        self.interrupts += 1

    # --- What the REPL asks of its screen --------------------------------------------------

    def read_input(self) -> Optional[str]:
        """A line (a trailing backslash asks for the next one); None at end of input."""
        lines: List[str] = []
        prompt = "> "
        while True:
            line = self._read_line(prompt)
            if line is None:
                return "\n".join(lines) if lines else None
            if not line.endswith("\\"):
                return "\n".join(lines + [line])
            lines.append(line[:-1])
            prompt = "· "

    def watch(self, done: Callable[[float], bool], on_line: Callable[[str], None],
              on_follow_up: Callable[[str], None], on_stop: Callable[[], None],
              take_back: Callable[[], str], on_closed: Callable[[], None]) -> None:
        """While the agent works: print its lines as they come, a progress line every
        few seconds, and hand each line typed meanwhile to `on_line`; Ctrl-C calls
        `on_stop`, the end of input `on_closed`."""
        fd = sys.stdin.fileno()
        typed, keyboard = b"", True
        while not done(0 if keyboard else POLL_SECONDS):  # after Ctrl-D: the run alone
            self._flush()
            if self.interrupts:
                self.interrupts = 0
                on_stop()
            if not keyboard or not select.select([fd], [], [], POLL_SECONDS)[0]:
                continue
            data = os.read(fd, 4096)
            keyboard = bool(data)
            if not keyboard:
                on_closed()
            *lines, typed = (typed + data).split(b"\n")
            for line in lines:
                on_line(line.decode("utf-8", errors="replace"))
        if self.interrupts:  # the run stopped before the loop looked again
            self.interrupts = 0
            on_stop()
        self._flush()
        if typed:
            self.put_back(typed.decode("utf-8", errors="replace"))

    def ask(self, question: str) -> Optional[str]:
        self._flush()
        answer = self._read_line(question)
        return None if answer is None else answer.strip()

    def ring(self) -> None:
        """No bell on TERM=dumb: a control code, shown there as ^G (notify.py)."""

    def remember(self, text: str) -> None:
        """No history in the line mode (the kernel edits the line)."""

    def put_back(self, text: str) -> None:
        """No line to put it in (the kernel owns the line): show it, to type again."""
        self.view.note(f"(to type again: {text})")

    # --- Writing and reading ------------------------------------------------------------------

    def _flush(self) -> None:
        """Print the run view's finished lines, a question, a progress line if due."""
        with self._writing:
            lines = self.view.take_commits()
            if self.question and self.question != self._asked:
                lines.append(self.question)
                self._asked = self.question
            progress = self.view.progress(time.monotonic())
            if progress:
                lines.append("  " + progress)
            if lines:
                self._write("\n".join(lines) + "\n")

    def _read_line(self, prompt: str) -> Optional[str]:
        """A line the kernel edited (input() without readline); None at end of input."""
        self._flush()
        self._at_prompt = True
        try:
            return input(prompt)
        except EOFError:
            return None
        finally:
            self._at_prompt = False

    def _write(self, text: str) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            pass  # a terminal that went away must not break the run being stopped
