"""keys: how a key decoder tells Esc from an arrow key.

A terminal in raw mode (terminal.py) hands a program bytes, not keys. Most keys are
one byte ("a", 0x7f for Backspace, 0x01 for Ctrl-A), but the keys without a character
are sent as escape sequences that start with the Esc byte itself:

    \\x1b           Esc, alone
    \\x1b[A         Up            (CSI: "ESC [", parameters, one final byte)
    \\x1b[1;5A      Ctrl+Up       (the second parameter is 1 + a bit mask of modifiers)
    \\x1bOA         Up again      (SS3: "ESC O" and one byte, the "application" form)
    \\x1bx          Alt+x         (Alt is sent as an Esc before the key)
    \\x1b[200~ ... \\x1b[201~      a bracketed paste: the text between is not typed keys

So a lone Esc byte is ambiguous: it is the Esc key, or the first byte of a sequence
whose rest is still on its way (a read can end anywhere). The decoder does not guess.
It decodes what is complete and keeps the rest for the next `feed`; when what is kept
is an Esc (or an Esc and part of a sequence), `waiting()` says so and the caller waits
`ESC_WAIT` seconds for more bytes (terminal.read_keys). Whatever came in that time is
fed; if nothing did, `flush()` decodes the rest as if no byte could follow: a lone
Esc is the Esc key, "ESC [" is Alt+[. Only a buffer that ends in an Esc waits, so
typing never waits.

The other things kept between reads: a UTF-8 character split across two reads (its
first byte says how many follow), and a paste, which can be megabytes long. Inside a
paste nothing is decoded (an Esc or a \\r in pasted text is text); the decoder only
looks for the end marker in the bytes that are new, so a paste costs one pass. A paste
whose end marker never comes would swallow every later key: the reader (terminal.py's
read_keys) ends it after PASTE_WAIT seconds without a byte.

Left out: mouse reports, the Linux console's "ESC [ [ A" function keys, and kitty's
full keyboard protocol (only its "CSI u" forms of Enter, Tab, Esc, Backspace and
characters are read). Sequences the decoder does not know are dropped whole, never
shown as text. Ctrl-Space (0x00) and Ctrl-\\ ] ^ _ (0x1c-0x1f) are dropped too.

Example: KeyDecoder().feed(b"a\\x1b[1;5A") -> [Key("char", "a"), Key("up", ctrl=True)]
"""

from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Tuple

ESC_WAIT = 0.05  # seconds to wait after a lone Esc for the rest of a sequence
PASTE_WAIT = 1.0  # seconds a paste may pause before it is taken as ended without its marker

ESC = 0x1B
PASTE_END = b"\x1b[201~"
INCOMPLETE = -1  # the position a decoding step returns when its bytes have not all come


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


PASTE_START = Key("paste-start")  # internal: what "ESC [ 200 ~" decodes to

# The one-byte keys that are not characters. 0x08 is Backspace on some terminals (and
# Ctrl-H on all); \n is Ctrl-J, which the editor uses for a new line.
BYTE_KEYS: Dict[int, Key] = {
    0x0D: Key("enter"), 0x0A: Key("j", ctrl=True), 0x09: Key("tab"),
    0x7F: Key("backspace"), 0x08: Key("backspace"),
}
# "ESC [ n ~" (with modifiers "ESC [ n ; m ~"): the keys of the editing pad and F5-F12.
TILDE_KEYS: Dict[int, str] = {
    1: "home", 7: "home", 4: "end", 8: "end", 2: "insert", 3: "delete",
    5: "pageup", 6: "pagedown", 11: "f1", 12: "f2", 13: "f3", 14: "f4", 15: "f5",
    17: "f6", 18: "f7", 19: "f8", 20: "f9", 21: "f10", 23: "f11", 24: "f12",
}
# "ESC [ X" (with modifiers "ESC [ 1 ; m X") and "ESC O X": arrows, Home/End, F1-F4.
LETTER_KEYS: Dict[str, str] = {
    "A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end",
    "P": "f1", "Q": "f2", "R": "f3", "S": "f4",
}
# "CSI u" and modifyOtherKeys name a key by its character code.
CODE_KEYS: Dict[int, str] = {13: "enter", 9: "tab", 27: "escape", 127: "backspace", 8: "backspace"}


