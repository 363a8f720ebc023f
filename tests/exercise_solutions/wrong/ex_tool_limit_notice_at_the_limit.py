"""A wrong solution of EXERCISES.md step 4 (ex_tool): the limit notice shown whenever the
directory holds limit entries or more, even when all of them were listed.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/tools/ls.py"
CLASS = None


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    root = resolve_directory(args.get("path"), ctx.cwd, "Use read to see a file.")
    limit = parse_limit(args.get("limit"), DEFAULT_LIMIT)
    try:
        names = sorted(os.listdir(root), key=str.lower)
    except OSError as exc:
        raise ToolError(f"Cannot read directory {root}: {exc.strerror or exc}") from exc
    entries = []
    for name in names[:limit]:
        path = os.path.join(root, name)
        mode = entry_mode(path)
        if mode is not None:
            entries.append(name + "/" if stat.S_ISDIR(mode) else name)
    if not entries:
        return text_result("(empty directory)")
    notices, details = [], {}
    if len(names) >= limit:
        notices.append(f"Entry limit reached ({limit}). Use limit={limit * 2} for more")
        details["entryLimitReached"] = limit
    return text_result(*cap_listing(entries, notices, details))
