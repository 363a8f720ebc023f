"""The session commands of the REPL: look at the session, move around in it, leave it.

A session is a tree of entries in one file (session/tree.py); the harness knows how to
compact it, start a new one, continue another, fork one and move within its tree.
These commands are the terminal's handles on that, each a short function that asks
what it needs and prints one outcome:

    /session           where the file is, its id and name, what it holds and cost
    /name NAME         give it a name (a session_info entry: listings show it)
    /compact [FOCUS]   summarize the older part now (FOCUS: what the summary must keep)
    /new               a new, empty session
    /resume [QUERY]    this project's sessions (or those whose messages hold every
                       word of QUERY), to pick one: continue it
    /fork              this branch's prompts, to pick one: a new session that ends
                       just before it, the prompt back in the input
    /tree [ID]         the branches with entry ids, to pick the entry to move to;
                       /tree ID moves there
    /export [FILE]     FILE.md a Markdown transcript, FILE.html (or no FILE: beside the
                       session file) a web page of the whole tree
    /search QUERY      the sessions' messages holding every word, best first

The work that asks a model (/compact, the branch summary of /tree) runs through
`repl.run_work`, so Ctrl-C stops it. Every function takes the REPL and the rest of
the line, as slash.py's table expects. A list to pick from is a picker where the
screen has a live area (tui/picker.py: type to filter, arrows, Enter, Esc), and
numbered rows and a typed number on TERM=dumb (`choose`); /tree there prints the tree.

Left out: deleting sessions, labelling entries from the terminal, a full-screen tree.
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from ..output import describe_age
from ...errors import CompactionError, ExportError, SessionError
from ...subcommands.export import export_markdown, render_html, write_output
from ...core.messages import text_of
from ..render import compacted_text, cost_text
from ...subcommands.search import NO_WORDS, format_match, highlight, query_phrases, search_sessions
from ...session.tree import TreeNode
from ...session.stats import session_totals
from ..attach import typed_text
from ..picker import choose_number, label, numbered, recent_sessions, session_row


# --- Looking at the session --------------------------------------------------------------

def show_session(repl: Any, argument: str) -> None:
    session, model = repl.harness.session, repl.agent.model
    stats, totals = session_totals(session)
    if not session.persist:
        where = "none: kept in memory only (--no-session)"
    elif session.path is None:
        where = f"{session.file_path} (written with the first reply)"
    else:
        where = session.path
    calls = sum(stats.tool_calls.values())
    repl.note("\n".join([
        f"file      {where}", f"id        {session.id}",
        f"name      {session.name or '(none: /name NAME sets one)'}",
        f"messages  {stats.user_prompts} prompts · {stats.assistant_turns} replies · "
        f"{calls} tool calls · {stats.tool_errors} failed",
        f"tokens    {int(totals['input']):,} in · {int(totals['output']):,} out · "
        f"{int(totals['cacheRead']):,} cached · {int(totals['cacheWrite']):,} cache written",
        f"cost      {cost_text(totals['cost'], model)}"]))


def name_session(repl: Any, argument: str) -> None:
    session = repl.harness.session
    if not argument:
        repl.note(f"name: {session.name or '(none)'}; /name NAME sets it")
        return
    session.append_session_info(argument)
    repl.note(f"session named: {argument}")


def compact_now(repl: Any, argument: str) -> None:
    """/compact [FOCUS]: the harness's compaction, now, with optional instructions."""
    try:
        result = repl.run_work(lambda abort: repl.harness.compact(argument or None, abort),
                               "compacting the conversation")
    except CompactionError as error:
        repl.note(str(error))
        return
    repl.note(compacted_text(result.tokens_before))


# --- Leaving it for another ---------------------------------------------------------------

def start_new_session(repl: Any, argument: str) -> None:
    try:
        repl.harness.new_session()
    except SessionError as error:  # its folder cannot be written: this session stays
        repl.note(str(error))
        return
    repl.note("new session: its file appears with the first reply")


def resume_session(repl: Any, argument: str) -> None:
    """/resume [QUERY]: pick one of this project's sessions (those matching QUERY)."""
    session = repl.harness.session
    if not session.persist:
        repl.note("sessions are off in this run (--no-session): there is nothing to resume")
        return
    if argument:
        paths, rows = matching_sessions(repl, argument)
    else:
        found = recent_sessions(repl.agent.cwd, os.path.dirname(session.file_path),
                                skip=session.path)
        paths, rows = [info.path for info in found], [session_row(info) for info in found]
    if not paths:
        repl.note(f"no other session matches {argument!r}" if argument else
                  "no other session in this project yet")
        return
    chosen = choose(repl, rows, "Resume which session?")
    if chosen is None:
        return
    try:
        repl.harness.switch_session(paths[chosen])
    except SessionError as error:
        repl.note(str(error))
        return
    repl.note(f"resumed {paths[chosen]}")
    repl.show_last_exchange()


