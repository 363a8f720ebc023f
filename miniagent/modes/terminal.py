"""The terminal: what we may send to the screen, and a live area we can redraw.

A terminal understands more than text. Escape sequences (bytes starting with ESC,
"\\x1b") set colours, move the cursor and erase lines; that is how a live display
(a spinner, the last lines of a running command) is drawn and wiped again. This file
keeps the rules for when such codes may be sent, in one place:

  * not a terminal (a pipe, a file): no codes at all, ever;
  * TERM=dumb (an editor's shell buffer, some CI consoles): no codes either;
  * NO_COLOR set (https://no-color.org): no colour or style, and no cursor codes either
    (plain output was asked for: the live area becomes plain lines, as on TERM=dumb);
  * text from a model or a file is never trusted to carry codes: `for_terminal` shows
    its control characters as symbols instead of letting them drive the terminal.

The live area is a few lines at the bottom of the output, drawn without a final
newline so the cursor stays on its last line. Erasing it goes back up that many lines
and clears them; permanent output is then written where the live area was and the
area is drawn again below it:

    Let me run the tests.            <- permanent (scrolls away normally)
      $ pytest -q                    <- permanent
    ⠹ running $ pytest -q · 4s       <- live: redrawn ten times a second
        ....F..                      <- live: the command's last lines

Left out: full-screen interfaces (curses), mouse input, reading the cursor position,
wide (CJK) characters in width calculations: a line is cut by code points.
"""

import os
import shutil
from typing import List, Mapping, Optional, TextIO

# The Select Graphic Rendition codes we use. Each style ends with a full reset (0),
# so a style never leaks into the text after it.
STYLES = {"dim": "2", "bold": "1", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

# Control characters shown as what they are instead of sent to the terminal: file
# contents and model output may carry escape sequences that retitle the window, clear
# the screen or write the clipboard (OSC 52). Tabs and newlines stay as they are.
_VISIBLE = {code: chr(0x2400 + code) for code in range(0x20) if chr(code) not in "\t\n"}
_VISIBLE[0x7F] = "\u2421"
_VISIBLE.update({code: "\ufffd" for code in range(0x80, 0xA0)})
# Bidirectional overrides reorder what follows them ("Trojan source"): a name could make
# "$0.0120" read as "0210.0$"; the invisible marks (LRM, RLM, ALM) reorder the digits and
# signs around them too. They are shown as the replacement character.
BIDI_CONTROLS = {code: "\ufffd" for code in [*range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                             0x200E, 0x200F, 0x061C]}
_VISIBLE.update(BIDI_CONTROLS)
# A lone surrogate (half an emoji in a file pi wrote) has no UTF-8 form: written as it is,
# it would stop the output with an error.
_VISIBLE.update({code: "\ufffd" for code in range(0xD800, 0xE000)})


def for_terminal(text: str) -> str:
    """Example: "red \\x1b[31m" -> "red \u241b[31m" (ESC shown as the symbol for ESC)."""
    return text.translate(_VISIBLE)


class Screen:
    """One output stream and what it allows: `controls` (cursor movement, erasing) and
    `colour` (styles). All writes that must not interleave go through one caller's lock;
    the Screen itself keeps only the live area's height and whether a line is open."""

    def __init__(self, out: TextIO, env: Optional[Mapping[str, str]] = None):
        env = os.environ if env is None else env
        self.out = out
        # NO_COLOR asks for plain output: no colour, and (the acceptance line) no
        # escape codes at all, so the live area is drawn as plain lines, as on a dumb one.
        self.controls = _is_terminal(out) and env.get("TERM", "") != "dumb" \
            and not env.get("NO_COLOR")
        self.colour = self.controls
        self.live_height = 0  # lines of the live area now on screen
        self.at_line_start = True  # False while a streamed line is still open
        self.gone = False  # set when writing failed (the terminal was closed)

    def style(self, text: str, name: str) -> str:
        """Example: style("hi", "dim") -> "\\x1b[2mhi\\x1b[0m" (or "hi" without colour)."""
        return f"\x1b[{STYLES[name]}m{text}\x1b[0m" if self.colour and text else text

    def width(self) -> int:
        """Columns of the terminal (80 when it cannot tell)."""
        try:
            return os.get_terminal_size(self.out.fileno()).columns or 80
        except (OSError, ValueError, AttributeError):
            return shutil.get_terminal_size((80, 24)).columns

    def write(self, text: str) -> None:
        """Permanent output (already made safe and styled): the live area is erased
        first, so the text lands where it was."""
        if not text:
            return
        self.erase_live()
        self._send(text)
        self.at_line_start = text.endswith("\n")

    def end_line(self) -> None:
        """Close a streamed line that is still open, so the next output starts fresh."""
        if not self.at_line_start:
            self.write("\n")

    def fit(self, text: str) -> str:
        """Cut `text` (before styling it) so that it does not wrap: a wrapped live line
        would make the next erase miss a row."""
        return text[:max(10, self.width() - 1)]

    def draw_live(self, lines: List[str]) -> None:
        """Replace the live area by `lines` (each one fit() to the width). Does nothing
        without controls."""
        if not self.controls:
            return
        self.erase_live()
        if lines:
            self.end_line()
            self._send("\n".join(lines))
            self.live_height = len(lines)

    def erase_live(self) -> None:
        """Wipe the live area: clear this line, then each line above it that is ours."""
        if self.live_height:
            self._send("\r\x1b[2K" + "\x1b[1A\x1b[2K" * (self.live_height - 1))
            self.live_height = 0
            self.at_line_start = True

    def _send(self, text: str) -> None:
        """Write and flush at once (a stream shows nothing while buffered). A terminal
        that went away (SIGHUP) must not break the run that is being stopped."""
        if self.gone:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):  # EIO from a hung-up tty; a closed stream
            self.gone = True


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # closed, or a stream without a descriptor
        return False
