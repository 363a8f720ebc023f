"""What an extension reaches while the agent runs: `api.ctx`, its UI and its session.

pi hands a context to every handler; here there is one for the whole run,
`api.ctx`, because what it points at (the front end, the current session) is looked
up when it is used:

    ctx.cwd                        the working directory
    ctx.has_ui                     True where someone can answer (the REPL and rpc)
    ctx.ui.notify(text, level)     a message to the user ("info", "warning", "error")
    ctx.ui.set_status(key, text)   a short status under a key; None clears it
    ctx.ui.set_widget(key, lines)  a few lines shown above the input; None clears them
    ctx.ui.confirm(title, message) -> bool           a yes/no question
    ctx.ui.select(title, options) -> str or None     one of a list, or None
    ctx.session.custom_entries(custom_type)          api.append_entry's records on the
                                                     current branch, oldest first
    ctx.session.get_branch(entry_id=None)            every entry from the root to entry_id
                                                     (default: where the session is), oldest
                                                     first (pi's getBranch): a tool result's
                                                     details read back, what a move leaves
    ctx.session.file                                 the session file; None in memory

Each front end draws the UI its own way and installs it when it starts
(begin_extensions): print mode as one line on stderr for notify and set_status and
a block of lines for each change of a widget, the REPL notes, a status line and widgets in its live area and questions in its editor
(modes/interactive/extension_ui.py), rpc as pi's extension_ui_request records. JSON mode, like pi's, has no UI at all: `NoUI`, where a question answers no
(confirm) or nothing (select), so an extension that asks is refused, never waved on.

Left out: pi's input, editor and custom dialogs, and a widget's placement.
"""

from typing import Any, Callable, Dict, List, Optional, Sequence

from ..files.text import one_line


class NoUI:
    """Nobody to show anything to or ask: messages dropped, questions refused."""
    has_ui = False

    def notify(self, text: str, level: str = "info") -> None:
        pass

    def set_status(self, key: str, text: Optional[str]) -> None:
        pass

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        pass

    def confirm(self, title: str, message: str) -> bool:
        return False

    def select(self, title: str, options: Sequence[str]) -> Optional[str]:
        return None


class LineUI(NoUI):
    """Print mode: notify and set_status as one line each on stderr (`say`), never
    on stdout, which carries the answer; a widget as a block of lines when it changes;
    questions as NoUI."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self._widgets: Dict[str, List[str]] = {}  # key -> the lines last printed

    def notify(self, text: str, level: str = "info") -> None:
        label = "" if level == "info" else f"{level}: "
        self.say(f"miniagent: {label}{one_line(str(text), 300)}")

    def set_status(self, key: str, text: Optional[str]) -> None:
        if text:  # clearing a status has nothing to print
            self.say(f"miniagent: {key}: {one_line(str(text), 300)}")

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        """Example: ("todo", ["1 of 2 done", "[x] a"]) -> "miniagent: todo:" then each
        line indented; the same lines again print nothing, nor does clearing."""
        shown = [one_line(str(line), 300) for line in lines or []]
        if shown == self._widgets.get(key, []):
            return
        self._widgets[key] = shown
        if shown:
            self.say(f"miniagent: {key}:")
            for line in shown:
                self.say(f"  {line}")


class SessionView:
    """The harness's current session as an extension reads it (the harness may move
    to another session, so it is looked up at each call)."""

    def __init__(self, harness: Any):
        self._harness = harness

    @property
    def file(self) -> Optional[str]:
        """The session file, or None for one kept in memory (--no-session)."""
        return self._harness.session.file_path

    def get_branch(self, entry_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The entries from the root to `entry_id` (default: where the session is now),
        oldest first; [] for an unknown id. An entry off it is on another branch."""
        return self._harness.session.get_branch(entry_id)

    def custom_entries(self, custom_type: Optional[str] = None) -> List[Dict[str, Any]]:
        """The `custom` entries on the current branch (of `custom_type`, if given),
        oldest first: what an extension recorded on the way to where the session is."""
        return [entry for entry in self.get_branch()
                if entry.get("type") == "custom"
                and custom_type in (None, entry.get("customType"))]


class ExtensionContext:
    """`api.ctx`: the same object for every extension of a run (see the docstring)."""

    def __init__(self, cwd: str):
        self.cwd = cwd
        self.ui: NoUI = NoUI()  # until a front end installs its own
        self.session: Optional[SessionView] = None  # until the harness is built

    @property
    def has_ui(self) -> bool:
        return self.ui.has_ui


def begin_extensions(harness: Any, ui: NoUI) -> None:
    """A front end starts: its UI for the extensions, then their session_start (a
    harness built without a project, as in some tests, has no extensions)."""
    if harness.project is not None:
        harness.project.extensions.begin(ui)


def end_extensions(harness: Any) -> None:
    """A front end ends: session_shutdown while its UI still works (told once, so the
    harness's close() after it tells nothing more)."""
    if harness.project is not None:
        harness.project.extensions.shutdown()
