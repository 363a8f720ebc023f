"""style: colour and emphasis as escape codes, or as nothing at all.

A terminal draws text in colour when it meets a Select Graphic Rendition code,
"ESC [ n m": 1 bold, 2 dim, 3 italic, 4 underline, 31 red ... and 0 resets them all.
Every styled piece here ends with its own reset, so a style never leaks into the text
after it, and a line cut anywhere (width.cut) can be closed with one reset.

`Style(colour=False)` returns text unchanged: the user asked for no colour
(https://no-color.org) or the output is not a terminal. Everything else about the
screen (the live area, the cursor moves) does not depend on it.

Example: Style(True).apply("hi", "bold", "red") -> "\\x1b[1;31mhi\\x1b[0m"
"""

from typing import Dict

CODES: Dict[str, str] = {
    "bold": "1", "dim": "2", "italic": "3", "underline": "4", "inverse": "7",
    "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36",
    "gray": "90",
}
RESET = "\x1b[0m"


class Style:
    def __init__(self, colour: bool):
        self.colour = colour

    def apply(self, text: str, *names: str) -> str:
        """`text` in the named styles (nothing to add to an empty text or without colour)."""
        if not self.colour or not text or not names:
            return text
        return f"\x1b[{';'.join(CODES[name] for name in names)}m{text}{RESET}"
