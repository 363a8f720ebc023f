"""Searching every session: `miniagent sessions search QUERY`, and the REPL's /search.

    $ miniagent sessions search x509: certificate
    0f8e3a1c  2 d ago  the deploy fails with a TLS error
      toolResult  …curl: (60) SSL **certificate** problem: **x509**: unable to get local…
      continue: miniagent --session ~/.miniagent/sessions/--home-u-proj--/2026-…_0f8e.jsonl
      fork:     miniagent --fork ~/.miniagent/sessions/--home-u-proj--/2026-…_0f8e.jsonl:2d5d89c5

**The query is words, not syntax.** FTS5 has a query language (AND, OR, NOT, NEAR,
"phrases", column:filters, prefix*), and a user typing `x509: certificate` or `fix(auth)`
should not have to know it. So every space-separated piece of the query becomes a quoted
FTS5 phrase, and the phrases are joined with spaces, which FTS5 reads as AND:

    x509: certificate      ->  "x509:" "certificate"   both words, anywhere in the text
    NOT title:draft        ->  "NOT" "title:draft"     the word "not", and "title" then "draft"
    foo.bar                ->  "foo.bar"               foo then bar, side by side
    ::  -                  ->  (no words: refused)

Inside a phrase FTS5 splits the text with the same tokenizer as the index, so the
punctuation falls away and what remains must match whole words: `cert` does not find
`certificate`. A piece without a letter or digit would match everything and is dropped.

The scope is this project's sessions (`--all`: every project; `--path DIR`: pi's own
session files under DIR as well, for this search). The best matches come first (the
index's bm25 ranking), each with the two commands that continue from it.

Without the index (no FTS5 in this Python's SQLite, or an index that cannot be written)
the same words are looked for by reading every file in scope, newest first, after a
one-line note. Slower, same answers.

Left out: the index itself (search_index.py), ranking in the fallback (it has none).
"""

import os
import re
import shlex
import sys
import unicodedata
from dataclasses import replace
from typing import List, Optional, Sequence, Tuple

from ..files.home import index_path, miniagent_home
from ..modes.output import ArgumentParser, describe_age, print_json, say, usage_error
from .search_index import (MARK_END, MARK_START, SNIPPET_WORDS, IndexUnavailable, Match, lookup, rebuild,
                           searchable_text)
from ..errors import SessionError
from ..session.store import STORE, ListingFacts, project_dirs, session_dir_for, unique
from ..modes.terminal import Screen, for_terminal

# A word as unicode61 (with tokenchars '_') sees one, near enough: letters, digits, _ and
# the combining accents that may follow a letter ("e\u0301" is one word, as "é" is).
WORD = re.compile(r"[\w\u0300-\u036f]+")
NO_WORDS = "the query has no words to look for (letters, digits or _)"
SCAN_NOTE = "; searched the session files one by one instead"


# --- The query --------------------------------------------------------------------------


def query_phrases(query: str) -> List[str]:
    """The pieces of a query that hold a word.

    Example: "x509: certificate ::" -> ["x509:", "certificate"]
    """
    return [piece for piece in query.split() if WORD.search(piece)]


def fts_query(phrases: List[str]) -> str:
    """Example: ["x509:", "certificate"] -> '"x509:" "certificate"' (a " inside is doubled)."""
    return " ".join('"' + phrase.replace('"', '""') + '"' for phrase in phrases)


# --- Where to look ----------------------------------------------------------------------


def scope_paths(cwd: str, all_projects: bool, extra_paths: Sequence[str], home: str) -> List[str]:
    """The session files a search covers: this project's (or every project's), and
    every *.jsonl file under each extra path."""
    root = os.path.join(home, "sessions")
    folders = project_dirs(root) if all_projects else [session_dir_for(cwd, base_dir=root)]
    for extra in extra_paths:
        folders += sorted(folder for folder, _, _ in os.walk(extra))
    return STORE.session_paths(unique(folders))


