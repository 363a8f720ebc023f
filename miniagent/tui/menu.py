"""menu: the completion menu under the input, a window onto a list of choices.

Tab asks a completer what the word at the cursor could become; the answer is a
`Completion`: where the word starts, and the choices, each a value and one line of
help. When there are several, the editor shows them under the input:

    > /s
      /session   the session's file, id, messages, tokens and cost
      /search    WORDS find them in this project's sessions
      /skill:review  ...

At most MAX_ROWS rows are shown. The list scrolls: `top` is the first row in view and
moves only when the selection would leave the window, so the rows do not jump while
the user steps through them. The selected row is drawn inverse and bold, and marked
with ">" too, so it can still be told apart without colour.

This file only knows the list and how to draw it; which keys move it is the editor's
business (editor.py).
"""

from dataclasses import dataclass
from typing import List, Tuple

from .style import Style
from .width import cut, text_width

MAX_ROWS = 8


@dataclass
class Completion:
    """Replace text_before_cursor[start:] by one of `items`' values.

    items   (value, help): the text to put in, and a line shown dim beside it
    Example: Completion(0, [("/help", "list the commands")]) for "/he"
    """
    start: int
    items: List[Tuple[str, str]]


def common_prefix(values: List[str]) -> str:
    """Example: common_prefix(["/session", "/search"]) -> "/se"."""
    if not values:
        return ""
    first, last = min(values), max(values)  # the two most different, in sorted order
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def scrolled_top(selected: int, top: int, rows: int) -> int:
    """The first row in view once `selected` must be in a window of `rows` rows: `top`
    itself while it is in view, so the rows do not jump (the picker scrolls so too).

    Examples: (3, 0, 8) -> 0; (9, 0, 8) -> 2; (1, 2, 8) -> 1
    """
    if selected < top:
        return selected
    if selected >= top + rows:
        return selected - rows + 1
    return top


class CompletionMenu:
    def __init__(self, completion: Completion):
        self.start = completion.start
        self.items = completion.items
        self.selected = 0
        self.top = 0

    def value(self) -> str:
        return self.items[self.selected][0]

    def move(self, step: int) -> None:
        """Select the next (step 1) or previous (-1) item, going round at the ends."""
        self.selected = (self.selected + step) % len(self.items)
        self.top = scrolled_top(self.selected, self.top, MAX_ROWS)

    def render(self, width: int, style: Style) -> List[str]:
        """The rows in view, each at most width - 1 columns."""
        shown = self.items[self.top:self.top + MAX_ROWS]
        value_width = max(text_width(value) for value, _ in shown)
        rows = []
        for index, (value, help_text) in enumerate(shown, start=self.top):
            chosen = index == self.selected
            padded = value + " " * (value_width - text_width(value))
            head = f"{'>' if chosen else ' '} {padded}  "
            row = cut((head + help_text).rstrip(), width - 1)
            rows.append(self.paint(row, len(head), chosen, style))
        return rows

    def paint(self, row: str, help_start: int, chosen: bool, style: Style) -> str:
        """The selected row inverse and bold; in the others the help dim."""
        if chosen:
            return style.apply(row, "inverse", "bold")
        return row[:help_start] + style.apply(row[help_start:], "dim")