def matching_sessions(repl: Any, query: str) -> Tuple[List[str], List[str]]:
    """The sessions whose messages match `query`, best first: their paths, and a row
    each (its age, its name or first message, the words found)."""
    paths: List[str] = []
    rows = []
    for match in find(repl, query):
        if match.file not in paths and match.file != repl.harness.session.path:
            paths.append(match.file)
            rows.append(f"{describe_age(match.modified):>10}  {label(match.session_label)}"
                        f"  · {highlight(match.snippet)}")
    return paths, rows


def fork_session(repl: Any, argument: str) -> None:
    """/fork: a new session from before one of this branch's prompts, as pi's /fork."""
    prompts = [entry for entry in repl.harness.session.get_branch()
               if entry["type"] == "message" and entry["message"].get("role") == "user"]
    if not prompts:
        repl.note("nothing to fork yet: the session has no prompt")
        return
    chosen = choose(repl, [label(text_of(entry["message"])) for entry in prompts],
                    "Fork before which prompt?")
    if chosen is None:
        return
    try:
        repl.put_back(typed_text(repl.harness.fork(prompts[chosen]["id"])))
    except SessionError as error:  # an extension cancelled it (MoveCancelled)
        repl.note(str(error))
        return
    path = repl.harness.session.path or "its file appears with the first reply"
    repl.note(f"forked into a new session ({path}); the prompt is in the input line")


# --- The tree -------------------------------------------------------------------------------

def show_tree(repl: Any, argument: str) -> None:
    """/tree: the session's branches, to pick an entry from (where the screen has a live
    area; on TERM=dumb printed with their ids); /tree ID: move to that entry."""
    session = repl.harness.session
    if argument:
        go_to_entry(repl, argument)
    elif not session.entries:
        repl.note("the session is empty")
    elif not repl.screen.live_area:
        repl.note("\n".join(tree_lines(session.get_tree(), session.leaf_id)) +
                  "\n(/tree ID moves there)")
    else:
        rows = tree_rows(session.get_tree(), session.leaf_id)
        here = next((number for number, (entry_id, _) in enumerate(rows)
                     if entry_id == session.leaf_id), len(rows) - 1)
        chosen = choose(repl, [line for _, line in rows], "Go to which entry?", here)
        if chosen is not None:
            go_to_entry(repl, rows[chosen][0])


def tree_lines(roots: List[TreeNode], leaf_id: Optional[str]) -> List[str]:
    """The tree drawn with its entry ids; a chain stays at one depth, each fork indents.

    Example:
        2d5d89c5  user: fix the bug
        6a1f0c3e  assistant: The test fails because ...
        ├─ 0b7e9d21  user: try A
        │  88c1a4f0  assistant: A works.
        └─ 1f00ab3c  user: try B
           c3d02f0e  assistant: B works.  ← here
    """
    return [line for _, line in tree_rows(roots, leaf_id)]


def tree_rows(roots: List[TreeNode], leaf_id: Optional[str]) -> List[Tuple[str, str]]:
    """The tree_lines, each with the id of the entry it shows."""
    rows: List[Tuple[str, str]] = []
    draw(visible(roots, leaf_id), "", leaf_id, rows)
    return rows


def draw(nodes: List[TreeNode], prefix: str, leaf_id: Optional[str],
         rows: List[Tuple[str, str]]) -> None:
    for number, node in enumerate(nodes):
        fork, last = len(nodes) > 1, number == len(nodes) - 1
        branch = ("└─ " if last else "├─ ") if fork else ""
        rows.append((node.entry["id"], prefix + branch + describe_entry(node, leaf_id)))
        prefix_below = prefix + (("   " if last else "│  ") if fork else "")
        children = visible(node.children, leaf_id)
        while len(children) == 1:  # a loop, not recursion: a chain can be thousands long
            rows.append((children[0].entry["id"],
                         prefix_below + describe_entry(children[0], leaf_id)))
            children = visible(children[0].children, leaf_id)
        draw(children, prefix_below, leaf_id, rows)


