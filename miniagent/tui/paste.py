"""paste: a large paste shown as one short marker, the whole text sent.

Pasting a log of 200 lines into an editor that grows with its text would push
everything else off the screen, and every edit after it would redraw 200 rows. So a
large paste (more than 10 lines, or more than 1,000 characters, as pi counts) is kept
aside and a marker stands in its place in the editor:

    > why does this fail? [paste #1 +200 lines]
    > the error: [paste #2 1834 chars]

The marker is ordinary text: the cursor moves over it and text is typed around it.
Backspace right after a marker deletes it whole (half a marker would be text no one
meant). When the input is sent, each marker still in it is replaced by its paste, so
the model gets exactly what was pasted. A marker the user has changed by hand is no
longer a marker and goes as typed.

The keys tell a paste from typing: a terminal in bracketed-paste mode wraps pasted
text in "ESC [200~" and "ESC [201~" (keys.py), so a paste arrives as one Key.

Left out: pi's undo of a paste, and renumbering the markers when one is deleted.
"""

import re
from typing import Dict

MAX_LINES = 10  # a paste of more lines than this is collapsed
MAX_CHARS = 1000  # and so is one of more characters than this
MARKER = re.compile(r"\[paste #(\d+)(?: \+\d+ lines| \d+ chars)\]")


class Pastes:
    """The large pastes of the input being typed, by number."""

    def __init__(self) -> None:
        self.texts: Dict[int, str] = {}
        self.last_number = 0

    def collapse(self, text: str) -> str:
        """What a paste puts into the editor: small ones themselves, a large one a marker.

        Example: collapse("x\\n" * 199 + "x") -> "[paste #1 +200 lines]"
        """
        lines = text.count("\n") + 1
        if lines <= MAX_LINES and len(text) <= MAX_CHARS:
            return text
        self.last_number += 1
        self.texts[self.last_number] = text
        size = f"+{lines} lines" if lines > MAX_LINES else f"{len(text)} chars"
        return f"[paste #{self.last_number} {size}]"

    def expand(self, text: str) -> str:
        """The text with every marker of a kept paste replaced by that paste; the pastes
        are then forgotten (the numbering starts again at #1 once none is kept).

        Example: after collapse(big) -> "[paste #1 +200 lines]",
        expand("see [paste #1 +200 lines]") -> "see " + big
        """
        expanded = MARKER.sub(self._paste_of, text)
        for number in [int(found) for found in MARKER.findall(text)]:
            self.texts.pop(number, None)
        if not self.texts:
            self.last_number = 0
        return expanded

    def marker_start(self, before: str) -> int:
        """Where a marker of a kept paste ending `before` starts, or -1 (for Backspace).

        Example: marker_start("see [paste #1 +200 lines]") -> 4 (while #1 is kept)
        """
        start = before.rfind("[paste #")
        found = MARKER.fullmatch(before, start) if start >= 0 else None
        if found is None or int(found.group(1)) not in self.texts:
            return -1
        return start

    def forget(self) -> None:
        """The input was thrown away: so are its pastes."""
        self.texts.clear()
        self.last_number = 0

    def _paste_of(self, match: "re.Match[str]") -> str:
        return self.texts.get(int(match.group(1)), match.group())
