"""Reading a window of lines from a file of any size, without loading the file.

read shows at most 2000 lines or 50 KB at a time, but the file may be a 1 GB log and the
window its last lines. Reading it whole would cost 1 GB of memory; `for line in f` would
build millions of line objects to throw away. Instead, two passes over the bytes:

  1. `count_lines` reads the file in 256 KB binary chunks, counts the newlines in each
     (`bytes.count` runs in C, so this is fast), and notes the byte offset where each
     wanted line starts:

        b"ab\\ncd\\nef"  targets [0, 2]  ->  3 lines, {0: 0, 2: 6}, size 8

  2. `read_window` seeks there and reads lines until the window is full, keeping at most
     2001 lines (one more than shown, so truncation can tell it cut) and 50 KB plus one
     line prefix. A line longer than that is kept as a prefix with its full length:

        b"ab\\ncdef", cap 2  ->  (b"ab", 2), (b"cd", 4)    (iter_lines)

     and `decode_lines` turns the window into text, marking the lines that were not
     valid UTF-8 (read adds a note for them).

Reading the last lines of a 1 GB file costs one scan and about two chunks of memory
(tests/bench_tools.py measures it against a plain `for line in f` pass).

Lines are what `text.split("\\n")` gives, as in read.py: b"ab\\ncd\\n" has 3 lines, the
last one empty.

Left out: an index kept between calls (each read scans again; reading a huge file page
by page costs a scan per page), and line endings other than "\\n" ("\\r" stays in the line).
"""

import threading
from typing import BinaryIO, Dict, Iterable, Iterator, List, Tuple

from ...core.tools import check_not_aborted
from .truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

CHUNK_BYTES = 256 * 1024


def count_lines(f: BinaryIO, targets: List[int],
                abort: threading.Event) -> Tuple[int, Dict[int, int], int]:
    """One pass over the file: its lines, where each target line starts, and its size.

    Line n (0-based) starts just after the n-th newline. Returns (total, {line: offset},
    size) with only the targets that exist. Example: b"ab\\ncd\\n", targets [1, 5] ->
    (3, {1: 3}, 6): three lines ("ab", "cd", ""), line 1 starts at byte 3, there is no
    line 5. The size is what was read, not what fstat says: /proc files report size 0
    but have content.
    """
    f.seek(0)
    starts = {0: 0} if 0 in targets else {}
    pending = sorted(t for t in targets if t > 0)
    newlines_before = chunk_offset = 0
    while True:
        chunk = f.read(CHUNK_BYTES)
        if not chunk:
            break
        check_not_aborted(abort)  # once per chunk: a scan of a huge file stops promptly
        in_chunk = chunk.count(b"\n")  # bytes.count runs in C: this is the whole cost
        while pending and pending[0] <= newlines_before + in_chunk:
            target = pending.pop(0)
            position = nth_newline(chunk, target - newlines_before)
            starts[target] = chunk_offset + position + 1
        newlines_before += in_chunk
        chunk_offset += len(chunk)
    return newlines_before + 1, starts, chunk_offset


def nth_newline(chunk: bytes, n: int) -> int:
    """Index of the n-th (1-based) b"\\n" in `chunk`; the caller knows there are n."""
    position = -1
    for _ in range(n):
        position = chunk.index(b"\n", position + 1)
    return position


def read_window(f: BinaryIO, wanted: int) -> Tuple[List[bytes], int]:
    """Up to `wanted` lines from the current position, no more than the output can use.

    Stops once the window holds one line more than the line limit or more bytes than
    the byte limit: truncate_head then sees that the output is cut and where. Each line
    is stored as a prefix of at most max_bytes + 1 bytes (a longer line never fits, and
    decoding cannot make it shorter). Returns (lines, full size of the first line).
    """
    window: List[bytes] = []
    window_bytes = 0
    first_line_size = 0
    for prefix, size in iter_lines(f, DEFAULT_MAX_BYTES + 1):
        if not window:
            first_line_size = size
        window.append(prefix)
        window_bytes += len(prefix) + 1
        if (len(window) >= wanted or len(window) > DEFAULT_MAX_LINES
                or window_bytes > DEFAULT_MAX_BYTES + 1):
            break
    return window, first_line_size


def iter_lines(f: BinaryIO, cap: int) -> Iterator[Tuple[bytes, int]]:
    """Yield (first `cap` bytes of the line, full length) for each line from here on.

    Example: b"ab\\ncdef" with cap 2 -> (b"ab", 2), (b"cd", 4).
    """
    prefix = bytearray()
    size = 0
    while True:
        chunk = f.read(CHUNK_BYTES)
        if not chunk:
            break
        position = 0
        while True:
            newline = chunk.find(b"\n", position)
            piece_end = len(chunk) if newline < 0 else newline
            room = cap - len(prefix)
            if room > 0:
                prefix += chunk[position:min(piece_end, position + room)]
            size += piece_end - position
            if newline < 0:
                break
            yield bytes(prefix), size
            prefix.clear()
            size = 0
            position = newline + 1
    yield bytes(prefix), size  # the text after the last newline: "" if the file ends in one


def decode_lines(lines: Iterable[bytes]) -> Tuple[List[str], List[bool]]:
    """Decode each line as UTF-8; undecodable bytes become U+FFFD.

    Returns the texts and, per line, whether it decoded cleanly.
    Example: [b"ok", b"caf\\xe9"] -> (["ok", "caf\\ufffd"], [True, False])
    """
    texts, clean = [], []
    for line in lines:
        try:
            texts.append(line.decode("utf-8"))
            clean.append(True)
        except UnicodeDecodeError:
            texts.append(line.decode("utf-8", errors="replace"))
            clean.append(False)
    return texts, clean
