"""Extensions' `ctx.ui` in the REPL: statuses and widgets in the live area, questions
asked as the REPL asks its own.

An extension calls `api.ctx.ui` (project/extension_context.py) from whatever thread
runs its handler; here that is one of two:

    handler runs on        for                                 a question is asked
    the main thread        an extension's /command,            in the editor, like
                           session_start, session_shutdown     /tree's (screen.ask)
    the agent's thread     tool hooks, session_before_tree     through PendingAnswer, like
                           (/tree's move runs on the worker)   a --confirm question

Statuses and widgets are state that the main thread draws at its next frame: an
`ExtensionArea` under the run view's spinner line and above the input:

    ⠹ running $ pytest -q · 3s           <- the run view
    runs: run 2 of this session          <- the statuses, one line, dim
    ┆ todo: 3 open                       <- each widget, up to WIDGET_LINES lines
    ─────────────────────────────
    > |

An extension's keys (api.register_shortcut) work at the prompt: the screen hands each
key the editor leaves to its handler, on the main thread, as a /command runs.

On TERM=dumb (no live area) a status is a note instead, and a widget a block of notes
each time it changes, as print mode prints them; no key reaches an extension there
(there are commands). After SIGTERM or SIGHUP nothing is asked (nobody reads the
keyboard any more): a question answers no.

Left out: pi's footer placement of statuses, a widget below the editor, input and
editor dialogs.
"""

import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence

from ...project.extension_context import LineUI
from ...tui.style import Style
from ...tui.width import cut
from ..terminal import for_terminal

if TYPE_CHECKING:
    from .interactive_mode import Repl

WIDGET_LINES = 5  # a widget's lines shown at most: the live area stays small
SELECT_OPTIONS = 20  # options a select question lists at most


class ExtensionArea:
    """The statuses and widgets extensions set (any thread), as live-area lines."""

    def __init__(self, style: Style):
        self.style = style
        self._lock = threading.Lock()
        self._statuses: Dict[str, str] = {}  # key -> text, in the order first set
        self._widgets: Dict[str, List[str]] = {}  # key -> its lines

    def set_status(self, key: str, text: Optional[str]) -> None:
        with self._lock:
            if text:
                self._statuses[str(key)] = " ".join(for_terminal(str(text)).split())
            else:
                self._statuses.pop(str(key), None)

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        with self._lock:
            if lines:
                self._widgets[str(key)] = [for_terminal(str(line)).expandtabs(4).replace("\n", " ")
                                           for line in list(lines)[:WIDGET_LINES]]
            else:
                self._widgets.pop(str(key), None)

    def render(self, width: int) -> List[str]:
        """Example: a status "runs" -> "run 2" and a widget ["3 open"], width 40 ->
        ["runs: run 2", "┆ 3 open"] (dim); each line cut to `width` columns."""
        with self._lock:
            lines = []
            if self._statuses:
                lines.append(" · ".join(f"{key}: {text}"
                                        for key, text in self._statuses.items()))
            for widget in self._widgets.values():
                lines += ["┆ " + line for line in widget]
        return [self.style.apply(cut(line, width), "dim") for line in lines]


class ReplUI(LineUI):
    """`ctx.ui` in the REPL: notify as a note (LineUI's line), statuses and widgets
    in the live area, confirm and select answered by the user."""
    has_ui = True

    def __init__(self, repl: "Repl"):
        super().__init__(repl.note)
        self.repl = repl
        self.area: Optional[ExtensionArea] = None  # None: no live area (TERM=dumb)
        if repl.screen.live_area:
            self.area = repl.screen.extension_area = ExtensionArea(repl.screen.style)
            project = repl.harness.project
            shortcuts = project.extensions.shortcuts if project is not None else {}
            repl.screen.shortcuts = {key: self._runner(command)
                                     for key, command in shortcuts.items()}

    def _runner(self, command: Any) -> Callable[[], None]:
        """A key's handler, as an extension's /command runs: a failure is one red note."""
        def run() -> None:
            try:
                command.run()
            except Exception as error:  # noqa: BLE001 - an extension's bug must not end the REPL
                self.repl.note(f"{command.name} (from {command.source}) failed: "
                               f"{type(error).__name__}: {error}", "red")
        return run

    def set_status(self, key: str, text: Optional[str]) -> None:
        if self.area is None:
            super().set_status(key, text)
            return
        self.area.set_status(key, text)
        self.repl.screen.changed()

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        if self.area is None:
            super().set_widget(key, lines)
            return
        self.area.set_widget(key, lines)
        self.repl.screen.changed()

    def confirm(self, title: str, message: str) -> bool:
        answer = self._ask(f"{title}\n{message} [y/N] ")
        return answer.lower() in ("y", "yes")

    def select(self, title: str, options: Sequence[str]) -> Optional[str]:
        """A numbered list; the answer is a number (or the option's text)."""
        shown = [str(option) for option in list(options)[:SELECT_OPTIONS]]
        if not shown:
            return None
        listed = "\n".join(f"  {number}. {option}" for number, option in
                           enumerate(shown, 1))
        answer = self._ask(f"{title}\n{listed}\nwhich one? (number, Enter for none) ")
        if answer.isdigit() and 1 <= int(answer) <= len(shown):
            return shown[int(answer) - 1]
        return answer if answer in shown else None

    def _ask(self, question: str) -> str:
        """The typed answer, "" for none: in the editor on the main thread, through the
        --confirm handoff on the agent's (see the docstring)."""
        question = for_terminal(question)
        if self.repl.stopping:
            return ""
        if threading.current_thread() is threading.main_thread():
            return self.repl.ask(question) or ""
        return self.repl.ask_confirmation(question)
