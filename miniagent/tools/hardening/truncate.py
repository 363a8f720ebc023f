"""Truncation: keep tool output small enough for the model's context, and say what was cut.

A model's context is a budget. One `cat` of a log file or one `find /` could fill it, so
every tool passes its text through the functions here before returning it. The limits
are pi's: 2000 lines or 50 KB of UTF-8 (51200 bytes), whichever is hit first.

There are two directions:

  * `truncate_head` keeps the beginning. Used by read, grep, find and ls: the model
    continues from where the output stopped (read's "Use offset=N to continue").
  * `truncate_tail` keeps the end. Used by bash: the last lines of a build or a test run
    hold the error and the summary.

Neither returns a string alone: both return a `Truncation` record that says what was cut
(how many lines and bytes there were, how many were kept, and which limit was hit), so
the caller can print a notice that tells the model how to get the rest. The record goes
into the tool result's `details` under camelCase keys (`to_details()`), as in pi's
session files.

Lines are counted as `text.split("\\n")` counts them: "a\\nb\\n" is three lines, the last
one empty. Bytes are UTF-8 bytes, and a cut never splits a character in half.

Left out: counting tokens instead of bytes (bytes are exact, cheap and close enough), and
truncating in the middle (head + tail) of an output.
"""

import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ...core.read import MAX_BYTES as DEFAULT_MAX_BYTES, MAX_LINES as DEFAULT_MAX_LINES
MAX_LINE_CHARS = 500
"""grep shows at most this many characters of one matching line."""


@dataclass
class Truncation:
    content: str
    """The text that was kept."""
    truncated: bool
    truncated_by: Optional[str]
    """"lines" or "bytes": which limit stopped the output; None when nothing was cut."""
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    last_line_partial: bool = False
    """Tail only: a line longer than max_bytes was kept as its last bytes."""
    first_line_exceeds_limit: bool = False
    """Head only: the first line alone is over max_bytes, so nothing could be kept."""

    def to_details(self) -> Dict[str, Any]:
        """The record as it is stored in a tool result's details (content left out)."""
        return {"truncated": self.truncated, "truncatedBy": self.truncated_by,
                "totalLines": self.total_lines, "totalBytes": self.total_bytes,
                "outputLines": self.output_lines, "outputBytes": self.output_bytes,
                "lastLinePartial": self.last_line_partial,
                "firstLineExceedsLimit": self.first_line_exceeds_limit,
                "maxLines": self.max_lines, "maxBytes": self.max_bytes}


def utf8_len(text: str) -> int:
    """Size of `text` in UTF-8. A lone surrogate (a model can send one in JSON) counts
    as the 3 bytes it would take instead of raising."""
    return len(text.encode("utf-8", errors="surrogatepass"))


def printable(text: str) -> str:
    """`text` with undecodable bytes shown as U+FFFD, so it is valid UTF-8.

    File names and file contents that are not UTF-8 reach us as lone surrogates
    (Python's "surrogateescape": b"caf\\xe9" -> "caf\\udce9"). They cannot be encoded
    for the model or the session file, so what the model sees must not contain them.
    Example: printable("caf\\udce9.txt") -> "caf\\ufffd.txt".
    """
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def format_size(num_bytes: int) -> str:
    """Human-readable size with one decimal, rounded half up.

    Examples: 1023 -> "1023B", 1024 -> "1.0KB", 1280 -> "1.3KB", 51200 -> "50.0KB",
    1048576 -> "1.0MB".
    """
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{_one_decimal_half_up(num_bytes / 1024)}KB"
    return f"{_one_decimal_half_up(num_bytes / (1024 * 1024))}MB"


def _one_decimal_half_up(value: float) -> str:
    # Python's round() and "%.1f" round half to even (1.25 -> "1.2"); pi (JavaScript's
    # toFixed) prints 1.3 for 1280 bytes, so round half up explicitly.
    tenths = int(value * 10 + 0.5)
    return f"{tenths // 10}.{tenths % 10}"


