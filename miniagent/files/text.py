"""Text that leaves us: one line for people, JSON for files and pipes.

Two small rules every front end, session writer and subcommand shares. An error shown
to a person is one line, whatever line breaks a server or an exception put in it
(`one_line`). Every JSON line we write goes through `to_json`, which writes JSON the
way pi's JavaScript does and cannot be crashed by a lone surrogate (see
core/messages.py's clean_text for why a Python str can hold one).

Left out: cleaning text as it arrives (the core does that where server text enters,
core/assembly.clean_text); keeping secrets out (files/redaction.py).
"""

import json
from typing import Any, Optional

from ..core.assembly import SURROGATES


def one_line(text: str, limit: int = 500) -> str:
    """Any text as one line of at most `limit` characters: an error is shown on one
    line, whatever line breaks a server (or an exception) put in it.

    Examples: "a\\n  b" -> "a b";  one_line("x" * 600) -> 497 "x" then "..."
    """
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def to_json(value: Any, indent: Optional[int] = None, default: Any = None) -> str:
    """`value` as JSON text the way pi's JavaScript writes it (compact unless `indent`):
    non-ASCII as itself (UTF-8 once written), a lone surrogate as its six-character
    escape. Every JSON line we write goes through here, so a surrogate can neither crash
    a writer nor put bytes that are not UTF-8 in a file or on stdout.

    Example: {"text": "é \\udc80"} -> '{"text":"é \\\\udc80"}' (the escape as six characters)
    """
    separators = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators,
                      default=default)
    # The common cases cost (almost) nothing: ASCII text has no surrogate, and one
    # encoding attempt tells the rest; only a failed one pays for the search.
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = SURROGATES.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text

