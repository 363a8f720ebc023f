"""keys: the bytes a keyboard sends, turned into keys.

(Helper A writes the lesson and the decoder here; the Key class is the contract the
editor and the REPL use.)
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    """One key press, or one pasted block.

    name   "char" (a printable character: `text` holds it), "paste" (`text` holds the
           whole pasted block), "enter", "tab", "backspace", "delete", "escape", "up",
           "down", "left", "right", "home", "end", "pageup", "pagedown", "insert",
           "f1".."f12", or a lower-case letter with ctrl=True ("a" is Ctrl-A)
    """
    name: str
    text: str = ""
    ctrl: bool = False
    alt: bool = False
    shift: bool = False
