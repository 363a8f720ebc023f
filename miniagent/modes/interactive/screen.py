"""The REPL's screen: the live area with the input editor always at its bottom.

The terminal UI (tui/) gives the pieces; this file puts them together for the REPL:

    ... the scrollback: the answer's finished blocks, tool calls, notes ...
    Here is the fix: the import was missing, so   <- the answer's open block (live)
    ⠹ running $ pytest -q · 3s                    <- the run view's live lines
        ....F..
    lint: 2 warnings                              <- extensions' statuses and widgets
    Run it? [y]es, [n]o, [a]lways                 <- a --confirm question, if one waits
      ↳ steering: also check the docs             <- queued: the model sees it after the
      ↳ follow-up: then update the changelog         running tool; a follow-up, when done
    ──────────────────────────────────────────
    > fix the import too|                         <- the editor: always live

The main thread owns the terminal. It waits for keys (tui.terminal: raw mode, Ctrl-C
and Ctrl-Z still signals) and for wake-ups from the agent's thread, whose events
change the run view; then it paints a frame (tui.renderer), at most ~30 a second. So
what the user types is never mixed into the output: both are drawn by one thread, the
output above the editor, the editor below it.

`serve(until)` is that loop. It runs at the prompt (`read_input`: until Enter; a key an
extension registered, such as plan mode's Shift+Tab, runs its handler), while
the agent works (`watch`: until the run is over; Enter queues steering, Alt+Enter a
follow-up, Esc stops), for a question (`ask`: until its answer) and for a list to
choose from (`pick`: a tui.picker in the editor's place, until a row is picked or
Esc). Each sets `on_key`, which gets the keys the editor does not use, and Ctrl-C
too: it comes as a signal (the terminal keeps ISIG), and the loop hands it on as the
key it was.

Python's own output (an extension's print(), a warning) is caught while the screen is
on and goes above the live area as lines, instead of through the middle of it.
"""

import io
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ...tui.editor import Editor, key_label
from ...tui.history import History
from ...tui.keys import Key, KeyDecoder
from ...tui.picker import Picker
from ...tui.renderer import FRAME_SECONDS, Renderer
from ...tui.style import Style
from ...tui.terminal import RawTerminal, read_keys
from ...tui.width import wrap
from ..terminal import Screen, for_terminal
from .pasted import ClipboardError, clipboard_image
from .view import RunView

CTRL_C = Key("c", ctrl=True)  # what Ctrl-C is to on_key, whether a signal or a key
TICK_SECONDS = 0.1  # a spinner on screen is redrawn this often
RUN_POLL = 0.05  # while the agent works, the loop looks at the run this often


