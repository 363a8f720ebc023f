"""Keeping the API key out of everything we write: one registry, one `redact`.

A key must reach its server and nothing else. Yet it can come back in text we keep:
a 401 body that quotes it, a streamed error, a command the model ran that printed the
environment. So the process keeps its secrets here (models/choose.py registers each key it
reads, once), and the writers that matter call `redact` on what they write: the
session file's line writer (session/file.py's to_line, through redact_json), stderr
(output.redact_stderr) and the providers' error messages (providers/guard.py).

What counts as the key, for a key K of 12 characters or more:

    K itself, and K as repr(), JSON and percent-encoding write it
    ("sk/a+b" -> "sk%2Fa%2Bb", in upper or lower case hex)

    any run of RUN (8) or more consecutive characters of those forms: a server that
    echoes only the key's random part, or cuts it, still leaks it

    redact("401: key ...Qw7Zr4Tx9Lm2 is invalid")  ->  "401: key ...[redacted] is invalid"

A shorter "key" is a placeholder for a local server ("ollama", "lm-studio"), not a
secret: redacting its runs would garble ordinary words in every file. The guard still
replaces the exact key of the current call, as it is (see `extra`).

Speed: every RUN-character window of every form is one needle, found with str.find
(C speed, linear in the text); the matches are merged into spans and each span is
replaced once. A 1 MB session line with a 100-character key takes tens of
milliseconds.

Left out: text written piece by piece (a key split across two writes to stderr, such
as streamed deltas, is not seen whole), stdout (the answer and JSON events belong to
the user who asked for them), and files our tools' commands write themselves.
"""

import json
from typing import Any, FrozenSet, Iterable, List, Optional, Tuple
from urllib.parse import quote

REDACTED = "[redacted]"
RUN = 8  # this many consecutive characters of a key are the key
PLACEHOLDER_BELOW = 12  # a shorter key is a local server's placeholder, not a secret
MIN_EXACT = 4  # the current call's key is replaced when at least this long

_needles: FrozenSet[str] = frozenset()  # replaced whole, never changed: safe to read


def add_secret(key: Optional[str]) -> None:
    """Remember a key for the rest of the process; placeholders are ignored."""
    global _needles
    if key and len(key.strip()) >= PLACEHOLDER_BELOW:
        _needles = _needles | needles_of(key)


def needles_of(key: str) -> FrozenSet[str]:
    """The key's forms cut into RUN-character windows (a form shorter than RUN whole).

    Example: needles_of("abcdefghij") (RUN 8) -> {"abcdefgh", "bcdefghi", "cdefghij"}
    """
    needles = set()
    for form in forms_of(key):
        if len(form) <= RUN:
            needles.add(form)
        needles.update(form[i:i + RUN] for i in range(len(form) - RUN + 1))
    return frozenset(needles)


def forms_of(key: str) -> List[str]:
    """The key as sent, stripped, and escaped as repr(), JSON and URLs write it."""
    encoded = quote(key.strip(), safe="")
    forms = {key, key.strip(), repr(key)[1:-1], json.dumps(key)[1:-1], encoded,
             _lower_hex(encoded)}
    return [form for form in forms if len(form) >= MIN_EXACT]


def redact(text: str, extra: Optional[str] = None) -> str:
    """The text with every form and every run of the registered keys (and of `extra`,
    the key of the current call, however short) replaced by [redacted]."""
    needles = _needles
    if extra and len(extra.strip()) >= PLACEHOLDER_BELOW:
        needles = needles | needles_of(extra)
    elif extra:
        needles = needles | frozenset(forms_of(extra))
    if not text or not needles:
        return text
    spans = _merge(_found(text, needles))
    if not spans:
        return text
    pieces, end = [], 0
    for start, stop in spans:
        pieces += [text[end:start], REDACTED]
        end = stop
    return "".join(pieces) + text[end:]


def redact_json(value: Any) -> Any:
    """A JSON-ready value (a session entry) with every string in it redacted, keys
    too. Redacting the strings before they are serialised, not the serialised line,
    can never cut an escape in half and break the line.

    Example: {"output": "KEY=sk-...Qw7Zr4Tx9Lm2"} -> {"output": "KEY=[redacted]"}
    """
    if not _needles:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(key)): redact_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    return value


def _found(text: str, needles: Iterable[str]) -> List[Tuple[int, int]]:
    """(start, end) of every occurrence of every needle."""
    spans = []
    for needle in needles:
        at = text.find(needle)
        while at != -1:
            spans.append((at, at + len(needle)))
            at = text.find(needle, at + 1)
    return spans


def _merge(spans: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    """Overlapping and touching spans as one (a long run is many windows), sorted."""
    merged: List[Tuple[int, int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def _lower_hex(encoded: str) -> str:
    """"%2F" -> "%2f": some clients write percent escapes in lower case."""
    return "%".join([encoded.split("%")[0]] + [part[:2].lower() + part[2:]
                                               for part in encoded.split("%")[1:]])