def visible(nodes: List[TreeNode], leaf_id: Optional[str]) -> List[TreeNode]:
    """The nodes worth a line; a hidden node (a tool result, a model change) is replaced
    by its visible descendants."""
    shown: List[TreeNode] = []
    for node in nodes:
        if node.entry["id"] == leaf_id or is_shown(node.entry):
            shown.append(node)
        else:
            shown += visible(node.children, leaf_id)
    return shown


def is_shown(entry: Dict[str, Any]) -> bool:
    if entry["type"] in ("compaction", "branch_summary", "custom_message"):
        return True
    message = entry.get("message") or {}
    role = message.get("role")
    if role == "assistant":
        return bool(text_of(message).strip())  # a reply of tool calls only: its results follow
    return role in ("user", "bashExecution")


def describe_entry(node: TreeNode, leaf_id: Optional[str]) -> str:
    entry, message = node.entry, node.entry.get("message") or {}
    if entry["type"] == "message" and message.get("role") == "bashExecution":
        what = "!" + str(message.get("command"))
    elif entry["type"] == "message":
        what = f"{message.get('role')}: {text_of(message)}"
    else:
        what = f"[{entry['type'].replace('_', ' ')}] {entry.get('summary', '')}"
    marks = f" [{node.label}]" if node.label else ""
    marks += "  ← here" if entry["id"] == leaf_id else ""
    return f"{entry['id']}  {label(what)}{marks}"


def go_to_entry(repl: Any, wanted: str) -> None:
    session = repl.harness.session
    found = [entry["id"] for entry in session.entries if entry["id"].startswith(wanted)]
    if len(found) != 1:
        repl.note(f"no entry {wanted}: /tree lists the ids" if not found else
                  f"{wanted} matches {len(found)} entries: give more of the id")
        return
    if found[0] == session.leaf_id:
        repl.note("already there")
        return
    answer = repl.ask("summarise the branch you leave? [y/N] ")
    if answer is None:
        return
    summarize = answer.lower() in ("y", "yes")
    try:
        text = repl.run_work(lambda abort: repl.harness.navigate(found[0], summarize),
                             "summarising the branch you leave" if summarize else None)
    except (ValueError, CompactionError, SessionError) as error:  # SessionError: cancelled
        repl.note(str(error))
        return
    if text is None:
        repl.note(f"moved to {found[0]}")
    else:
        repl.put_back(typed_text(text))
        repl.note(f"moved to just before prompt {found[0]}; its text is in the input line")


# --- Export and search ----------------------------------------------------------------------

def export_session(repl: Any, argument: str) -> None:
    """/export [FILE]: .md a transcript of this branch, .html (the default) a web page."""
    session = repl.harness.session
    target = os.path.join(repl.agent.cwd, os.path.expanduser(argument)) if argument else None
    try:
        if target is None or target.endswith(".html"):
            # From memory, not from the file: a session not written yet exports too.
            beside = session.file_path or os.path.join(repl.agent.cwd, f"{session.id}.jsonl")
            path = write_output(render_html(session.header, session.entries), target, beside,
                                ".html")
        elif target.endswith(".md"):
            path = export_markdown(session.get_branch(), target)
        else:
            repl.note("the file's extension says the format: .md (Markdown) or .html (a web page)")
            return
    except ExportError as error:
        repl.note(str(error))
        return
    repl.note(f"wrote {path}")


def search(repl: Any, argument: str) -> None:
    """/search QUERY: as `miniagent sessions search QUERY`."""
    matches = find(repl, argument)
    if matches:
        repl.view.note("\n\n".join(format_match(match, repl.terminal) for match in matches))
    elif query_phrases(argument):
        repl.note(f"no session matches {argument!r} for {repl.agent.cwd}")


def find(repl: Any, query: str) -> list:
    """The matches of `query` in this project's sessions, after any note of the search's."""
    if not query_phrases(query):
        repl.note(f"{NO_WORDS}: /search WORDS" if query else "usage: /search WORDS")
        return []
    matches, notes = search_sessions(query, repl.agent.cwd)
    for line in notes:
        repl.note(line, "dim")
    return matches


# --- Choosing from a list -------------------------------------------------------------------

def choose(repl: Any, rows: List[str], question: str, selected: int = 0) -> Optional[int]:
    """The index of one of `rows`: picked in a picker (tui/picker.py) where the screen has
    a live area; else (TERM=dumb) listed with numbers and a number asked until given.
    None: cancelled (Esc, or an empty answer)."""
    if repl.screen.live_area:
        return repl.screen.pick(question, rows, selected)
    repl.view.note(numbered(rows))
    return choose_number(lambda text: repl.ask(text) or "", len(rows), question, repl.note)
