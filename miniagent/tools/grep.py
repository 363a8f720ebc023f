"""grep: search file contents for a pattern, in pure Python.

    grep("def main")                       -> "src/app.py:12: def main():"
    grep("TODO", glob="*.py", context=1)   -> "src/a.py-4- x = 1"
                                              "src/a.py:5: # TODO: fix"
                                              "src/a.py-6- y = 2"

Each output line names the file (relative to the searched directory, or just its name
when a single file is searched) and the line number: ":" marks a matching line, "-" a
context line. Context blocks that touch or overlap are merged, so no line is printed
twice.

The search walks the tree with walk.py (skips `.git`, honours `.gitignore`, includes
hidden files), skips binary files (a NUL byte in the first 8 KB) and anything that is not
a regular file (opening a named pipe would wait forever), and stops at the match limit
(100 by default). The lines are matched in a child process (regex_worker.py), so a
pattern that keeps the regex engine busy forever, like `(a+)+$`, cannot freeze the
agent: Ctrl-C still works, and 5 s without progress end the call with an error. Lines
are cut at 500 characters and the whole output at 50 KB; each limit adds a notice
saying how to get more. Files that
cannot be opened (permission denied) are skipped and named in a notice, so "No matches
found" never hides them. The pattern is a Python regular expression unless `literal`
is set.

Left out (ripgrep has them): parallel search, multiline patterns, encodings other than
UTF-8, and ripgrep's regex dialect (Python's `re` is close for everyday patterns).
"""

import os
import re
from dataclasses import dataclass, field
from typing import BinaryIO, Dict, Iterator, List, Pattern, Tuple

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .hardening.binary import SNIFF_BYTES, is_binary
from .hardening.paths import check_exists, refuse_special_file, resolve_path
from .hardening.regex_worker import regex_matcher
from .hardening.truncate import (DEFAULT_MAX_BYTES, MAX_LINE_CHARS, cap_listing, parse_limit,
                       truncate_line)
from .hardening.walk import glob_matcher, walk

DEFAULT_LIMIT = 100

DESCRIPTION = (
    "Search file contents for a regular expression (Python `re` syntax) or, with "
    "literal=true, a plain string. Returns "
    "matching lines as path:line: text, searching the working directory (or the given "
    "path) recursively; .gitignore'd files and binary files are skipped. At most "
    f"{DEFAULT_LIMIT} matches (change with limit) and {DEFAULT_MAX_BYTES // 1024}KB are "
    f"returned; lines are cut at {MAX_LINE_CHARS} characters.")

PARAMETERS = {
    "type": "object",
    "required": ["pattern"],
    "properties": {
        "pattern": {"type": "string", "description": "Regular expression, or text with literal=true"},
        "path": {"type": "string",
                 "description": "Directory or file to search (default: the working directory)"},
        "glob": {"type": "string",
                 "description": "Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'"},
        "ignoreCase": {"type": "boolean", "description": "Ignore upper/lower case (default: false)"},
        "literal": {"type": "boolean",
                    "description": "Match the pattern as plain text, not a regex (default: false)"},
        "context": {"type": "number",
                    "description": "Lines to show before and after each match (default: 0)"},
        "limit": {"type": "number",
                  "description": f"Stop after this many matches (default: {DEFAULT_LIMIT})"},
    },
}


def create_tool() -> Tool:
    return Tool("grep", DESCRIPTION, PARAMETERS, execute)


@dataclass
class Search:
    """What one grep call looks for, and what it has found so far."""
    regex: Pattern
    context: int
    limit: int
    lines: List[str] = field(default_factory=list)
    matches: int = 0
    lines_cut: bool = False
    unreadable: List[str] = field(default_factory=list)
    """Files that could not be opened, as "rel (reason)"."""

    def add(self, rel: str, number: int, text: str, is_match: bool) -> None:
        shown = truncate_line(text)
        self.lines_cut |= shown != text
        mark = ":" if is_match else "-"
        self.lines.append(f"{rel}{mark}{number}{mark} {shown}")


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    root = resolve_path(args.get("path") or ".", ctx.cwd)
    check_exists(root)  # "Path not found", or the real reason (a symlink loop)
    refuse_special_file(root)
    search = Search(regex=compile_pattern(args), context=max(0, int(args.get("context") or 0)),
                    limit=parse_limit(args.get("limit"), DEFAULT_LIMIT))
    # The child process, not this thread, runs the regex: a runaway pattern stalls only
    # the child, which regex_worker.py can kill (regex_child.py says how the context
    # blocks are merged so that no line is shown twice).
    with regex_matcher(search.regex, search.context, search.limit, MAX_LINE_CHARS,
                       ctx.abort) as matcher:
        for rel, kind, number, text in matcher.search(text_files(root, search, args, ctx)):
            search.add(rel, number, text, is_match=kind == "m")
    search.matches = matcher.matches
    notices, details = [], {}
    if search.matches >= search.limit:
        notices.append(f"Match limit reached ({search.limit}). Use "
                       f"limit={search.limit * 2} for more, or refine the pattern")
        details["matchLimitReached"] = search.limit
    if search.lines_cut:
        notices.append(f"Some lines were cut to {MAX_LINE_CHARS} characters; use read to "
                       f"see them whole")
        details["linesTruncated"] = True
    if search.unreadable:
        notices.append(f"{len(search.unreadable)} file(s) could not be read and were "
                       f"skipped, e.g. {search.unreadable[0]}")
        details["unreadableFiles"] = len(search.unreadable)
    return text_result(*cap_listing(search.lines or ["No matches found"], notices, details))


def compile_pattern(args: Dict) -> Pattern:
    pattern = re.escape(args["pattern"]) if args.get("literal") else args["pattern"]
    try:
        return re.compile(pattern, re.IGNORECASE if args.get("ignoreCase") else 0)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {args['pattern']!r}: {exc}. Escape "
                        f"special characters, or set literal=true to search for the "
                        f"text as it is.") from exc


def files_to_search(root: str, glob: str, ctx: ToolContext) -> Iterator[Tuple[str, str]]:
    """(absolute path, path to show) of each file to search, in a stable order."""
    if not os.path.isdir(root):
        yield root, os.path.basename(root)
        return
    matches_glob = glob_matcher(glob) if glob else None
    for entry in walk(root, ctx.abort):
        if matches_glob is not None and not matches_glob(entry.rel):
            continue
        if os.path.isfile(entry.path):  # not a directory, pipe, device or broken link
            yield entry.path, entry.rel


def text_files(root: str, search: Search, args: Dict,
               ctx: ToolContext) -> Iterator[Tuple[BinaryIO, str]]:
    """(open file, path to show) of each text file to search; binary files are skipped
    and files that cannot be opened noted in `search.unreadable`. The matcher closes
    the files it is given."""
    for path, rel in files_to_search(root, args.get("glob"), ctx):
        check_not_aborted(ctx.abort)  # walk checks per directory; one may hold many files
        try:
            f = open(path, "rb")
        except OSError as exc:
            search.unreadable.append(f"{rel} ({exc.strerror or exc})")
            continue
        if is_binary(f.read(SNIFF_BYTES)):
            f.close()
            continue
        f.seek(0)  # the child shares this descriptor, and its position
        yield f, rel