def truncate_head(text: str, max_lines: int = DEFAULT_MAX_LINES,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    """Keep whole lines from the start of `text` while both limits hold.

    Examples:
        truncate_head("a\\nb\\nc", max_lines=2)   -> content "a\\nb", truncated_by "lines",
                                                   total_lines 3, output_lines 2
        truncate_head("abc\\ndef\\ng", max_bytes=5) -> content "abc", truncated_by "bytes"
        truncate_head("x" * 60000)                 -> content "", first_line_exceeds_limit
    """
    lines = text.split("\n")
    kept = []
    kept_bytes = 0
    truncated_by = None
    first_line_too_big = False
    for index, line in enumerate(lines):
        size = utf8_len(line)
        newline = 1 if index > 0 else 0  # the "\n" that joins this line to the previous
        if index == 0 and size > max_bytes:
            truncated_by, first_line_too_big = "bytes", True
            break
        if index >= max_lines:
            truncated_by = "lines"
            break
        if kept_bytes + newline + size > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        kept_bytes += newline + size
    return Truncation(
        content="\n".join(kept), truncated=truncated_by is not None,
        truncated_by=truncated_by, total_lines=len(lines), total_bytes=utf8_len(text),
        output_lines=len(kept), output_bytes=kept_bytes, max_lines=max_lines,
        max_bytes=max_bytes, first_line_exceeds_limit=first_line_too_big)


def truncate_tail(text: str, max_lines: int = DEFAULT_MAX_LINES,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    """Keep whole lines from the end of `text` while both limits hold.

    If even the last line alone is over `max_bytes`, keep as many of its last bytes as
    fit (the cut moved forward to the start of a character) and set `last_line_partial`.
    A trailing empty line does not count as kept text: "x" * 100 + "\\n" keeps the end
    of the x's (pi would keep only the empty line and show nothing).

    Examples:
        truncate_tail("a\\nb\\nc", max_lines=2)   -> content "b\\nc", truncated_by "lines"
        truncate_tail("x" * 100, max_bytes=10)   -> content "x" * 10, last_line_partial
        truncate_tail("x" * 100 + "\\n", max_bytes=10) -> content "x" * 9 + "\\n"
        truncate_tail("é" * 10, max_bytes=5)     -> content "éé" (4 bytes: a third "é"
                                                   would need a cut inside a character)
    """
    lines = text.split("\n")
    total_bytes = utf8_len(text)
    kept = []
    kept_bytes = 0
    truncated_by = None
    last_line_partial = False
    for line in reversed(lines):
        size = utf8_len(line)
        newline = 1 if kept else 0
        if len(kept) >= max_lines:
            truncated_by = "lines"
            break
        if kept_bytes + newline + size > max_bytes:
            truncated_by = "bytes"
            if not any(kept):
                # Nothing but empty lines so far (output ending in "\n"): show the end
                # of this line rather than nothing at all.
                line = _utf8_suffix(line, max_bytes - kept_bytes - newline)
                kept.append(line)
                kept_bytes += newline + utf8_len(line)
                last_line_partial = True
            break
        kept.append(line)
        kept_bytes += newline + size
    kept.reverse()
    return Truncation(
        content="\n".join(kept), truncated=truncated_by is not None,
        truncated_by=truncated_by, total_lines=len(lines), total_bytes=total_bytes,
        output_lines=len(kept), output_bytes=kept_bytes, max_lines=max_lines,
        max_bytes=max_bytes, last_line_partial=last_line_partial)


def _utf8_suffix(line: str, max_bytes: int) -> str:
    """The longest end of `line` that fits in `max_bytes` UTF-8 bytes."""
    data = line.encode("utf-8", errors="surrogatepass")[-max_bytes:]
    # A UTF-8 continuation byte looks like 0b10xxxxxx; skipping them moves the cut
    # forward to the first byte of a whole character.
    start = 0
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:].decode("utf-8", errors="surrogatepass")


def truncate_line(line: str, max_chars: int = MAX_LINE_CHARS) -> str:
    """Cut one over-long line (grep's minified-JavaScript problem).

    Example: truncate_line("x" * 501) -> "x" * 500 + "... [truncated]"
    """
    if len(line) <= max_chars:
        return line
    return line[:max_chars] + "... [truncated]"


def parse_limit(value: Optional[float], default: int) -> int:
    """The `limit` argument of grep, find and ls: absent means the default, and anything
    below 1 means 1 (a listing that may show nothing would only cost the model a turn).

    Examples: parse_limit(None, 100) -> 100; parse_limit(2.7, 100) -> 2; parse_limit(0, 100) -> 1
    """
    return default if value is None else max(1, int(value))


def cap_listing(lines: List[str], notices: List[str],
                details: Dict[str, Any]) -> Tuple[str, Optional[Dict[str, Any]]]:
    """Join a listing (grep, find, ls), cap it at 50 KB and append its notices.

    A listing has no line cap here: its own limit counts matches or entries. Names
    that are not UTF-8 are shown with U+FFFD (see `printable`). Returns the text and
    the details (None when empty). Example:
    cap_listing(["a.py", "b.py"], ["Result limit reached (2)"], {"resultLimitReached": 2})
    -> ("a.py\\nb.py\\n\\n[Result limit reached (2)]", {"resultLimitReached": 2})
    """
    truncation = truncate_head("\n".join(lines), max_lines=sys.maxsize)
    if truncation.truncated:
        notices = notices + [f"Output cut at the {format_size(truncation.max_bytes)} limit"]
        details = {**details, "truncation": truncation.to_details()}
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return printable(text), details or None
