"""A second correct solution of EXERCISES.md step 4 (ex_tool): list one entry past the
limit and let that extra entry say that the limit was reached. Spliced into a copy of
the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/tools/ls.py"
CLASS = None


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    root = resolve_directory(args.get("path"), ctx.cwd, "Use read to see a file.")
    limit = parse_limit(args.get("limit"), DEFAULT_LIMIT)
    try:
        names = os.listdir(root)
    except OSError as exc:
        raise ToolError(f"Cannot read directory {root}: {exc.strerror or exc}") from exc
    names.sort(key=lambda name: name.lower())  # "Makefile" among the m's
    listed = []
    for name in names:
        if len(listed) > limit:
            break
        mode = entry_mode(os.path.join(root, name))
        if mode is not None:  # None: gone since listdir
            listed.append(f"{name}/" if stat.S_ISDIR(mode) else name)
    if not listed:
        return text_result("(empty directory)")
    notices, details = [], {}
    if len(listed) > limit:
        notices.append(f"Entry limit reached ({limit}). Use limit={limit * 2} for more")
        details["entryLimitReached"] = limit
    return text_result(*cap_listing(listed[:limit], notices, details))
