"""`miniagent sessions search`: words as words, all of them, best first, shown with the
commands that continue; the same answers from the index and from the plain scan."""

import io
import json

import pytest

from helpers import FIXTURES
from miniagent.subcommands import search, search_index
from miniagent.session.tree import Session
from miniagent.modes.terminal import Screen

CWD = "/work/proj"


@pytest.fixture(params=["index", "scan"])
def way(request, monkeypatch):
    """Every query test runs twice: through the index, and by scanning the files."""
    if request.param == "scan":
        monkeypatch.setattr(search_index, "fts5_available", lambda: False)
    return request.param


def session_saying(*prompts, cwd=CWD, name=None):
    """A written session: each prompt answered by "ok". Returns (session, prompt ids)."""
    session = Session.create(cwd)
    ids = []
    for prompt in prompts:
        ids.append(session.append_message(
            {"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": 1}))
        session.append_message({"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                                "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 2})
    if name:
        session.append_session_info(name)
    return session, ids


def texts(query, **kwargs):
    """The highlighted snippets of the matches."""
    matches, _ = search.search_sessions(query, CWD, **kwargs)
    return [search.highlight(match.snippet) for match in matches]


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_fts_syntax_in_a_query_is_only_words(way):
    session_saying("x509: certificate signed by unknown authority",
                   "fix(auth) NOT working -v OR title:draft \"quoted\" star* NEAR(a b)")
    assert texts("x509: certificate") == ["**x509**: **certificate** signed by unknown authority"]
    assert texts('fix(auth) NOT -v OR title:draft "quoted" star* NEAR(a') == [
        '**fix(auth**) **NOT** working -**v** **OR** **title:draft** "**quoted**" '
        '**star*** **NEAR(a** b)']  # a piece of several words is marked as one


def test_every_word_must_match_as_a_whole_word(way):
    session_saying("the certificate expired", "my_var is unset")
    assert texts("cert") == []
    assert texts("certificate banana") == []
    assert texts("CERTIFICATE Expired") == ["the **certificate** **expired**"]
    assert texts("my") == []  # `_` joins words: my_var is one word
    assert texts("my_var") == ["**my_var** is unset"]


def test_accents_and_joined_pieces_match_as_the_index_reads_them(way):
    session_saying("le café est fermé", "call foo.bar() then bar.foo")
    assert texts("cafe FERME") == ["le **café** est **fermé**"]
    # a piece like foo.bar is its words side by side, in that order
    assert texts("foo.bar") == ["call **foo.bar**() then bar.foo"]
    assert texts("bar.baz") == []


def test_the_best_matches_come_first():
    session_saying("one flaky thing among many other words that say something else entirely")
    session_saying("a flaky test, a flaky build and a flaky deploy")
    session_saying("flaky once more, with other words that say something else entirely")
    # bm25: more of the word, in fewer words, ranks higher
    assert texts("flaky")[0] == "a **flaky** test, a **flaky** build and a **flaky** deploy"


def test_limit_keeps_the_first_matches(way):
    for number in range(5):
        session_saying(f"flaky run {number}")
    assert len(texts("flaky")) == 5
    assert len(texts("flaky", limit=2)) == 2


def test_the_default_scope_is_this_project(way):
    session_saying("walrus here")
    other, _ = session_saying("walrus there", cwd="/work/other")
    assert texts("walrus") == ["**walrus** here"]
    assert sorted(texts("walrus", all_projects=True)) == ["**walrus** here", "**walrus** there"]
    assert [m.file for m in search.search_sessions("walrus", "/work/other")[0]] == [other.path]


def test_path_adds_pi_files_for_one_search(way):
    pi_dir = str(FIXTURES / "pi-sessions")
    assert texts("createa") == []
    assert len(texts("createa", extra_paths=[pi_dir])) == 1
    assert texts("createa") == []


def test_the_cli_shows_the_session_the_snippet_and_the_commands(way, capsys):
    session, ids = session_saying("deploy fails on staging", "thanks", name="staging deploy")
    assert search.main(["staging", "--cwd", CWD]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(session.id[:8] + "  just now  staging deploy")
    assert lines[1] == "  user        deploy fails on **staging**"
    assert lines[2] == f"  continue: miniagent --session {session.path}"
    assert lines[3] == f"  fork:     miniagent --fork {session.path}:{ids[0]}"


def test_the_cli_gives_json(way, capsys):
    session, ids = session_saying("deploy fails on staging")
    assert search.main(["staging", "--cwd", CWD, "--json"]) == 0
    [match] = json.loads(capsys.readouterr().out)
    assert match == {"file": session.path, "sessionId": session.id, "cwd": CWD,
                     "entryId": ids[0], "role": "user",
                     "timestamp": session.get_entry(ids[0])["timestamp"],
                     "snippet": "deploy fails on **staging**"}


def test_the_cli_says_when_nothing_matches_and_refuses_a_query_without_words(capsys):
    session_saying("hello")
    assert search.main(["penguin", "--cwd", CWD]) == 1
    assert capsys.readouterr().err == (f"miniagent: no session matches 'penguin' for {CWD} "
                                       "(--all searches every project)\n")
    assert search.main([":: --", "--cwd", CWD]) == 2
    assert capsys.readouterr().err == f"miniagent: {search.NO_WORDS}\n"
    assert search.main(["x", "--limit", "0"]) == 2
    assert search.main(["x", "--path", "/no/such/dir"]) == 2
    assert "--path /no/such/dir: no such directory" in capsys.readouterr().err


def test_the_fallback_note_goes_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(search_index, "fts5_available", lambda: False)
    session_saying("hello world")
    assert search.main(["hello", "--cwd", CWD, "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 1
    assert captured.err == ("miniagent: this Python's SQLite has no full-text search (FTS5); "
                            "searched the session files one by one instead\n")


def test_a_match_is_coloured_on_a_terminal_unless_no_color():
    snippet = "a \x02match\x03 with \x1b]52;c;evil\x07 codes\nand lines"
    coloured = search.highlight(snippet, Screen(Tty(), env={"TERM": "xterm"}))
    assert coloured == "a \x1b[33mmatch\x1b[0m with \u241b]52;c;evil\u2407 codes and lines"
    plain = search.highlight(snippet, Screen(Tty(), env={"TERM": "xterm", "NO_COLOR": "1"}))
    assert plain == "a **match** with \u241b]52;c;evil\u2407 codes and lines"
    assert search.highlight(snippet, Screen(io.StringIO(), env={})) == plain


def test_query_building():
    assert search.query_phrases("x509: certificate :: -") == ["x509:", "certificate"]
    assert search.fts_query(['say "hi"', "x"]) == '"say ""hi""" "x"'
