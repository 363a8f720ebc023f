"""Keeping the API key out of everything we write: one registry, one `redact`.

A key must reach its server and nothing else. Yet it can come back in text we keep:
a 401 body that quotes it, a streamed error, a command the model ran that printed the
environment. So the process keeps its secrets here (models/choose.py registers each key it
reads, once), and the writers that matter call `redact` on what they write: the
session file's line writer (session/file.py's to_line, through redact_json), stderr
(output.redact_stderr), the providers' error messages (providers/guard.py) and the
exports (subcommands/export.py, through redact_json).

What counts as the key, for a key K of 12 characters or more. Most keys start with a
public prefix that says whose key it is (`sk-proj-`, `sk-ant-api03-`, ...: PREFIXES);
the secret is what follows it:

    K itself, and K as repr(), JSON and percent-encoding write it
    ("sk/a+b" -> "sk%2Fa%2Bb", in upper or lower case hex)

    any run of RUN (12) or more consecutive characters of the secret, in any of those
    forms: a server that echoes only the key's random part, or cuts it, still leaks it

    redact("401: key ...Qw7Zr4Tx9Lm2 is invalid")  ->  "401: key ...[redacted] is invalid"
    redact("api_key = 'sk-proj-' + env")          ->  unchanged: a prefix is not a secret

A shorter run would find the key where it is not: 8 characters are the prefix
`sk-proj-` alone, or a word the key shares with a folder's name. A key whose secret
is shorter than RUN is found whole only. A key shorter than 12 characters is a
placeholder for a local server ("ollama", "lm-studio"), not a secret: redacting it
would garble ordinary words in every file. The guard still replaces the exact key of
the current call, as it is (see `extra`).

What is redacted in a session entry (redact_json): the values, never the structure
(docs/decisions.md D28). Every string is redacted (message text, thinking, tool-call
arguments, tool results, errorMessage, summaries, labels, custom data) except the
fields miniagent writes itself to hold the tree together (STRUCTURE: type, id,
parentId, timestamp, cwd, parentSession, role, the model's name ...), and no object
key is ever changed. So a
key that shares a run with the working directory leaves the header's cwd alone, and
the session is still listed under its folder. Inside free-form objects that came from
elsewhere (FREE_FORM: a tool call's arguments, a result's details, an extension's
data), every string is redacted, whatever its field is called.

Speed: every RUN-character window of every form is one needle, found with str.find
(C speed, linear in the text); the matches are merged into spans and each span is
replaced once. A 1 MB line with a 100-character key takes tens of milliseconds.

Left out: text written piece by piece (a key split across two writes to stderr, such
as streamed deltas, is not seen whole), stdout (the answer and JSON events belong to
the user who asked for them), object keys (a tool call's argument names), and files
our tools' commands write themselves.
"""

import json
from typing import Any, FrozenSet, Iterable, List, Optional, Tuple
from urllib.parse import quote

REDACTED = "[redacted]"
RUN = 12  # this many consecutive characters of a key's secret are the key
PLACEHOLDER_BELOW = 12  # a shorter key is a local server's placeholder, not a secret
MIN_EXACT = 4  # the current call's key is replaced when at least this long

# What a key starts with to say whose it is: public, the same in every key of its kind.
PREFIXES = ("sk-ant-api03-", "sk-ant-admin01-", "sk-proj-", "sk-svcacct-", "sk-or-v1-",
            "sk-", "gsk_", "xai-")

# Fields whose values miniagent writes itself: the tree (ids, the links between entries
# and files, the folder), the names it matches on, and opaque data a server wants back
# byte for byte. Never redacted, so a session always means what it meant.
STRUCTURE = frozenset({
    "type", "id", "parentId", "timestamp", "version", "cwd", "parentSession",
    "targetId", "fromId", "firstKeptEntryId", "toolCallId",
    "role", "customType", "toolName", "provider", "modelId", "model", "api",
    "stopReason", "thinkingLevel", "kind", "mimeType",
    "thinkingSignature", "extraContent"})

# Objects whose fields someone else named: inside them nothing counts as STRUCTURE.
FREE_FORM = frozenset({"arguments", "details", "data", "parameters"})

_needles: FrozenSet[str] = frozenset()  # replaced whole, never changed: safe to read


def add_secret(key: Optional[str]) -> None:
    """Remember a key for the rest of the process; placeholders are ignored."""
    global _needles
    if key and len(key.strip()) >= PLACEHOLDER_BELOW:
        _needles = _needles | needles_of(key)


def needles_of(key: str) -> FrozenSet[str]:
    """The key's whole forms, and its secret's forms cut into RUN-character windows.

    Example (RUN 12): needles_of("sk-proj-abcdefghijklm") -> {"sk-proj-abcdefghijklm",
    "abcdefghijkl", "bcdefghijklm"}: never "sk-proj-" alone
    """
    needles = set(forms_of(key))
    for form in forms_of(secret_of(key)):
        needles.update(form[i:i + RUN] for i in range(len(form) - RUN + 1))
    return frozenset(needles)


def secret_of(key: str) -> str:
    """The key without its longest public prefix.

    Example: "sk-proj-Qw7Zr4" -> "Qw7Zr4" (not "proj-Qw7Zr4": "sk-" is shorter)
    """
    key = key.strip()
    prefix = max((prefix for prefix in PREFIXES if key.startswith(prefix)), key=len, default="")
    return key[len(prefix):]


def forms_of(key: str) -> List[str]:
    """The key as sent, stripped, and escaped as repr(), JSON and URLs write it."""
    encoded = quote(key.strip(), safe="")
    forms = {key, key.strip(), repr(key)[1:-1], json.dumps(key)[1:-1], encoded,
             _lower_hex(encoded)}
    return [form for form in forms if len(form) >= MIN_EXACT]


def redact(text: str, extra: Optional[str] = None) -> str:
    """The text with every form and every run of the registered keys (and of `extra`,
    the key of the current call, however short) replaced by [redacted]."""
    needles = (_needles | needles_of(extra)) if extra else _needles
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
    """A JSON-ready value (a session entry) with its strings redacted, its structure
    kept (STRUCTURE, FREE_FORM and object keys: see the module docstring). Redacting
    the strings before they are serialised, not the serialised line, can never cut an
    escape in half and break the line.

    Example: {"type": "message", "id": "a1", "output": "KEY=sk-...Qw7Zr4Tx9Lm2"}
          -> {"type": "message", "id": "a1", "output": "KEY=[redacted]"}
    """
    return _redact_values(value, free_form=False) if _needles else value


def _redact_values(value: Any, free_form: bool) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: item if key in STRUCTURE and not free_form
                else _redact_values(item, free_form or key in FREE_FORM)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_values(item, free_form) for item in value]
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
