"""picker: choosing one row of a list by typing a filter and moving with the arrows.

A command that needs one of many things (a session to resume, an entry of the tree, a
model) shows them in the live area, in the editor's place, and reads keys until the
user has chosen:

    Resume which session?
    filter: cert|                              <- what was typed
    > 2 min ago  the x509 certificate error    <- the selected row (inverse, bold)
      yesterday  renew the certificates
      2 of 20 · ↑↓ move · Enter picks · Esc cancels

Typing narrows the list to the rows holding every typed word, in any case; Backspace
widens it again. Up and Down move (going round at the ends), Page Up and Page Down a
window at a time; Enter picks the selected row, Esc or Ctrl-C cancels. At most
MAX_ROWS rows are shown, the window scrolling as the completion menu's does (menu.py).

The picker knows rows of text and which one was chosen (`chosen`: an index into the
rows it was given, None when cancelled); what a row means is the caller's business.
Left out: fuzzy matching (a typed word must appear as typed), a tree that folds.
"""

from typing import List, Optional, Sequence, Tuple

from .keys import Key
from .menu import scrolled_top
from .style import Style
from .width import cut, text_width

MAX_ROWS = 10


class Picker:
    def __init__(self, style: Style, title: str, rows: Sequence[str], selected: int = 0):
        self.style = style
        self.title = title
        self.rows = list(rows)
        self.query = ""
        self.shown: List[int] = list(range(len(self.rows)))  # indexes of the rows that match
        self.selected = min(max(selected, 0), max(len(self.rows) - 1, 0))  # into `shown`
        self.top = scrolled_top(self.selected, 0, MAX_ROWS)
        self.done = False
        self.chosen: Optional[int] = None  # the row picked (an index into `rows`)

    def handle(self, key: Key) -> None:
        """Apply one key; `done` says when the user has picked a row or cancelled."""
        if key.name in ("char", "paste") and not (key.ctrl or key.alt):
            self.filter(self.query + " ".join(key.text.split()) if key.name == "paste"
                        else self.query + key.text)
        elif key.name == "backspace":
            self.filter(self.query[:-1])
        elif key.name in ("up", "down"):
            self.move(-1 if key.name == "up" else 1)
        elif key.name in ("pageup", "pagedown"):
            self.move(-MAX_ROWS if key.name == "pageup" else MAX_ROWS, wrap=False)
        elif key.name == "enter" and self.shown:
            self.done, self.chosen = True, self.shown[self.selected]
        elif key.name == "escape" or (key.ctrl and key.name in ("c", "d")):
            self.done = True

    def filter(self, query: str) -> None:
        """Show only the rows holding every word of `query`, the first selected."""
        words = query.lower().split()
        self.query = query
        self.shown = [index for index, row in enumerate(self.rows)
                      if all(word in row.lower() for word in words)]
        self.selected = self.top = 0

    def move(self, step: int, wrap: bool = True) -> None:
        """Select `step` rows further: going round at the ends, or stopping there."""
        if not self.shown:
            return
        target = self.selected + step
        if wrap:
            target %= len(self.shown)
        self.selected = min(max(target, 0), len(self.shown) - 1)
        self.top = scrolled_top(self.selected, self.top, MAX_ROWS)

    def render(self, width: int) -> Tuple[List[str], int, int]:
        """The picker's lines, each at most width - 1 columns, and the cursor's (row,
        column): at the end of the filter, where the next typed letter goes."""
        filter_line = cut("filter: " + self.query, width - 1)
        lines = [self.style.apply(cut(self.title, width - 1), "yellow"),
                 self.style.apply(filter_line, "bold", "cyan")]
        for index in range(self.top, min(self.top + MAX_ROWS, len(self.shown))):
            chosen = index == self.selected
            row = cut(f"{'>' if chosen else ' '} {self.rows[self.shown[index]]}", width - 1)
            lines.append(self.style.apply(row, "inverse", "bold") if chosen else row)
        lines.append(self.style.apply(cut(self.counts(), width - 1), "dim"))
        return lines, 1, text_width(filter_line)

    def counts(self) -> str:
        """Example: "  2 of 20 · ↑↓ move · Enter picks · Esc cancels"."""
        if not self.shown:
            return f"  nothing matches {self.query!r} · Backspace widens · Esc cancels"
        return f"  {len(self.shown)} of {len(self.rows)} · ↑↓ move · Enter picks · Esc cancels"
