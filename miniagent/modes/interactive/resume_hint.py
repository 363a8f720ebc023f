"""The REPL's last line: how to come back to this session.

The conversation lives on in its session file after the REPL ends (/quit, Ctrl-D, the
second Ctrl-C, a signal), but the next `miniagent` starts a new one. So once the
terminal is the shell's again, the REPL leaves the command that brings this one back:

    > /quit
    Continue this session: miniagent --session 0193a0cb-e000-7123-b456-789abc… (or miniagent -c)

The id is found from any directory (--session looks in this project's folder, then in
every project's, session/store.py); a session kept elsewhere (--session-dir,
--session FILE) is named by its path instead, which --session takes too. `-c` is
offered only when it would pick this very session: the newest in this directory's
folder. A session never written (no reply yet, --no-session, the demo) has nothing to
come back to, and nothing is said.

Left out: the session's name (/name) in the command: an id never changes or clashes.
"""

import os
import shlex
from typing import Any, Optional

from ...files.home import sessions_root
from ...session.store import find_most_recent, session_dir_for
from ..terminal import Screen


def resume_hint(session: Any, cwd: str) -> Optional[str]:
    """The line, or None when there is no file to come back to.

    Example: a session written in this directory's folder, the newest there ->
             "Continue this session: miniagent --session ID (or miniagent -c)"
    """
    path = session.path
    if path is None:
        return None
    folder = os.path.dirname(path)
    by_id = os.path.realpath(os.path.dirname(folder)) == os.path.realpath(sessions_root())
    command = f"miniagent --session {session.id if by_id else shlex.quote(path)}"
    newest_here = (os.path.realpath(folder) == os.path.realpath(session_dir_for(cwd))
                   and find_most_recent(folder) == path)
    return (f"Continue this session: {command}"
            + (" (or miniagent -c)" if newest_here else ""))


def say_how_to_resume(session: Any, cwd: str, terminal: Screen) -> None:
    """Write the hint, dim, under what the REPL left; a terminal that is gone (SIGHUP)
    takes nothing, and that must not turn the exit into a traceback."""
    hint = resume_hint(session, cwd)
    if hint is None:
        return
    try:
        terminal.out.write(terminal.style(hint, "dim") + "\n")
        terminal.out.flush()
    except (OSError, ValueError):
        pass