def search_sessions(query: str, cwd: str, all_projects: bool = False, limit: int = 20,
                    extra_paths: Sequence[str] = (), home: Optional[str] = None
                    ) -> Tuple[List[Match], List[str]]:
    """The best `limit` matches of `query`, and notes for the user (one line each).
    Every word must match; a query without words matches nothing."""
    phrases = query_phrases(query)
    home = str(home or miniagent_home())
    paths = scope_paths(os.path.abspath(cwd), all_projects, extra_paths, home)
    if not phrases or not paths:
        return [], []
    try:
        return lookup(fts_query(phrases), paths, limit, home)
    except IndexUnavailable as error:
        return scan(phrases, paths, limit), [str(error) + SCAN_NOTE]


# --- The fallback: reading the files ----------------------------------------------------


def scan(phrases: List[str], paths: List[str], limit: int) -> List[Match]:
    """What the index would find, by reading every file in scope (one line at a time);
    newest first."""
    wanted = [words_of(phrase) for phrase in phrases]
    matches = []
    for path in paths:
        try:
            streamed = STORE.stream(path)
            modified = os.path.getmtime(path)
        except (SessionError, OSError):
            continue  # as the index does: what is not a session is not searched
        header, facts, here = streamed.header, ListingFacts(), []
        for entry in facts.watch(streamed.entries):
            found = searchable_text(entry)
            snippet = found and scan_snippet(found[1], wanted)
            if snippet:
                here.append(Match(path, str(header["id"]), str(header.get("cwd") or ""),
                                  entry["id"], found[0], str(entry.get("timestamp") or ""),
                                  snippet, "", modified))
        label = facts.name or facts.first_message or ""  # known once the file is read
        matches.extend(replace(match, session_label=label) for match in here)
    matches.sort(key=lambda match: match.timestamp, reverse=True)
    return matches[:limit]


