"""read, hardened: the core's read tool given files it can meet anywhere.

What the model sends and sees is the core's (core/read.py: the description, offset and
limit, the 2000-line / 50 KB window, the closing notice):

    read("big.log")            -> lines 1-2000, then
                                  "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    read("a.txt", offset=100)  -> error "Offset 100 is beyond end of file (3 lines total)"

This module is the `files` the product passes through the core's seam (SafeReadFiles).

Lines are what `text.split("\\n")` gives: "a\\nb\\nc\\n" has 4 lines, the last one empty.
So a file of 2500 lines that ends in "\\n" reports "of 2501"; pi counts the same way, and
models key on these numbers (the offset to continue from), so we keep its rule.
A "\\r" before a newline and a byte order mark are shown as they are.

The file is streamed, never loaded whole (lines.py): one pass counts its lines and notes
where the wanted ones start, a second reads just the window. Reading the last lines of a
1 GB file costs a scan of the file, not 1 GB of memory.

Other kinds of file, decided by their bytes, never by their name (a pipe or a device
is refused before it is opened, see paths.refuse_special_file):
  * PNG, JPEG, GIF and WebP images come back as an image block the model can see.
  * A file with a NUL byte in its first 8 KB is binary (binary.py): the result says so
    and suggests bash tools instead of showing garbage.
  * Bytes that are not valid UTF-8 are shown as U+FFFD, with a note saying so.
  * An empty file reads as "(empty file)".

read declares the file it reads (`paths`), so in a batch of parallel calls it runs after
an earlier write or edit of that file, and before a later one (toolcalls.py): it sees the
file as the calls before it left it, never half-written.

Left out (pi has them): downscaling images larger than the limit (we refuse them and
say how to shrink them; that needs an imaging library), and other encodings than UTF-8.
"""

import base64
import os
import shlex
from dataclasses import replace
from typing import BinaryIO, Optional

from ..core.messages import image_block, text_block
from ..core.read import ReadFiles, check_offset, closing_notice as plain_notice, create_read_tool
from ..core.tools import Tool, ToolContext, ToolResult, text_result
from .hardening.binary import SNIFF_BYTES, is_binary
from .hardening.lines import count_lines, decode_lines, read_window
from .hardening.paths import describe_os_error, refuse_oversized, refuse_special_file, resolve_read_path
from .hardening.truncate import DEFAULT_MAX_BYTES, Truncation, format_size, truncate_head

MAX_IMAGE_BYTES = 4_718_592  # 4.5 MB: larger images are rejected by model APIs


class SafeReadFiles(ReadFiles):
    """The core read's `files` seam, hardened: every kind of file, any size, told apart."""

    def resolve(self, path: str, cwd: str) -> str:
        return resolve_read_path(path, cwd)

    def read(self, path: str, start: int, count: Optional[int], ctx: ToolContext) -> ToolResult:
        refuse_special_file(path)
        try:
            with open(path, "rb") as f:
                head = f.read(SNIFF_BYTES)
                mime = image_mime(head)
                if mime is not None:
                    return read_image(f, path, mime)
                if is_binary(head):
                    return describe_binary(f, path)
                return read_text(f, path, start, count, ctx)
        except OSError as exc:
            raise describe_os_error(exc, path) from exc


def create_tool() -> Tool:
    """The core's read tool with the hardened `files`."""
    return create_read_tool(SafeReadFiles())


execute = create_tool().execute
"""read as a function: @path attachments (modes/attach.py) are read by the tool itself."""


def image_mime(head: bytes) -> Optional[str]:
    """The image type announced by a file's first bytes ("magic numbers"), or None.

    Example: b"\\x89PNG\\r\\n\\x1a\\n..." -> "image/png"; b"hello" -> None.
    """
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_image(f: BinaryIO, path: str, mime: str) -> ToolResult:
    refuse_oversized(f, path, MAX_IMAGE_BYTES, "image",
                     "cannot be sent to the model. Make a smaller copy with bash (for "
                     "example with ImageMagick: convert in.png -resize 50% out.png) and "
                     "read that.")
    f.seek(0)
    data = base64.b64encode(f.read()).decode("ascii")
    return ToolResult(content=[text_block(f"Read image file [{mime}]"), image_block(data, mime)])


def describe_binary(f: BinaryIO, path: str) -> ToolResult:
    size = os.fstat(f.fileno()).st_size
    quoted = shlex.quote(path)
    return text_result(
        f"{path} is a binary file ({format_size(size)}), so its bytes are not shown as "
        f"text. Inspect it with bash, for example `file {quoted}` or "
        f"`xxd {quoted} | head -n 20`.")


# --- Text ----------------------------------------------------------------------------------

def read_text(f: BinaryIO, path: str, start: int, count: Optional[int],
              ctx: ToolContext) -> ToolResult:
    targets = [start] if count is None else [start, start + count]
    total, line_starts, file_size = count_lines(f, targets, ctx.abort)
    check_offset(start, total)
    if file_size == 0:
        return text_result("(empty file)")
    end = min(start + count, total) if count is not None else total

    f.seek(line_starts[start])
    window, first_line_size = read_window(f, end - start)
    texts, clean = decode_lines(window)
    truncation = truncate_head("\n".join(texts))
    # truncate_head saw only the window; the real totals of the selection come from the scan.
    selected_end = line_starts[end] - 1 if end < total else file_size
    truncation = replace(truncation, total_lines=end - start,
                         total_bytes=selected_end - line_starts[start])

    details = {"truncation": truncation.to_details()} if truncation.truncated else None
    notice = closing_notice(truncation, path, start, end, total, first_line_size)
    if truncation.first_line_exceeds_limit:
        return text_result(notice, details)  # not even one line fits: the notice alone
    text = truncation.content
    if not all(clean[:truncation.output_lines]):
        text += ("\n\n[Some bytes in these lines are not valid UTF-8; they are shown as "
                 "\ufffd (U+FFFD).]")
    return text_result(f"{text}\n\n{notice}" if notice else text, details)


def closing_notice(truncation: Truncation, path: str, start: int, end: int, total: int,
                   first_line_size: int) -> str:
    """The notice after the lines shown: how to get what this read left out.

    One case of its own, then the core's two ("" when the read reached the end):
      * the first line alone is over 50 KB    -> "[Line 7 is 60.0KB, more than the
        50.0KB that one read can show. Use bash to see part of it: sed -n '7p' ...]"
      * the 2000-line or 50 KB limit cut it   -> "[Showing lines 1-2000 of 2500. Use
        offset=2001 to continue.]"
      * the model's `limit` stopped it early  -> "[2490 more lines in file. Use
        offset=11 to continue.]"
    """
    first = start + 1
    if truncation.first_line_exceeds_limit:
        return (f"[Line {first} is {format_size(first_line_size)}, more than the "
                f"{format_size(DEFAULT_MAX_BYTES)} that one read can show. Use bash to see "
                f"part of it: sed -n '{first}p' {shlex.quote(path)} | head -c "
                f"{DEFAULT_MAX_BYTES}]")
    cut_by = truncation.truncated_by if truncation.truncated else None
    return plain_notice(start, truncation.output_lines, end, total, cut_by)