class TerminalScreen:
    def __init__(self, style: Style, history: Optional[History] = None,
                 completer: Optional[Callable] = None,
                 on_paste: Callable[[str], str] = lambda text: text):
        self.style = style
        self.terminal = RawTerminal()
        self.decoder = KeyDecoder()
        self.renderer = Renderer(self.terminal.write, self.terminal.size)
        self.view = RunView(style, on_change=self.changed, expandable=True)
        self.editor = Editor(style, completer=completer, history=history, on_paste=on_paste)
        self.live_area = True  # redrawn; what is typed is the editor's, not the kernel's
        self.question: Optional[str] = None  # a --confirm question waiting for its line
        self.picker: Optional[Picker] = None  # a list to choose from, in the editor's place
        self.queued: Callable[[], List[Tuple[str, str]]] = lambda: []  # (kind, text) queued
        self.extension_area: Optional[Any] = None  # extensions' statuses, widgets
        self.shortcuts: Dict[str, Callable[[], None]] = {}  # extensions' keys, at the prompt
        self.on_key: Callable[[Key], None] = lambda key: None  # keys the editor left
        self.before_editor: Callable[[Key], bool] = lambda key: False  # True: taken
        self.interrupts = 0  # Ctrl-C presses not yet handled (the signal counts them)
        self.leaving = False  # Ctrl-D while the agent worked: quit when it is done
        self._dirty = True
        self._painted_at = 0.0
        self._ring = False  # a bell asked for (notify.py), rung after the next frame
        self._saved_streams = (sys.stdout, sys.stderr)

    # --- Starting and stopping ---------------------------------------------------------------

    def start(self) -> None:
        self.terminal.on_resume = self._resumed
        self.terminal.start()
        sys.stdout = sys.stderr = LineCatcher(self.view.note)

    def close(self) -> None:
        """Draw what is left into the scrollback, wipe the live area (the editor, the
        rule), leave the cursor where it was, hand the terminal back."""
        sys.stdout, sys.stderr = self._saved_streams
        try:
            self.view.let_go()
            self.paint()
            self.renderer.set_live([])
            self.renderer.leave()
        finally:
            self.terminal.stop()

    def _resumed(self) -> None:  # after Ctrl-Z and `fg`: the screen is the shell's now
        self.renderer.forget()
        self._dirty = True

    # --- What the REPL asks of its screen --------------------------------------------------

    def read_input(self) -> Optional[str]:
        """The next input, when Enter is pressed (a backslash before the cursor makes
        Enter a new line instead); None for Ctrl-D on an empty editor. Ctrl-C raises
        Interrupted with what was typed (the editor is emptied)."""
        got: List[Optional[str]] = [None] if self.leaving else []

        def on_key(key: Key) -> None:
            if key.name == "enter" and not key.alt:
                text = self._enter()
                if text is not None:
                    got.append(text)
            elif key.name == "d" and key.ctrl and self.editor.is_empty():
                got.append(None)
            elif key == CTRL_C:
                self._throw_away_typed()
            elif key_label(key) in self.shortcuts:  # an extension's (extension_ui.py)
                self.shortcuts[key_label(key)]()
            else:
                self._common_key(key)
        self.on_key = on_key
        self.serve(lambda: bool(got))
        return got[-1]

    def watch(self, done: Callable[[float], bool], on_line: Callable[[str], None],
              on_follow_up: Callable[[str], None], on_stop: Callable[[], None],
              take_back: Callable[[], str], on_closed: Callable[[], None]) -> None:
        """While the agent works: Enter hands the line to `on_line` (steering, or a
        question's answer), Alt+Enter to `on_follow_up`, Esc calls `on_stop`, Up on an
        empty editor puts the queued lines back into it (`take_back`); the terminal
        going away calls `on_closed`."""
        def on_key(key: Key) -> None:
            if key.name == "enter":
                text = self._enter(remember=self.question is None)  # not "y" to a question
                if text is not None and not key.alt:
                    on_line(text)  # empty too: a question's "no"
                elif text:
                    on_follow_up(text)
            elif key.name == "escape" or key == CTRL_C:  # the signal handler aborted already
                on_stop()
            elif key.name == "d" and key.ctrl and self.terminal.closed:
                on_closed()
            elif key.name == "d" and key.ctrl and self.editor.is_empty() and not self.leaving:
                self.leaving = True  # read_input ends the REPL once this run is over
                self.view.note("(Ctrl-D: quitting when the agent is done; Esc stops it now)",
                               "dim")
            else:
                self._common_key(key)
        def take_queued_back(key: Key) -> bool:  # before the history gets the Up
            if key.name != "up" or not self.editor.is_empty() or not self.queued():
                return False
            self.editor.set_text(take_back())
            return True
        self.on_key, self.before_editor = on_key, take_queued_back
        try:  # a Ctrl-C counted since the run began (before this loop) is for this run
            self.serve(lambda: done(0), running=True)
        finally:
            self.before_editor = lambda key: False
            self.interrupts = 0

    def ask(self, question: str) -> Optional[str]:
        """A question the REPL asks on the main thread ("summarise the branch? [y/N]"):
        the typed answer, not kept in the history; None for Esc, Ctrl-C or Ctrl-D. What
        was being typed waits until the answer is in."""
        draft = self.editor.text
        self.editor.set_text("")  # not clear(): the draft's pastes are kept for it
        self.question = question
        got: List[Optional[str]] = []

        def on_key(key: Key) -> None:
            if key.name == "enter":
                got.append(self.editor.submit(remember=False).strip())
            elif key.name == "escape" or key == CTRL_C or (key.name == "d" and key.ctrl):
                got.append(None)
        self.on_key = on_key
        self.interrupts = 0
        try:
            self.serve(lambda: bool(got))
        finally:
            self.question = None
            self.interrupts = 0
            self.editor.set_text(draft)
        answer = got[-1] if got else None
        self.view.note(f"{for_terminal(question)}{answer or ''}", "dim")
        return answer

    def remember(self, text: str) -> None:
        """Keep `text` in the history as if it had been typed (the command line's prompt)."""
        if self.editor.history is not None:
            self.editor.history.add(text)

    def pick(self, title: str, rows: List[str], selected: int = 0) -> Optional[int]:
        """One of `rows` chosen in a picker (tui/picker.py) drawn where the editor is:
        its index, None for Esc, Ctrl-C or Ctrl-D. The choice stays in the scrollback."""
        picker = Picker(self.style, for_terminal(title), [for_terminal(row) for row in rows],
                        selected)

        def take(key: Key) -> bool:  # every key is the picker's while it is open
            picker.handle(key)
            return True
        self.picker, self.before_editor, self.on_key = picker, take, take
        self.interrupts = 0
        try:
            self.serve(lambda: picker.done)
        finally:
            self.picker, self.before_editor = None, lambda key: False
            self.interrupts = 0
            self._dirty = True  # the next frame draws the editor back in its place
        if picker.chosen is not None:
            chosen = " ".join(picker.rows[picker.chosen].split())  # without the columns' padding
            self.view.note(f"{picker.title} {chosen}", "dim")
        return picker.chosen

    def put_back(self, text: str) -> None:
        """Text for the editor (queued lines an abort gave back, a /fork's prompt)."""
        self.editor.set_text("\n".join(part for part in (text, self.editor.text) if part))
        self.changed()

    def _enter(self, remember: bool = True) -> Optional[str]:
        """Enter in the editor: the submitted text (kept in the history if `remember`),
        or None when a backslash before the cursor made it a new line instead."""
        if self.editor.enter_continues():
            self.editor.newline_after_backslash()
            return None
        return self.editor.submit(remember=remember)

    def _common_key(self, key: Key) -> None:
        # Ctrl+O: the last folded result, whole: in place while it is live, else below
        if key.name == "o" and key.ctrl and not self.view.open_last_call():
            for line in self.view.folded:
                self.view.note(line)
        elif key.name == "v" and key.ctrl:  # Ctrl+V: the clipboard's image, as if its
            try:                             # path were pasted (pasted.py)
                self.editor.handle(Key("paste", text=clipboard_image()))
            except ClipboardError as error:
                self.view.note(str(error), "yellow")

    def _throw_away_typed(self) -> None:
        """A Ctrl-C at the prompt: raise Interrupted with the text it throws away."""
        typed = self.editor.text
        self.editor.clear()
        self._dirty = True  # the next loop draws the empty editor
        raise Interrupted(typed)

    # --- The loop ------------------------------------------------------------------------------

    def changed(self) -> None:
        """Something to draw (any thread): the main thread wakes up and paints soon."""
        self._dirty = True
        self.terminal.wake()

    def ring(self) -> None:
        """A bell (any thread; notify.py says when): rung by the main thread's next frame."""
        self._ring = True
        self.changed()

    def interrupt(self) -> None:
        """Ctrl-C (the signal handler, on the main thread): counted, handled by the loop."""
        self.interrupts += 1
        self.terminal.wake()

    def serve(self, until: Callable[[], bool], running: bool = False) -> None:
        """Read keys and paint until `until()` holds (checked after each wake-up)."""
        while not until():
            if self.interrupts:  # Ctrl-C came as a signal: handled as the key it was
                self.interrupts = 0
                self.on_key(CTRL_C)
                continue
            self._paint_if_due()
            keys = read_keys(self.terminal, self.decoder, self._timeout(running))
            if self.terminal.resized:
                self.terminal.resized = False
                self.renderer.invalidate()
                self._dirty = True
            if self.terminal.closed:
                self.on_key(Key("d", ctrl=True))  # the terminal went away: as Ctrl-D
            for key in keys:
                if not (self.before_editor(key) or self.editor.handle(key)):
                    self.on_key(key)
                self._dirty = True
        self._paint_if_due(force=True)

    def _timeout(self, running: bool) -> Optional[float]:
        if self._dirty:  # a frame is waiting for its turn
            return max(0.0, self._painted_at + FRAME_SECONDS - time.monotonic())
        if self.view.busy():
            return TICK_SECONDS
        return RUN_POLL if running else None

    def _paint_if_due(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.view.busy() and now - self._painted_at >= TICK_SECONDS:
            self._dirty = True  # the spinner moves on
        if self._dirty and (force or now - self._painted_at >= FRAME_SECONDS):
            self.paint()

    def paint(self) -> None:
        """One frame: new scrollback lines, then the live area with the editor last."""
        self._dirty = False
        self._painted_at = time.monotonic()
        columns, rows = self.terminal.size()
        width = max(10, columns - 1)
        self.view.width, self.view.rows = width, rows
        self.renderer.commit(self.view.take_entries())
        lines = self.view.live(self._painted_at)
        if self.extension_area is not None:  # under the spinner line (extension_ui.py)
            lines += self.extension_area.render(width)
        if self.question:
            lines += [self.style.apply(row, "yellow") for row in wrap(self.question, width)]
        lines += [self.style.apply(f"  ↳ {kind}: {for_terminal(text)}", "dim")
                  for kind, text in self.queued()]
        lines.append(self.style.apply("─" * width, "dim"))
        editor_lines, row, column = (self.picker or self.editor).render(width)
        cursor = (len(lines) + row, column)
        lines += editor_lines
        self.renderer.set_live(lines, cursor)
        if self._ring:  # a second ask before this frame is the same bell
            self._ring = False
            self.renderer.ring()
        self.renderer.paint()


def ask_once(question: str) -> Optional[str]:
    """A question before the REPL starts (trusting a project, the -r picker), in the
    same editor; None for Esc or Ctrl-D. Ctrl-C raises KeyboardInterrupt (no handler of
    the REPL's is installed yet), which the command line turns into exit status 130.
    Without terminal controls: a plain input()."""
    terminal = Screen(sys.stdout)
    if not terminal.controls:
        try:
            return input(question).strip()
        except EOFError:
            sys.stdout.write("\n")
            return None
    screen = TerminalScreen(terminal.styles)
    screen.start()
    try:
        return screen.ask(question)
    finally:
        screen.close()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C at the prompt; carries what was typed at that moment."""

    def __init__(self, typed: str):
        super().__init__(typed)
        self.typed = typed


class LineCatcher(io.TextIOBase):
    """A text stream whose finished lines go to `note`: Python's print() while the
    screen is on (a half line waits for the rest)."""

    def __init__(self, note: Callable[[str], None]):
        super().__init__()
        self.note = note
        self._open = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self._open = (self._open + text).split("\n")
        for line in lines:
            self.note(for_terminal(line))
        return len(text)

    def flush(self) -> None:
        pass
