"""ls: list one directory.

    ls("src") -> ".env\\napp.py\\nlib/\\nREADME.md"

Entries are sorted without regard to case, directories (including symlinks to
directories) end in "/", and dot files are included. Nothing is hidden by .gitignore:
ls shows what is there, including symlinks whose target is missing or loops back to
itself (listed by name, as find lists them). At most 500 entries (change with limit)
and 50 KB are returned; a notice says when a limit cut the list.

Left out: sizes, dates and permissions (use bash `ls -la` for those) and recursion (use
find).
"""

import os
import stat
from typing import Dict, Optional

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .hardening.paths import resolve_directory
from .hardening.truncate import DEFAULT_MAX_BYTES, cap_listing, parse_limit

DEFAULT_LIMIT = 500

DESCRIPTION = (
    "List a directory: names sorted alphabetically, directories marked with a trailing "
    f"'/', dot files included. At most {DEFAULT_LIMIT} entries (change with limit) and "
    f"{DEFAULT_MAX_BYTES // 1024}KB are returned.")

PARAMETERS = {
    "type": "object",
    "properties": {
        "path": {"type": "string",
                 "description": "Directory to list (default: the working directory)"},
        "limit": {"type": "number",
                  "description": f"Most entries to return (default: {DEFAULT_LIMIT})"},
    },
}


def create_tool() -> Tool:
    return Tool("ls", DESCRIPTION, PARAMETERS, execute)


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    root = resolve_directory(args.get("path"), ctx.cwd, "Use read to see a file.")
    limit = parse_limit(args.get("limit"), DEFAULT_LIMIT)
    try:
        # Case-insensitive, as pi sorts: "Makefile" belongs among the m's, where a reader
        # scanning the list looks for it, not ahead of every lower-case name.
        names = sorted(os.listdir(root), key=str.lower)
    except OSError as exc:
        raise ToolError(f"Cannot read directory {root}: {exc.strerror or exc}") from exc

    entries = []
    limit_reached = False
    for name in names:
        if len(entries) >= limit:
            limit_reached = True
            break
        mode = entry_mode(os.path.join(root, name))
        if mode is None:
            continue  # gone since listdir
        entries.append(name + "/" if stat.S_ISDIR(mode) else name)
    if not entries:
        return text_result("(empty directory)")

    notices, details = [], {}
    if limit_reached:
        notices.append(f"Entry limit reached ({limit}). Use limit={limit * 2} for more")
        details["entryLimitReached"] = limit
    return text_result(*cap_listing(entries, notices, details))


def entry_mode(path: str) -> Optional[int]:
    """The mode of what `path` leads to, or of the link itself when that fails.

    stat follows symlinks, so a link to a directory gets its "/"; a dangling link or a
    loop fails there, and lstat still sees the link, which is there and worth showing
    (find lists it too). None only for an entry deleted since the listing.
    """
    for look in (os.stat, os.lstat):
        try:
            return look(path).st_mode
        except OSError:
            continue
    return None
