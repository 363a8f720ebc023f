"""editor: how a line editor works, in two strings and a table of keys.

The text being typed, however many lines it has, is held as two strings: what comes
before the cursor and what comes after it. Every edit is then a small change at the
seam between them:

    typing "x"      before += "x"
    Backspace       before = before[:-1]
    Delete          after = after[1:]
    Left            the last character of `before` moves to the front of `after`
    Ctrl-W          before loses its last word

The lines and the cursor's (row, column) are read off the two strings when they are
needed: the row is the number of newlines before the cursor. Up and Down move between
those lines; on the first line Up brings back the previous input from the history
(history.py; whole, however many lines it had), on the last line Down the next one,
and after the newest the draft the user was typing.

Keys are looked up in a table by their label ("ctrl+w", "alt+b", "shift+enter"), so
the bindings read as a list. The editor uses the keys that edit; the others (Enter,
Esc, Ctrl-C, Ctrl-D, Alt+Enter ...) make `handle()` return False, so the program
decides what they mean: Enter sends while idle and queues while the agent works.
Two kinds of Enter are the editor's own: right after a backslash it replaces the
backslash with a new line (the old REPL's "a trailing backslash continues"), and while
the completion menu is open it takes the selected choice (it must not send).

A paste (one Key, keys.py) goes in whole, newlines kept; first the `on_paste` hook may
change it (the REPL turns a dropped image's path into an @attachment), then a large
one becomes a marker (paste.py: "[paste #1 +200 lines]"), put back whole on submit.

Tab asks the completer (a function of the text before the cursor, returning a
menu.Completion): one choice is put in at once, several put in what they share and
open the menu under the input.

`render(width)` lays the lines out for the screen: the first after the prompt, the
others after the continuation mark, each wrapped to the width by character cells (a
wide character that does not fit starts the next row), then the menu rows. It says
where the cursor is, in screen cells, for the renderer to put the terminal's cursor
there. A cursor at the end of a full row is put at the start of a new one, so it never
sits in the last column.

Left out: undo, a kill ring (Ctrl-Y), Up and Down by screen rows inside a wrapped line
(they move by the text's lines), selecting text with the mouse.
"""

import re
from typing import Callable, Dict, List, Optional, Tuple

from .history import History
from .keys import Key
from .menu import Completion, CompletionMenu, common_prefix
from .paste import Pastes
from .style import Style
from .width import cut, text_width, wrap_spans

Completer = Callable[[str], Optional[Completion]]
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # category Cc, but \t and \n
DRAWN_LINES = 200  # lines of the text drawn at most, around the cursor


def key_label(key: Key) -> str:
    """The key as the table names it. Examples: Key("w", ctrl=True) -> "ctrl+w";
    Key("char", "b", alt=True) -> "alt+b"; Key("enter", shift=True) -> "shift+enter"."""
    name = key.text if key.name == "char" else key.name
    modifiers = [label for label, held in (("ctrl", key.ctrl), ("alt", key.alt),
                                           ("shift", key.shift)) if held]
    return "+".join(modifiers + [name])


def clean(text: str) -> str:
    """Text fit to put in the editor: line ends as "\\n", no other control characters
    (an escape code pasted in would be drawn as one). Tabs are kept (code needs them).

    Example: clean("a\\r\\nb\\x1b[1m") -> "a\\nb[1m"
    """
    return CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


# A word is a run of letters, digits and "_" (regex's \w); Alt-B, Alt-F and Ctrl-W
# first skip what is not one (spaces, "/", "."), then the word itself, as readline does.
WORD_BEFORE = re.compile(r"\w*\W*\Z")
WORD_AFTER = re.compile(r"\W*\w*")


def word_start(text: str) -> int:
    """Where the last word of `text` starts. Example: word_start("open src/app.py") -> 13."""
    return WORD_BEFORE.search(text).start()


def word_end(text: str) -> int:
    """Where the first word of `text` ends. Example: word_end("  app.py") -> 5."""
    return WORD_AFTER.match(text).end()


