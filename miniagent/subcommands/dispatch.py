"""Subcommands: looking at sessions (and MCP servers) without running a model.

    miniagent sessions [--all] [--json]      this directory's sessions, newest first
    miniagent sessions search QUERY          full-text search (search.py)
    miniagent sessions reindex               rebuild the search index
    miniagent stats SESSION... [--json]      prompts, turns, tool calls, tokens, cost
    miniagent export SESSION [-o OUT]        the session as an HTML page (export.py)
    miniagent script SESSION [-o SCRIPT]     the session as a replayable script
    miniagent mcp list|add|remove ...        MCP servers: check them, edit mcp.json
    miniagent eval SUITE | eval report DIR   run a suite of tasks, report (eval_command.py)

A SESSION is a file or a session id or id prefix, as `--session` takes it (ids.py); the
list shows each id by its shortest unique prefix.

They are recognised only as the first word of the command line (cli.py), read session
files (ours and pi's, every format version) and never modify them. None of them makes a
request, so none imports the HTTP library: `miniagent sessions` starts as fast as
`--version`. `mcp` is the one that edits a file and connects (mcp_command.py), and it
too loads the HTTP library only to list an HTTP server; `eval` runs the agent, each
trial in a process of its own (eval_command.py).

Left out: the session format itself (session/tree.py), the figures (session/stats.py), the page
(export.py), the script (script.py), the index (search.py) and MCP (mcp_command.py).
"""

import os
from typing import List

from ..modes.output import ArgumentParser, describe_age, print_json, say
from ..session.ids import resolve_session, short_ids
from ..session.tree import Session, list_sessions, session_dir_for
from ..errors import ExportError, SessionError
from ..session.stats import compute_stats, format_stats_text, stats_json
from ..modes.terminal import for_terminal


def run_subcommand(name: str, argv: List[str]) -> int:
    """Run `miniagent NAME ARGV...` and return its exit status."""
    if name == "sessions":
        return sessions_command(argv)
    if name == "export":
        return export_command(argv)
    if name == "script":
        from .script import main as script_main
        return script_main(argv)
    if name == "mcp":
        from .mcp_command import main as mcp_main
        return mcp_main(argv)
    if name == "eval":
        from .eval_command import main as eval_main
        return eval_main(argv)
    return stats_command(argv)


def sessions_command(argv: List[str]) -> int:
    if argv[:1] == ["search"]:  # imported here: search.py uses this file's helpers
        from .search import main as search_main
        return search_main(argv[1:])
    if argv[:1] == ["reindex"]:
        from .search import reindex_main
        return reindex_main(argv[1:])
    parser = ArgumentParser(prog="miniagent sessions",
                                     description="List sessions, newest first.")
    parser.add_argument("--all", action="store_true", help="every project, not just this one")
    parser.add_argument("--json", action="store_true", help="one JSON list")
    parser.add_argument("--cwd", metavar="DIR", help="the project (default: here)")
    parser.add_argument("--session-dir", metavar="DIR", help="where session files are")
    args = parser.parse_args(argv)
    cwd = os.path.abspath(args.cwd or os.getcwd())
    found = list_sessions(cwd, session_dir=args.session_dir, all_projects=args.all)
    if args.json:
        print_json([{"id": s.id, "file": s.path, "cwd": s.cwd, "modified": s.modified,
                     "entries": s.entries, "name": s.name, "firstMessage": s.first_message}
                    for s in found])
        return 0
    if not found:
        where = "anywhere" if args.all else f"for {cwd}"
        say(f"miniagent: no sessions {where} (folder: "
            f"{args.session_dir or session_dir_for(cwd)})")
        return 0
    shown = short_ids([info.id for info in found])
    width = max(len(short) for short in shown.values())
    for info in found:  # names and prompts come from files: shown, never obeyed
        label = for_terminal((info.name or info.first_message).replace("\n", " "))
        print(f"{for_terminal(shown[info.id]):<{width}}  {describe_age(info.modified):>10}  "
              f"{info.entries:>5} entries  {label[:60]}\n          {info.path}")
    return 0


def stats_command(argv: List[str]) -> int:
    parser = ArgumentParser(prog="miniagent stats",
                                     description="Figures of one or more session files.")
    parser.add_argument("sessions", nargs="+", metavar="SESSION", help="a file, an id or id prefix")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    try:
        paths = [resolve_session(value, os.getcwd()) for value in args.sessions]
    except SessionError as error:
        say(f"miniagent stats: {error}")
        return 1
    per_file, totals, errors = compute_stats(paths)
    for error in errors:
        say(f"miniagent: {error}")
    if args.json:
        print(stats_json(per_file, totals, errors))
    else:  # tool and model names come from the files: shown, never obeyed
        print(for_terminal(format_stats_text(per_file, totals)))
    return 1 if errors else 0


def export_command(argv: List[str]) -> int:
    """`miniagent export FILE [-o OUT]`: the session viewer's page (export.py), or with
    OUT ending in .md a Markdown transcript of the session's current branch."""
    from .export import export_html, export_markdown
    parser = ArgumentParser(
        prog="miniagent export",
        description="Write a session (miniagent's or pi's) as one self-contained HTML page.")
    parser.add_argument("session", metavar="SESSION",
                        help="a session file (.jsonl), an id or id prefix")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="where to write (default: beside FILE, .jsonl replaced by .html; "
                             "OUT.md: a Markdown transcript)")
    args = parser.parse_args(argv)
    try:
        session = resolve_session(args.session, os.getcwd())
        if args.output and args.output.endswith(".md"):
            branch = Session.open(session).get_branch()
            path = export_markdown(branch, args.output)
        else:
            path = export_html(session, args.output,
                               warn=lambda line: say(f"miniagent export: {line}"))
    except (ExportError, SessionError) as error:
        say(f"miniagent export: {error}")
        return 1
    print(path)
    return 0
