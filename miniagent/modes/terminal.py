"""The terminal: what we may send to the screen.

A terminal understands more than text. Escape sequences (bytes starting with ESC,
"\\x1b") set colours, move the cursor and erase lines; that is how the REPL's live
area is drawn (tui/renderer.py). This file keeps the rules for when such codes may be
sent, in one place:

  * not a terminal (a pipe, a file): no codes at all, ever;
  * TERM=dumb (an editor's shell buffer, some CI consoles): no codes either (the REPL
    runs in its line mode, modes/interactive/linemode.py);
  * NO_COLOR set (https://no-color.org): no colour or style; the live area, the
    spinner and the editor stay (they are cursor moves, not colour);
  * text from a model or a file is never trusted to carry codes: `for_terminal` shows
    its control characters as symbols instead of letting them drive the terminal, and
    `json_for_terminal` writes them as escapes in JSON.
"""

import os
from typing import Mapping, Optional, TextIO

from ..tui.style import Style

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


# JSON keeps its data exact, so there the same characters become \u escapes instead
# (json.dumps escapes C0 controls itself, but writes DEL, C1 and bidi controls raw).
_ESCAPED = {code: f"\\u{code:04x}" for code in _VISIBLE if chr(code) not in "\t\n"}


def json_for_terminal(text: str) -> str:
    """JSON text as for_terminal would have it, and still the same JSON to a parser.

    Example: '"a\u202eb"' (the override itself) -> '"a\\u202eb"' (six characters)
    """
    return text.translate(_ESCAPED)


class Screen:
    """One output stream and what it allows: `controls` (cursor movement, erasing) and
    `colour` (styles)."""

    def __init__(self, out: TextIO, env: Optional[Mapping[str, str]] = None):
        env = os.environ if env is None else env
        self.out = out
        self.controls = _is_terminal(out) and env.get("TERM", "") != "dumb"
        self.colour = self.controls and not env.get("NO_COLOR")
        self.styles = Style(self.colour)

    def style(self, text: str, name: str) -> str:
        """Example: style("hi", "dim") -> "\\x1b[2mhi\\x1b[0m" (or "hi" without colour)."""
        return self.styles.apply(text, name)


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # closed, or a stream without a descriptor
        return False
