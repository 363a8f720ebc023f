"""Reading lines at the prompt: readline, its history file, pasted blocks, short answers.

Python's `input()` becomes a line editor once the `readline` module is imported: arrow
keys, Ctrl-A / Ctrl-E, Ctrl-R to search earlier lines. This file sets up the rest:

  * the history lives in MINIAGENT_HOME/history (1,000 lines), read at the start of the
    REPL and written at its end;
  * bracketed paste: the terminal marks the start and end of a pasted block, so a block
    of several lines arrives as one input instead of one prompt per line;
  * text can be put back into the next input line (`insert_text`: the steering lines an
    abort gave back, a /fork's prompt);
  * `ask_line` reads a short answer ("3", "y") that is not kept in the history
    (`ask_line_or_interrupt` too, letting Ctrl-C through).

Left out: completion, key bindings of our own, Windows (no readline there).
"""

import os
import readline
import select
import signal
import sys
from typing import Optional

from ...files.home import history_file

HISTORY_LENGTH = 1000


def insert_text(text: str) -> None:
    readline.insert_text(text)
    readline.redisplay()


def input_waiting() -> bool:
    """Is more input already there (the rest of a pasted block)?"""
    try:
        return bool(select.select([sys.stdin], [], [], 0)[0])
    except (OSError, ValueError):
        return False


def set_up_readline(bracketed_paste: bool) -> Optional[str]:
    """Load the history file (MINIAGENT_HOME/history); returns its path, or None if it
    cannot be read. Bracketed paste makes a pasted block one input (the terminal marks
    its start and end); it is a control code, so not on a dumb terminal."""
    readline.parse_and_bind(f"set enable-bracketed-paste {'on' if bracketed_paste else 'off'}")
    path = str(history_file())
    readline.set_history_length(HISTORY_LENGTH)
    try:
        readline.read_history_file(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    return path


def save_history(path: Optional[str]) -> None:
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        readline.write_history_file(path)
    except OSError:
        pass  # a read-only home: the session still worked, only the history is lost


def ask_line(question: str) -> Optional[str]:
    """One line typed at the prompt, stripped; None on Ctrl-C or Ctrl-D. Answers are not
    kept in the line history (a "3" there would only get in the way)."""
    try:
        return ask_line_or_interrupt(question)
    except KeyboardInterrupt:
        return None


def ask_line_or_interrupt(question: str) -> Optional[str]:
    """As ask_line, but Ctrl-C raises KeyboardInterrupt (the start-up trust question:
    there Ctrl-C quits, it is no answer); None on Ctrl-D."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        answer = input(question)
    except (EOFError, KeyboardInterrupt) as ended:
        sys.stdout.write("\n")  # the cursor is still on the question's line
        if isinstance(ended, KeyboardInterrupt):
            raise
        return None
    finally:
        signal.signal(signal.SIGINT, previous)
    last = readline.get_current_history_length()
    if answer.strip() and last and readline.get_history_item(last) == answer:
        readline.remove_history_item(last - 1)  # numbered from 1 to read, from 0 to remove
    return answer.strip()