def fold(text: str) -> str:
    """Case and accents do not count, as in unicode61. Example: "Café" -> "cafe"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def words_of(text: str) -> List[str]:
    """Example: "Fix foo.bar, x509:" -> ["fix", "foo", "bar", "x509"]"""
    return WORD.findall(fold(text))


def scan_snippet(text: str, wanted: List[List[str]]) -> Optional[str]:
    """When every phrase of `wanted` is in `text` (its words side by side), the words
    around the first one, each occurrence marked as the index marks it; else None.

    Example: ("call foo.bar()", [["foo", "bar"]]) -> "call \\x02foo.bar\\x03()"
    """
    folded = fold(text)
    if not all(word in folded for phrase in wanted for word in phrase):
        return None  # a cheap look first: most texts hold none of the words
    spans = [(found.start(), found.end()) for found in WORD.finditer(text)]
    words = [fold(text[begin:end]) for begin, end in spans]
    occurrences = []  # (first word, last word) of each place a phrase is
    for phrase in wanted:
        size = len(phrase)
        places = [(at, at + size - 1) for at in range(len(words) - size + 1)
                  if words[at:at + size] == phrase]
        if not places:
            return None
        occurrences += places
    occurrences.sort()
    start = max(0, occurrences[0][0] - SNIPPET_WORDS // 3)  # a few words before, more after
    stop = min(len(spans), start + SNIPPET_WORDS)
    pieces, position = [], spans[start][0] if start else 0
    for first, last in occurrences:
        first, last = max(first, start), min(last, stop - 1)
        if first > last or spans[first][0] < position:
            continue  # outside the snippet, or inside the previous mark
        pieces += [text[position:spans[first][0]], MARK_START,
                   text[spans[first][0]:spans[last][1]], MARK_END]
        position = spans[last][1]
    more = stop < len(spans)
    pieces.append(text[position:spans[stop - 1][1] if more else len(text)])
    return ("…" if start else "") + "".join(pieces) + ("…" if more else "")


# --- Showing matches --------------------------------------------------------------------


def highlight(snippet: str, screen: Optional[Screen] = None) -> str:
    """The snippet on one line, each match in colour on a terminal, else between **.

    Example: "a \\x02cert\\x03\\n b" -> "a **cert** b"
    """
    parts = re.split(f"({MARK_START}|{MARK_END})", " ".join(snippet.split()))
    shown, inside = [], False
    for part in parts:
        if part in (MARK_START, MARK_END):
            inside = part == MARK_START
        elif inside and screen and screen.colour:
            shown.append(screen.style(for_terminal(part), "yellow"))
        elif inside:
            shown.append(f"**{for_terminal(part)}**")
        else:
            shown.append(for_terminal(part))
    return "".join(shown)


def format_match(match: Match, screen: Optional[Screen] = None) -> str:
    """One match as four lines: the session, the snippet, and the commands to go on."""
    label = " ".join(match.session_label.split())[:60] or "(no prompt)"
    session = shlex.quote(match.file)
    fork = shlex.quote(f"{match.file}:{match.entry_id}")
    dim = (lambda text: screen.style(text, "dim")) if screen else str
    return (f"{match.session_id[:8]}  {describe_age(match.modified)}  {for_terminal(label)}\n"
            f"  {match.role:<10}  {highlight(match.snippet, screen)}\n"
            f"  {dim('continue:')} miniagent --session {session}\n"
            f"  {dim('fork:    ')} miniagent --fork {fork}")


def match_json(match: Match) -> dict:
    return {"file": match.file, "sessionId": match.session_id, "cwd": match.cwd,
            "entryId": match.entry_id, "role": match.role, "timestamp": match.timestamp,
            "snippet": highlight(match.snippet)}


# --- The subcommands --------------------------------------------------------------------


def main(argv: List[str]) -> int:
    """`miniagent sessions search QUERY [--all] [--limit N] [--json] [--path DIR] [--cwd DIR]`.
    Exit status 0 with matches, 1 without (as grep), 2 for a usage problem."""
    parser = ArgumentParser(prog="miniagent sessions search",
                                     description="Find sessions by the words of their messages.")
    parser.add_argument("query", nargs="+", help="words that must all occur (not FTS syntax)")
    parser.add_argument("--all", action="store_true", help="every project, not just this one")
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="at most N matches (20)")
    parser.add_argument("--json", action="store_true", help="one JSON list")
    parser.add_argument("--path", action="append", default=[], metavar="DIR",
                        help="search pi's session files under DIR too (repeatable)")
    parser.add_argument("--cwd", metavar="DIR", help="the project (default: here)")
    args = parser.parse_args(argv)
    query = " ".join(args.query)
    if args.limit < 1:
        return usage_error("--limit must be 1 or more")
    if not query_phrases(query):
        return usage_error(NO_WORDS)
    for extra in args.path:
        if not os.path.isdir(extra):
            return usage_error(f"--path {extra}: no such directory")
    cwd = os.path.abspath(args.cwd or os.getcwd())
    matches, notes = search_sessions(query, cwd, args.all, args.limit,
                                     [os.path.abspath(extra) for extra in args.path])
    for note in notes:
        say(f"miniagent: {note}")
    if args.json:
        print_json([match_json(match) for match in matches])
    elif matches:
        screen = Screen(sys.stdout)
        print("\n\n".join(format_match(match, screen) for match in matches))
    else:
        where = "in any project" if args.all else f"for {cwd} (--all searches every project)"
        say(f"miniagent: no session matches {query!r} {where}")
    return 0 if matches else 1


def reindex_main(argv: List[str]) -> int:
    """`miniagent sessions reindex`: rebuild the search index from every project's files."""
    parser = ArgumentParser(prog="miniagent sessions reindex",
                                     description="Rebuild the search index from the session files.")
    parser.parse_args(argv)
    home = str(miniagent_home())
    paths = STORE.session_paths(project_dirs(os.path.join(home, "sessions")))
    try:
        counts = rebuild(paths, home)
    except IndexUnavailable as error:
        say(f"miniagent: {error}; search will read the session files instead")
        return 1
    print(f"indexed {counts['entries']} entries of {counts['sessions']} sessions "
          f"into {index_path(home)}")
    return 0