class Editor:
    def __init__(self, style: Style, prompt: str = "> ", continuation: str = "· ",
                 completer: Optional[Completer] = None, history: Optional[History] = None,
                 on_paste: Callable[[str], str] = lambda text: text):
        self.style = style
        self.prompt = prompt
        self.continuation = continuation
        self.completer = completer
        self.history = history
        self.on_paste = on_paste  # what a paste becomes before it goes in
        self.pastes = Pastes()  # the large pastes, shown as markers until submit
        self.before = ""  # the text before the cursor
        self.after = ""   # and after it
        self._drawn_for: Optional[tuple] = None  # the state the last drawing was of
        self._drawn: Tuple[List[str], int, int] = ([], 0, 0)
        self.menu: Optional[CompletionMenu] = None
        self.bindings: Dict[str, Callable[[], None]] = {
            "ctrl+j": self.new_line, "shift+enter": self.new_line,
            "backspace": self.delete_back, "delete": self.delete_forward,
            "alt+backspace": self.delete_word_back, "ctrl+w": self.delete_word_back,
            "ctrl+u": self.delete_to_line_start, "ctrl+k": self.delete_to_line_end,
            "left": self.left, "right": self.right,
            "ctrl+left": self.word_left, "alt+left": self.word_left, "alt+b": self.word_left,
            "ctrl+right": self.word_right, "alt+right": self.word_right,
            "alt+f": self.word_right,
            "home": self.line_start, "ctrl+a": self.line_start,
            "end": self.line_end, "ctrl+e": self.line_end,
        }

    # --- The text -----------------------------------------------------------------------

    @property
    def text(self) -> str:
        return self.before + self.after

    @property
    def lines(self) -> List[str]:
        return self.text.split("\n")

    @property
    def cursor(self) -> Tuple[int, int]:
        """(row, column) in the text, counted in characters."""
        row = self.before.count("\n")
        return row, len(self.before) - (self.before.rfind("\n") + 1)

    def set_text(self, text: str) -> None:
        """Replace the text; the cursor goes to its end."""
        self.before, self.after = clean(text), ""
        self.menu = None

    def insert(self, text: str) -> None:
        self.before += clean(text)

    def clear(self) -> None:
        self.set_text("")
        self.pastes.forget()

    def is_empty(self) -> bool:
        return not self.text

    def submit(self, remember: bool = True) -> str:
        """The text, its paste markers expanded, now cleared; kept in the history unless
        `remember` is False (a short answer to a question would only get in the way)."""
        text = self.pastes.expand(self.text)
        if self.history is not None:
            if remember:
                self.history.add(text)
            self.history.reset_navigation()
        self.set_text("")
        return text

    # --- Keys ---------------------------------------------------------------------------

    def handle(self, key: Key) -> bool:
        """Apply an editing key; False for a key the editor leaves to the caller."""
        if self.menu is not None and self.handle_in_menu(key):
            return True
        typing = self.menu is not None and key.name in ("char", "paste", "backspace")
        self.menu = None  # any other key closes the menu, then does what it does
        used = self.edit(key)
        if typing:
            self.menu = self.refreshed_menu()
        return used

    def edit(self, key: Key) -> bool:
        if key.name == "paste":
            self.insert(self.pastes.collapse(self.on_paste(clean(key.text))))
            return True
        if key.name == "char" and not (key.ctrl or key.alt):
            self.insert(key.text)
            return True
        label = key_label(key)
        if label == "enter" and self.enter_continues():
            self.newline_after_backslash()
            return True
        # Three keys may find nothing to do here, and then are the caller's to use.
        if label == "up":
            return self.up()
        if label == "down":
            return self.down()
        if label == "tab":
            return self.complete()
        action = self.bindings.get(label)
        if action is None:
            return False
        action()
        return True

    def enter_continues(self) -> bool:
        """Does Enter here mean a new line? Right after a backslash, it does."""
        return self.before.endswith("\\")

    def newline_after_backslash(self) -> None:
        self.before = self.before[:-1] + "\n"

    def new_line(self) -> None:
        self.before += "\n"

    def delete_back(self) -> None:
        start = self.pastes.marker_start(self.before)  # a paste's marker goes whole
        self.before = self.before[:start] if start >= 0 else self.before[:-1]

    def delete_forward(self) -> None:
        self.after = self.after[1:]

    def delete_word_back(self) -> None:
        self.before = self.before[:word_start(self.before)]

    def delete_to_line_start(self) -> None:
        self.before = self.before[:self.line_start_index()]

    def delete_to_line_end(self) -> None:
        """Ctrl-K: the rest of the line; at its end, the line break (joining the next)."""
        end = self.after.find("\n")
        self.after = self.after[1:] if end == 0 else ("" if end < 0 else self.after[end:])

    # --- Moving -------------------------------------------------------------------------

    def move_to(self, index: int) -> None:
        """Put the cursor at `index` in the text."""
        text = self.text
        self.before, self.after = text[:index], text[index:]

    def left(self) -> None:
        self.move_to(max(0, len(self.before) - 1))

    def right(self) -> None:
        self.move_to(len(self.before) + min(1, len(self.after)))

    def word_left(self) -> None:
        self.move_to(word_start(self.before))

    def word_right(self) -> None:
        self.move_to(len(self.before) + word_end(self.after))

    def line_start_index(self) -> int:
        return self.before.rfind("\n") + 1

    def line_start(self) -> None:
        self.move_to(self.line_start_index())

    def line_end(self) -> None:
        end = self.after.find("\n")
        self.move_to(len(self.before) + (len(self.after) if end < 0 else end))

    def move_to_row(self, row: int) -> None:
        """To another line, in the same column or at the line's end if it is shorter."""
        lines, column = self.lines, self.cursor[1]
        start = sum(len(line) + 1 for line in lines[:row])
        self.move_to(start + min(column, len(lines[row])))

    def up(self) -> bool:
        row = self.cursor[0]
        if row > 0:
            self.move_to_row(row - 1)
            return True
        return self.recall(self.history.previous(self.text) if self.history else None)

    def down(self) -> bool:
        row = self.cursor[0]
        if row < len(self.lines) - 1:
            self.move_to_row(row + 1)
            return True
        return self.recall(self.history.next() if self.history else None)

    def recall(self, entry: Optional[str]) -> bool:
        """Show a history entry (or the draft); None: there is nothing further."""
        if entry is None:
            return False
        self.set_text(entry)
        return True

    # --- Completion ---------------------------------------------------------------------

    def complete(self) -> bool:
        """Tab: one choice is put in; several put in their common start and open the
        menu; none does nothing."""
        if self.completer is None:
            return False
        completion = self.ask_completer()
        if completion is None:
            return True  # nothing to offer: Tab did its job, quietly
        values = [value for value, _ in completion.items]
        if len(values) == 1:
            self.replace_word(completion.start, values[0])
            return True
        shared = common_prefix(values)
        if len(shared) > len(self.before) - completion.start:
            self.replace_word(completion.start, shared)
        self.menu = CompletionMenu(completion)
        return True

    def handle_in_menu(self, key: Key) -> bool:
        """The keys the open menu uses: Tab/Down and Shift+Tab/Up step, Enter takes the
        selected choice, Esc closes. False: the menu closes and the key edits."""
        assert self.menu is not None
        label = key_label(key)
        if label in ("tab", "down", "shift+tab", "up"):
            self.menu.move(1 if label in ("tab", "down") else -1)
        elif label == "enter":
            self.replace_word(self.menu.start, self.menu.value())
            self.menu = None
        elif label == "escape":
            self.menu = None
        else:
            return False
        return True

    def refreshed_menu(self) -> Optional[CompletionMenu]:
        """After typing with the menu open: the menu for the text now, nothing applied."""
        completion = self.ask_completer()
        return CompletionMenu(completion) if completion is not None else None

    def ask_completer(self) -> Optional[Completion]:
        """The choices for the text before the cursor; None when there are none."""
        completion = self.completer(self.before) if self.completer else None
        return completion if completion is not None and completion.items else None

    def replace_word(self, start: int, value: str) -> None:
        self.before = self.before[:start] + clean(value)

    # --- Drawing ------------------------------------------------------------------------

    def render(self, width: int) -> Tuple[List[str], int, int]:
        """The rows to show, each at most width - 1 cells wide, and the cursor's (row,
        column) among them, in screen cells. While the text streams above, the editor
        is drawn in every frame and seldom changes: the last drawing is kept."""
        state = (self.before, self.after, self.prompt, width)
        if self.menu is None and state == self._drawn_for:
            return self._drawn
        drawn = self._draw(width)
        self._drawn_for, self._drawn = (state if self.menu is None else None), drawn
        return drawn

    def _draw(self, width: int) -> Tuple[List[str], int, int]:
        rows: List[str] = []
        cursor_row, cursor_column = 0, 0
        at_row, at_column = self.cursor
        lines = self.lines
        # A huge text (a recalled entry) is drawn only around the cursor (the screen
        # shows no more), so that each key costs the same whatever the text's length.
        first = max(0, min(at_row - DRAWN_LINES // 2, len(lines) - DRAWN_LINES))
        last = min(len(lines), first + DRAWN_LINES)
        if first:
            rows.append(self.style.apply(f"  … {first} lines above", "dim"))
        for index in range(first, last):
            line = lines[index]
            prefix, look = (self.prompt, ("bold", "cyan")) if index == 0 else \
                (self.continuation, ("dim",))
            mark = self.style.apply(prefix, *look)
            indent = " " * text_width(prefix)
            line = line.replace("\t", " ")  # one cell, so the layout stays ours
            cursor = at_column if index == at_row else None
            spans = wrap_spans(line, max(1, width - 1 - len(indent)), cursor)
            for number, (start, end) in enumerate(spans):
                if cursor is not None and start <= cursor and \
                        (cursor < end or number == len(spans) - 1):
                    cursor_row = len(rows)
                    cursor_column = len(indent) + text_width(line[start:cursor])
                rows.append(cut((mark if number == 0 else indent) + line[start:end], width - 1))
        if last < len(lines):
            rows.append(self.style.apply(f"  … {len(lines) - last} lines below", "dim"))
        if self.menu is not None:
            rows += self.menu.render(width, self.style)
        return rows, cursor_row, cursor_column

