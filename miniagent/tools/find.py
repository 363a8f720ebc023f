"""find: list the files whose path matches a glob, in pure Python.

    find("*.py")           -> "app.py\\nsrc/util.py"      ("*.py": the name, at any depth)
    find("src/**/*.ts")    -> "src/a.ts\\nsrc/lib/b.ts"   (has "/": the relative path)
    find("**/*.txt")       -> "a.txt\\ndocs/b.txt"        ("**/" may match no directory)
    find("build")          -> "build/"                   (directories end in "/")

Globs follow gitignore's rules (see walk.py). That differs from pi, whose fd matches
only base names, so that a pattern with a "/" like "src/**/*.spec.ts" found nothing
there; a pattern without "/" behaves the same in both. Paths are relative to the
searched directory, in sorted depth-first order. The tree is walked as grep walks it:
hidden files included, `.git` skipped, `.gitignore` honoured.

At most 1000 results (change with limit) and 50 KB are returned, each limit with a
notice. Left out: fd's options (type filters, depth limits, regex patterns).
"""

from typing import Dict

from ..core.tools import Tool, ToolContext, ToolResult, check_not_aborted, text_result
from .hardening.paths import resolve_directory
from .hardening.truncate import DEFAULT_MAX_BYTES, cap_listing, parse_limit
from .hardening.walk import glob_matcher, walk

DEFAULT_LIMIT = 1000

DESCRIPTION = (
    "Find files by glob pattern, e.g. '*.py' (any depth), 'src/**/*.ts' or "
    "'**/test_*.py'. Returns paths relative to the searched directory; directories end "
    "in '/'. .gitignore'd files are skipped, hidden files included. At most "
    f"{DEFAULT_LIMIT} results (change with limit) and {DEFAULT_MAX_BYTES // 1024}KB are "
    "returned.")

PARAMETERS = {
    "type": "object",
    "required": ["pattern"],
    "properties": {
        "pattern": {"type": "string",
                    "description": "Glob to match: without '/' it matches file names at "
                                   "any depth, with '/' the path from the searched directory"},
        "path": {"type": "string",
                 "description": "Directory to search (default: the working directory)"},
        "limit": {"type": "number",
                  "description": f"Stop after this many results (default: {DEFAULT_LIMIT})"},
    },
}


def create_tool() -> Tool:
    return Tool("find", DESCRIPTION, PARAMETERS, execute)


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    root = resolve_directory(args.get("path"), ctx.cwd,
                             "find searches directories; give the directory that holds "
                             "the file.")
    limit = parse_limit(args.get("limit"), DEFAULT_LIMIT)
    matches = glob_matcher(args["pattern"])
    results = []
    # walk() yields in sorted order and lazily, so stopping at the limit both saves the
    # rest of the walk and makes the first `limit` results the same on every call.
    for entry in walk(root, ctx.abort):
        if matches(entry.rel):
            # The "/" tells the model which results are directories without another call.
            results.append(entry.rel + "/" if entry.is_dir else entry.rel)
            if len(results) >= limit:
                break
    if not results:
        return text_result(f"No files found matching {args['pattern']}")

    notices, details = [], {}
    if len(results) >= limit:
        notices.append(f"Result limit reached ({limit}). Use limit={limit * 2} for "
                       f"more, or refine the pattern")
        details["resultLimitReached"] = limit
    return text_result(*cap_listing(results, notices, details))
