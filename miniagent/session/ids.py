"""Session ids: made in time order, shown by their shortest unique prefix, found by one.

A session id is a UUID, as pi's are. Version 7 (RFC 9562) starts with the creation time
in milliseconds, so ids sort by age and a folder listed by id is listed oldest first:

    01a23412-1227-75bd-9f18-c07e8cf5d902
    ^^^^^^^^^^^^^ 48 bits of Unix milliseconds, then the version digit 7, then randomness

The price of that order: sessions made within about a minute share their first 8
digits, so a fixed 8-character column shows them all alike. `short_ids` does what git
does with commit ids: each id is shown by its shortest prefix that no other listed id
shares, never shorter than 8 characters (a prefix you can still read and type; git's
own floor is 7). Every command that takes a session (`--session`, `stats`, `export`,
`script`) accepts a file path, a whole id or such a prefix, through `resolve_session`.

Left out: the entry ids inside a file (8 random hex digits, tree.py).
"""

import os
import time
from typing import Dict, List, Optional

from ..errors import SessionError
from .store import find_sessions_by_prefix

SHORTEST = 8  # characters a shown id never goes below


def new_session_id() -> str:
    """A UUIDv7: 48 bits of milliseconds, version 7, 12 + 62 random bits, variant 10."""
    milliseconds = time.time_ns() // 1_000_000
    random_bits = int.from_bytes(os.urandom(10), "big")
    value = (milliseconds & (1 << 48) - 1) << 80
    value |= 0x7 << 76 | (random_bits >> 62 & 0xFFF) << 64
    value |= 0b10 << 62 | random_bits & (1 << 62) - 1
    return uuid_text(value)


def uuid_text(value: int) -> str:
    """A 128-bit number in the UUID form 8-4-4-4-12 (as uuid.UUID(int=...) writes it;
    importing `uuid` costs a start-up more than all of this file).

    Example: uuid_text(0x0193a0cbe0007123b456789abcdef012)
             -> "0193a0cb-e000-7123-b456-789abcdef012"
    """
    digits = f"{value:032x}"
    return "-".join((digits[:8], digits[8:12], digits[12:16], digits[16:20], digits[20:]))


def short_ids(ids: List[str]) -> Dict[str, str]:
    """Each id's shortest prefix that no other id in the list starts with (at least
    SHORTEST characters; a whole id when one id is a prefix of another).

    Example: ["01a23412-1227-75bd", "01a23412-7a49-75bd", "9f00c2aa-..."]
        -> {"01a23412-1227-75bd": "01a23412-1", "01a23412-7a49-75bd": "01a23412-7",
            "9f00c2aa-...": "9f00c2aa"}
    """
    shown = {}
    for this in ids:
        others = [other for other in ids if other != this]
        length = SHORTEST
        while length < len(this) and any(other.startswith(this[:length]) for other in others):
            length += 1
        shown[this] = this[:length]
    return shown


def resolve_session(value: str, cwd: str, session_dir: Optional[str] = None) -> str:
    """A session argument as a path: a file (it has a `/`, ends in .jsonl or exists) is
    itself; anything else is an id or id prefix, looked up in this project's folder,
    then in every project's. Raises SessionError, in one line, for none or several."""
    if "/" in value or value.endswith(".jsonl") or os.path.isfile(value):
        return os.path.abspath(os.path.expanduser(value))
    matches = find_sessions_by_prefix(value, cwd, session_dir=session_dir)
    if not matches:
        raise SessionError(f"no session found matching '{value}'")
    if len(matches) > 1:
        raise SessionError(f"'{value}' matches {len(matches)} sessions; give more of the id")
    return matches[0]