class KeyDecoder:
    def __init__(self) -> None:
        self._pending = b""  # bytes not decoded yet: an unfinished key, or a paste's tail
        self._paste: Optional[List[bytes]] = None  # the pasted bytes so far, inside a paste

    def feed(self, data: bytes) -> List[Key]:
        """The keys in what has arrived; an unfinished key is kept for the next feed.

        Example: feed(b"\\x1b[") -> [] (waiting() is True), then feed(b"D") -> [Key("left")]
        """
        self._pending += data
        return self._decode(at_end=False)

    def waiting(self) -> bool:
        """True when what is kept starts with an Esc: the rest of a sequence may follow."""
        return self._paste is None and self._pending[:1] == b"\x1b"

    def pasting(self) -> bool:
        """True inside a bracketed paste whose end marker has not come yet."""
        return self._paste is not None

    def end_paste(self) -> List[Key]:
        """The end marker of a paste never came (a terminal that lost it, or junk that
        looked like a start marker): what was pasted so far is the paste, and the keys
        after it are keys again instead of being swallowed."""
        if self._paste is None:
            return []
        self._paste.append(self._pending)
        key = _paste_key(self._paste)
        self._paste, self._pending = None, b""
        return [key]

    def flush(self) -> List[Key]:
        """After the wait: decode what is kept as if nothing more will come.

        Example: feed(b"\\x1b") -> [], then flush() -> [Key("escape")]
        """
        return self._decode(at_end=True)

    def _decode(self, at_end: bool) -> List[Key]:
        keys: List[Key] = []
        data, pos = self._pending, 0
        while pos < len(data):
            if self._paste is not None:
                pos = self._read_paste(data, pos, keys)
                if self._paste is not None:  # the end marker has not come yet
                    break
                continue
            key, end = _key_at(data, pos, at_end)
            if end == INCOMPLETE:
                break
            if key is PASTE_START:
                self._paste = []
            elif key is not None:
                keys.append(key)
            pos = end
        self._pending = data[pos:]
        return keys

    def _read_paste(self, data: bytes, pos: int, keys: List[Key]) -> int:
        """Take pasted bytes up to the end marker; returns where decoding goes on."""
        end = data.find(PASTE_END, pos)
        if end < 0:
            # Keep the last few bytes: they may be the start of a marker cut by the read.
            keep = max(pos, len(data) - (len(PASTE_END) - 1))
            self._paste.append(data[pos:keep])
            return keep
        self._paste.append(data[pos:end])
        keys.append(_paste_key(self._paste))
        self._paste = None
        return end + len(PASTE_END)


def _paste_key(chunks: List[bytes]) -> Key:
    """The pasted bytes as one key, line ends as "\\n" (terminals send "\\r")."""
    text = b"".join(chunks).decode("utf-8", "replace")
    return Key("paste", text=text.replace("\r\n", "\n").replace("\r", "\n"))


def _key_at(data: bytes, pos: int, at_end: bool) -> Tuple[Optional[Key], int]:
    """The key that starts at `pos` (None for bytes that are no key) and the position
    after it, or INCOMPLETE when it has not all arrived."""
    byte = data[pos]
    if byte == ESC:
        return _escape_at(data, pos, at_end)
    if byte >= 0x80:
        return _utf8_at(data, pos, at_end)
    return _byte_key(byte), pos + 1


def _escape_at(data: bytes, pos: int, at_end: bool) -> Tuple[Optional[Key], int]:
    if pos + 1 == len(data):
        return (Key("escape"), pos + 1) if at_end else (None, INCOMPLETE)
    follower = data[pos + 1]
    if follower == ord("["):
        return _csi_at(data, pos, at_end)
    if follower == ord("O"):
        return _ss3_at(data, pos, at_end)
    if follower == ESC:  # Esc pressed twice: the first is a key of its own
        return Key("escape"), pos + 1
    # Alt+key: the key after the Esc, with alt set (Alt+Enter, Alt+Backspace, Alt+x).
    key, end = _key_at(data, pos + 1, at_end)
    if key is None:
        return None, end
    return replace(key, alt=True), end


def _byte_key(byte: int) -> Optional[Key]:
    """A key of one ASCII byte. Example: _byte_key(0x01) -> Key("a", ctrl=True)."""
    if byte in BYTE_KEYS:
        return BYTE_KEYS[byte]
    if 0x01 <= byte <= 0x1A:  # Ctrl-A .. Ctrl-Z send 1 .. 26
        return Key(chr(0x60 + byte), ctrl=True)
    if 0x20 <= byte <= 0x7E:
        return Key("char", text=chr(byte))
    return None


def _utf8_at(data: bytes, pos: int, at_end: bool) -> Tuple[Optional[Key], int]:
    """A character of several bytes: the first byte says how many (0b110xxxxx two,
    0b1110xxxx three, 0b11110xxx four); each one after is 0b10xxxxxx."""
    size = _utf8_size(data[pos])
    for index in range(pos + 1, pos + size):
        if index == len(data):
            return (Key("char", text="\ufffd"), index) if at_end else (None, INCOMPLETE)
        if not 0x80 <= data[index] < 0xC0:  # a broken character: drop what there was
            return Key("char", text="\ufffd"), index
    return Key("char", text=data[pos:pos + size].decode("utf-8", "replace")), pos + size


