"""Choosing one of a numbered list: the sessions `-r` and `/resume` offer, the prompts
`/fork` offers, where no picker can be drawn.

Both the command line (`miniagent -r`, before any run) and the terminal on TERM=dumb
(`/resume`) show this project's recent sessions the same way, one numbered row each
(a terminal with a live area shows the same rows in a picker: tui/picker.py):

      1.  2 min ago  Fix the failing test in calc.py
      2. yesterday   Explain the retry layer

and read a number until it is one of them; an empty answer cancels. Only how a line is
read differs (plain `input()` on the command line, the REPL's line editor in the
terminal), so the question is passed in as `ask`.

Left out: paging (the 20 most recent are listed; `/resume QUERY` searches the rest).
"""

from typing import Callable, List, Optional

from ..files.text import one_line
from ..session.store import SessionInfo, list_sessions
from .output import describe_age
from .terminal import for_terminal

LISTED = 20  # sessions offered
LABEL_WIDTH = 70


def recent_sessions(cwd: str, folder: str, skip: Optional[str] = None) -> List[SessionInfo]:
    """This project's most recent sessions, newest first, without `skip` (the current)."""
    return [info for info in list_sessions(cwd, session_dir=folder) if info.path != skip][:LISTED]


def label(text: str) -> str:
    """A session's or a message's text as a safe one-line label."""
    return for_terminal(one_line(text, LABEL_WIDTH))


def session_row(info: SessionInfo) -> str:
    """How old the session is, then its name or first message."""
    return f"{describe_age(info.modified):>10}  {label(info.name or info.first_message)}"


def numbered(rows: List[str]) -> str:
    return "\n".join(f"{number:>3}. {row}" for number, row in enumerate(rows, 1))


def choose_number(ask: Callable[[str], str], count: int, question: str,
                  complain: Callable[[str], None]) -> Optional[int]:
    """The index of a number from 1 to count, asked until given; None for an empty
    answer (cancel)."""
    while True:
        answer = ask(f"{question} (1-{count}, Enter to cancel) ").strip()
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        complain(f"{answer!r} is not a number from 1 to {count}")
