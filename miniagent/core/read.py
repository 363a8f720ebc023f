"""read: show the model a file, a window of lines at a time.

The model sends a path, optionally `offset` (first line, from 1) and `limit`; it gets the
lines as they are, at most 2000 lines or 50 KB (a model's context is a budget), and a
notice saying how to continue. Lines are what `text.split("\\n")` gives ("a\\n" is 2).

    read("big.log")  -> its lines 1-2000, then
                        "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"

The seam: `files` (plain `ReadFiles`: open, decode as UTF-8, cut the window); the product's
tools/read.py passes its own: images, binary and huge files, special files refused. Left
out: images, binary files (shown as U+FFFD), huge files (read whole), a line over 50 KB.
"""

import os
from typing import Dict, List, Optional, Tuple

from .tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result

MAX_LINES = 2000
MAX_BYTES = 50 * 1024

DESCRIPTION = (
    "Read a file. Text files come back as plain lines (no line numbers added), at most "
    f"{MAX_LINES} lines or {MAX_BYTES // 1024}KB per call, whichever comes "
    "first; a notice at the end gives the offset to continue from. Use offset and limit "
    "to read a part of a large file, and keep reading with offset when you need all of "
    "it. Images (png, jpg, gif, webp) are returned as images you can see.")

PARAMETERS = {"type": "object", "required": ["path"], "properties": {
    "path": {"type": "string",
             "description": "File to read, absolute or relative to the working directory"},
    "offset": {"type": "number",
               "description": "First line to show, counting from 1 (default: 1)"},
    "limit": {"type": "number", "description": "How many lines to show at most"},
}}


def resolve_path(path: str, cwd: str) -> str:
    """The absolute path `path` names from `cwd`: resolve_path("a.py", "/r") -> "/r/a.py"."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def describe_os_error(exc: OSError, path: str) -> ToolError:
    """An OSError as one line for the model: "File not found: /r/x.py"."""
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"File not found: {path}")
    return ToolError(f"Cannot access {path}: {exc.strerror or exc}")


class ReadFiles:
    """read's seam: how it reaches the disk. The product passes a subclass."""

    def resolve(self, path: str, cwd: str) -> str:
        return resolve_path(path, cwd)

    def read(self, path: str, start: int, count: Optional[int], ctx: ToolContext) -> ToolResult:
        """The result for lines start+1 .. start+count (count None: to the end)."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise describe_os_error(exc, path) from exc
        lines = data.decode("utf-8", errors="replace").split("\n")
        check_offset(start, len(lines))
        if not data:
            return text_result("(empty file)")
        end = len(lines) if count is None else min(start + count, len(lines))
        shown, cut_by = cap(lines[start:end])
        notice = closing_notice(start, len(shown), end, len(lines), cut_by)
        return text_result("\n".join(shown) + (f"\n\n{notice}" if notice else ""))


def create_read_tool(files: ReadFiles = ReadFiles()) -> Tool:
    """The read tool; `files` is the seam (see the module docstring)."""
    def paths(args: Dict, cwd: str):
        return [files.resolve(args["path"], cwd)], []  # reads one file, writes none

    def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
        offset, limit = args.get("offset"), args.get("limit")
        start = max(0, int(offset) - 1) if offset else 0  # offset 0 or none: line 1
        count = int(limit) if limit and limit >= 1 else None  # a limit below 1: no limit
        return files.read(files.resolve(args["path"], ctx.cwd), start, count, ctx)

    return Tool("read", DESCRIPTION, PARAMETERS, execute, paths=paths)


def check_offset(start: int, total: int) -> None:
    if start >= total:
        raise ToolError(f"Offset {start + 1} is beyond end of file ({total} lines total)")


def cap(lines: List[str]) -> Tuple[List[str], Optional[str]]:
    """The first lines within MAX_LINES and MAX_BYTES (at least one), and the limit hit:
    "lines", "bytes" or None."""
    kept, size = [], 0
    for line in lines[:MAX_LINES]:
        size += len(line.encode("utf-8")) + 1
        if size > MAX_BYTES + 1 and kept:
            return kept, "bytes"
        kept.append(line)
    return kept, "lines" if len(lines) > MAX_LINES else None


def closing_notice(start: int, shown: int, end: int, total: int, cut_by: Optional[str]) -> str:
    """How to get what this read left out; "" when it reached the end of the file."""
    last = start + shown
    if cut_by:
        note = f" ({MAX_BYTES / 1024:.1f}KB limit)" if cut_by == "bytes" else ""
        return (f"[Showing lines {start + 1}-{last} of {total}{note}. "
                f"Use offset={last + 1} to continue.]")
    if end < total:
        return f"[{total - end} more lines in file. Use offset={end + 1} to continue.]"
    return ""