def _utf8_size(lead: int) -> int:
    """How many bytes a character that starts with `lead` has (1 for a broken one)."""
    if 0xC0 <= lead < 0xE0:
        return 2
    if 0xE0 <= lead < 0xF0:
        return 3
    if 0xF0 <= lead < 0xF8:
        return 4
    return 1


def _csi_at(data: bytes, pos: int, at_end: bool) -> Tuple[Optional[Key], int]:
    """A CSI sequence: "ESC [", parameter bytes (0-9 : ; < = > ?), intermediate bytes
    (space to /), one final byte (@ to ~). Example: b"\\x1b[3;5~" is Ctrl+Delete."""
    index = pos + 2
    while index < len(data) and 0x30 <= data[index] <= 0x3F:
        index += 1
    params_end = index
    while index < len(data) and 0x20 <= data[index] <= 0x2F:
        index += 1
    if index == len(data):
        return (Key("char", text="[", alt=True), pos + 2) if at_end else (None, INCOMPLETE)
    if not 0x40 <= data[index] <= 0x7E:  # not a sequence after all: drop its start
        return None, index
    params = data[pos + 2:params_end].decode("ascii")
    return _csi_key(params, chr(data[index])), index + 1


def _ss3_at(data: bytes, pos: int, at_end: bool) -> Tuple[Optional[Key], int]:
    """An SS3 sequence, "ESC O" and one letter: what arrows, Home/End and F1-F4 send in
    the terminal's "application" mode."""
    if pos + 2 == len(data):
        return (Key("char", text="O", alt=True), pos + 2) if at_end else (None, INCOMPLETE)
    final = data[pos + 2]
    if not 0x40 <= final <= 0x7E:  # it was Alt+O, and another key follows
        return Key("char", text="O", alt=True), pos + 2
    name = LETTER_KEYS.get(chr(final))
    return (Key(name) if name else None), pos + 3


def _csi_key(params: str, final: str) -> Optional[Key]:
    """The key a complete CSI sequence names, or None for one that is no key.

    Example: _csi_key("1;5", "A") -> Key("up", ctrl=True)
    """
    if params[:1] in ("<", "=", ">", "?"):  # private: replies to queries, mouse reports
        return None
    # Kitty may add ":"-separated details to a parameter; the first part is the value.
    numbers = [_number(field.split(":")[0]) for field in params.split(";")]
    modifiers = numbers[1] if len(numbers) > 1 else 1
    if final == "~" and numbers[0] == 200:
        return PASTE_START
    if final == "~" and numbers[0] == 27 and len(numbers) > 2:  # xterm modifyOtherKeys
        return _code_key(numbers[2], modifiers)
    if final == "~" and numbers[0] in TILDE_KEYS:
        return _modified(TILDE_KEYS[numbers[0]], modifiers)
    if final == "u":  # "CSI code ; modifiers u": kitty, and xterm's other form
        return _code_key(numbers[0], modifiers)
    if final == "Z":  # Shift+Tab
        return replace(_modified("tab", modifiers), shift=True)
    if final in LETTER_KEYS:
        return _modified(LETTER_KEYS[final], modifiers)
    return None


def _number(field: str) -> int:
    """A parameter's value; an empty one means the default (0 here, 1 for modifiers)."""
    return int(field) if field.isdigit() else 0


def _code_key(code: int, modifiers: int) -> Optional[Key]:
    """A key named by its character code. Example: _code_key(13, 2) -> Key("enter", shift=True)."""
    if code in CODE_KEYS:
        return _modified(CODE_KEYS[code], modifiers)
    if code < 0x20 or code > 0x10FFFF:
        return None
    key = _modified("char", modifiers, chr(code))
    if key.ctrl and chr(code).isascii() and chr(code).isalpha():
        return replace(key, name=chr(code).lower(), text="")  # Ctrl+A named as Ctrl-A is
    return key


def _modified(name: str, modifiers: int, text: str = "") -> Key:
    """`name` with the modifiers of a sequence: their number minus one is a bit mask,
    1 Shift, 2 Alt, 4 Ctrl. Example: _modified("up", 6) -> Key("up", ctrl=True, shift=True)."""
    mask = max(modifiers, 1) - 1
    return Key(name, text=text, shift=bool(mask & 1), alt=bool(mask & 2), ctrl=bool(mask & 4))
