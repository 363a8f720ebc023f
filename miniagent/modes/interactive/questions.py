"""Questions the terminal asks: where the answer comes from, and who waits for it.

The REPL asks three kinds of question, and each needs its answer from a different
place, because of who owns the keyboard at that moment:

    question                         asked by             answered by
    "summarize the branch? [y/N]"    the main thread,     the editor, like any input
    "Resume which session? (number)" at the prompt        (screen.ask)
    "Trust this project's ...? [y/N]" before the REPL      the editor, once (screen.ask_once;
                                                          Ctrl-C quits with 130)
    "Run it? [y]es, [n]o, [a]lways"  the agent's thread,  the next line the main thread
                                     while a tool waits   reads: `PendingAnswer`

The last one is the subtle one. While the agent works, the main thread reads the
keyboard and turns every line into a steering message (interactive_mode.py). A --confirm
question is asked on the agent's thread, so the two must agree on whose line it is:
while a question is pending, the next line typed is its answer and nothing else. The
asking thread waits for it on a queue; Ctrl-C (the run stops) or the end of input
answers it with None, which the gate reads as "no".

Left out: single-key answers without Enter (a "y" typed as the start of a steering
line must not answer a question that appeared meanwhile), timeouts on questions.
"""

import queue
import threading
from pathlib import Path
from typing import Callable, Optional

from .screen import ask_once
from ...project.settings import project_config_dir
from ...project.trust import PROJECT_RESOURCES, record_trust, resolve_trust, should_ask

POLL_SECONDS = 0.1  # how often a waiting question looks whether the run was stopped


class PendingAnswer:
    """Hands the next line typed to a question asked on another thread."""

    def __init__(self) -> None:
        self._answers: "queue.Queue[Optional[str]]" = queue.Queue()
        self.asking = threading.Event()
        self.input_ended = False  # Ctrl-D while the agent worked: no answer will come

    def ask(self, question: str, show: Callable[[str], None],
            cancelled: Callable[[], bool]) -> Optional[str]:
        """Show the question and wait for the line offered next; None when `cancelled()`
        turns true first or the input has ended."""
        while not self._answers.empty():  # a line offered to an earlier, cancelled question
            self._answers.get_nowait()
        if self.input_ended:
            return None
        show(question)
        self.asking.set()
        try:
            while not cancelled():
                try:
                    return self._answers.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    continue
            return None
        finally:
            self.asking.clear()

    def offer(self, line: str) -> bool:
        """Give a typed line to the pending question; False when none is pending (the
        line is the caller's to use)."""
        if not self.asking.is_set():
            return False
        self._answers.put(line)
        return True

    def end_input(self) -> None:
        """The keyboard is closed: a pending question and every later one get None."""
        if not self.input_ended:  # told once (the screen may tell it again)
            self.input_ended = True
            self._answers.put(None)


def ask_trust(cwd: str, home: Path) -> bool:
    """Load this project's .miniagent/ resources? Asks once, in a project that is
    undecided and has something to load, and records the answer (Enter is "no"; Ctrl-D
    decides nothing). Otherwise the recorded answer, where undecided is no. Call it
    before the run is assembled: the resources load then.

    Ctrl-C is no answer here but "get me out": it raises KeyboardInterrupt, which the
    command line turns into exit status 130 before anything is recorded or sent (were
    it "no", the REPL would open and the shell command typed next would reach the model).

    Example, in a fresh clone with .miniagent/extensions/:
        This project has a .miniagent/ folder with extensions. Extensions run as Python
        code inside miniagent; settings, skills and SYSTEM.md change what the agent does.
        Trust /home/me/src/clone and load them (recorded in ~/.miniagent/trust.json)? [y/N]
    """
    if not should_ask(cwd, home):
        return resolve_trust(cwd, home, None)
    folder = project_config_dir(cwd, home)
    found = [name for name in PROJECT_RESOURCES if (folder / name).exists()]
    answer = ask_once(
        f"This project has a .miniagent/ folder with {', '.join(found)}. Extensions run as "
        f"Python code inside miniagent; settings, skills and SYSTEM.md change what the agent "
        f"does.\nTrust {cwd} and load them (recorded in {Path(home) / 'trust.json'})? [y/N] ")
    if answer is None:
        return False
    trusted = answer.lower() in ("y", "yes")
    record_trust(cwd, trusted, home)
    return trusted
