"""The search index: found as written, caught up without a reindex, rebuilt when lost or
damaged, replaced by a scan when it cannot be written, and never touching a session file."""

import hashlib
import json
import os
import sqlite3
from contextlib import closing

import pytest

from helpers import FIXTURES, peak_memory, run_cli, write_big_session, write_script
from miniagent.subcommands import search, search_index
from miniagent.session.tree import Session, fork_session, parse_fork_argument
from miniagent.session.store import JSONLStore

PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"
CWD = "/work/proj"


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(text, *calls):
    return {"role": "assistant", "content": [{"type": "text", "text": text}, *calls],
            "provider": "p", "model": "m", "stopReason": "toolUse" if calls else "stop",
            "timestamp": 2}


def tool_result(text):
    return {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
            "content": [{"type": "text", "text": text}], "isError": True, "timestamp": 3}


def certificate_session():
    """A session as a run writes it: prompt, tool call, tool result, answer. Returns the
    session and its entry ids by role."""
    session = Session.create(CWD)
    ids = {"user": session.append_message(user("the deploy fails with a TLS error"))}
    ids["call"] = session.append_message(assistant("Let me try.", {
        "type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "curl https://x"}}))
    ids["toolResult"] = session.append_message(tool_result(
        "curl: (60) SSL certificate problem: x509: unable to get local issuer"))
    ids["assistant"] = session.append_message(assistant("Install the ca-certificates package."))
    return session, ids


def found(query, **kwargs):
    """(file, entry id, role) of each match, and the notes."""
    matches, notes = search.search_sessions(query, CWD, **kwargs)
    return [(match.file, match.entry_id, match.role) for match in matches], notes


def digest(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def test_a_session_is_found_by_its_prompt_a_tool_result_and_its_answer(home):
    session, ids = certificate_session()
    assert found("deploy") == ([(session.path, ids["user"], "user")], [])
    assert found("issuer") == ([(session.path, ids["toolResult"], "toolResult")], [])
    assert found("ca-certificates") == ([(session.path, ids["assistant"], "assistant")], [])
    assert found("curl https") == ([(session.path, ids["call"], "assistant")], [])
    assert (home / "sessions.sqlite").is_file()


def test_a_run_writes_its_session_with_the_index_unwritable_and_search_finds_it(home, tmp_path):
    (home / "sessions.sqlite").mkdir(parents=True)
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": "echo $((6 * 7))_apples"}}]},
        {"content": [{"type": "text", "text": "The server rejected the handshake."}]}])
    result = run_cli("--provider", "scripted", "--script", script, "-p", "debug", "the", "walrus",
                     cwd=str(tmp_path), env={"MINIAGENT_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    [path] = [str(p) for p in (home / "sessions").glob("*/*.jsonl")]  # not a store beside it
    by_role = {entry["message"]["role"]: entry["id"]
               for entry in JSONLStore().load(path).entries if entry["type"] == "message"}
    scanned, notes = search.search_sessions("42_apples", str(tmp_path))
    assert [(m.file, m.entry_id, m.role) for m in scanned] == \
        [(path, by_role["toolResult"], "toolResult")]
    assert "could not be updated" in notes[0]
    (home / "sessions.sqlite").rmdir()
    for word, role in (("walrus", "user"), ("42_apples", "toolResult"), ("rejected", "assistant")):
        matches, notes = search.search_sessions(word, str(tmp_path))
        assert ([(m.file, m.entry_id, m.role) for m in matches], notes) == \
            ([(path, by_role[role], role)], [])


def test_a_session_appended_later_is_found_reading_only_the_new_lines(home):
    session, _ = certificate_session()
    assert found("rollback") == ([], [])
    new_id = session.append_message(user("now do the rollback"))

    seen, read = [], []

    class Recording(JSONLStore):
        def read_since(self, path, cursor=None):
            tail = super().read_since(path, cursor)
            seen.append(tail)
            tail.entries = recorded(tail.entries)  # read as the index iterates them
            return tail

    def recorded(entries):
        for entry in entries:
            read.append(entry["id"])
            yield entry

    matches, _ = search_index.lookup('"rollback"', [session.path], 20, store=Recording())
    assert [(match.file, match.entry_id) for match in matches] == [(session.path, new_id)]
    assert read == [new_id] and len(seen) == 1
    assert not seen[0].restarted
    assert json.loads(seen[0].cursor)["offset"] == os.path.getsize(session.path)
    # Nothing new: the store does not even open the file.
    seen.clear(), read.clear()
    search_index.lookup('"rollback"', [session.path], 20, store=Recording())
    assert seen[0].header is None and read == []


def test_a_deleted_index_is_rebuilt_and_answers_the_same(home):
    certificate_session()
    before = found("certificate")
    os.remove(home / "sessions.sqlite")
    assert found("certificate") == before


@pytest.mark.parametrize("damage", ["garbage", "cut in half"])
def test_a_corrupt_index_is_rebuilt_and_answers_the_same(home, damage):
    certificate_session()
    before, _ = found("certificate")
    index = home / "sessions.sqlite"
    data = index.read_bytes()
    index.write_bytes(b"not a database at all " * 200 if damage == "garbage" else data[:len(data) // 2])
    after, notes = found("certificate")
    assert after == before
    assert notes == [f"the search index {index} was damaged; it has been rebuilt"]
    assert found("certificate") == (before, [])  # and it is a good index again


def test_an_index_path_that_is_a_directory_means_a_scan_with_a_note(home):
    (home / "sessions.sqlite").mkdir(parents=True)
    session, ids = certificate_session()  # a run still writes its session
    assert os.path.isfile(session.path)
    matches, notes = found("x509 certificate")
    assert matches == [(session.path, ids["toolResult"], "toolResult")]
    assert len(notes) == 1
    assert notes[0].startswith(f"the search index {home / 'sessions.sqlite'} could not be updated (")
    assert notes[0].endswith("; searched the session files one by one instead")


def test_without_fts5_search_scans_the_files_with_a_note(home, monkeypatch):
    session, ids = certificate_session()
    indexed, _ = found("certificate")
    monkeypatch.setattr(search_index, "fts5_available", lambda: False)
    scanned, notes = found("certificate")
    assert sorted(scanned) == sorted(indexed)
    assert notes == ["this Python's SQLite has no full-text search (FTS5); "
                     "searched the session files one by one instead"]


def test_session_files_are_byte_identical_after_indexing(home, tmp_path):
    session, _ = certificate_session()
    pi_copy = tmp_path / "pi" / PI_V1.name
    pi_copy.parent.mkdir()
    pi_copy.write_bytes(PI_V1.read_bytes())
    before = [digest(session.path), digest(pi_copy), os.path.getmtime(session.path)]
    found("certificate", extra_paths=[str(tmp_path / "pi")])
    assert search.reindex_main([]) == 0
    assert [digest(session.path), digest(pi_copy), os.path.getmtime(session.path)] == before


def test_a_pi_v1_file_is_found_with_the_entry_id_the_library_gives_it(home):
    matches, _ = found("createa implementation", extra_paths=[str(PI_V1.parent)])
    assert matches == [(str(PI_V1), "00000021", "user")]  # line 21 of the file
    assert parse_fork_argument(f"{PI_V1}:00000021") == (str(PI_V1), "00000021")
    fork = fork_session(str(PI_V1), "00000021", cwd=CWD)
    assert fork.entries[-1]["message"]["content"][0]["text"].startswith("i would only want e2e")


def test_a_rewritten_or_shrunk_file_is_indexed_again_whole(home):
    session, _ = certificate_session()
    path = session.path
    with open(path) as file:
        header = file.readline()
    found("certificate")
    # The same header, other entries, shorter: the old words must go.
    entry = {"type": "message", "id": "aaaa0001", "parentId": None, "timestamp": "t",
             "message": user("about penguins")}
    with open(path, "w") as file:
        file.write(header + json.dumps(entry) + "\n")
    assert found("certificate") == ([], [])
    assert found("penguins")[0] == [(path, "aaaa0001", "user")]
    # Longer than before, but a byte before the old end changed: read again whole.
    with open(path, "w") as file:
        file.write(header + json.dumps(dict(entry, message=user("about walruses"))) + "\n"
                   + json.dumps(dict(entry, id="aaaa0002", message=user("and seals"))) + "\n")
    assert found("penguins") == ([], [])
    assert [match[1] for match in found("walruses")[0] + found("seals")[0]] == ["aaaa0001", "aaaa0002"]


def test_a_removed_file_leaves_the_index(home):
    session, _ = certificate_session()
    other, _ = certificate_session()
    assert len(found("deploy")[0]) == 2
    os.remove(other.path)
    assert found("deploy")[0] == [(session.path, found("deploy")[0][0][1], "user")]
    with closing(sqlite3.connect(home / "sessions.sqlite")) as db:
        assert db.execute("SELECT path FROM files").fetchall() == [(session.path,)]


def test_a_torn_last_line_is_left_until_the_writer_finishes(home):
    session, _ = certificate_session()
    with open(session.path, "a") as file:
        file.write('{"type":"message","id":"torn","message":{"role":"user","content":"walrus')
    assert found("walrus") == ([], [])
    new_id = session.append_message(user("a walrus appears"))  # the library ends the torn line first
    assert found("walrus")[0] == [(session.path, new_id, "user")]


def test_reindex_rebuilds_from_scratch(home, capsys):
    session, _ = certificate_session()
    found("deploy")
    with closing(sqlite3.connect(home / "sessions.sqlite")) as db, db:
        db.execute("DELETE FROM entries")  # an index gone wrong in some way
    assert found("deploy") == ([], [])
    assert search.reindex_main([]) == 0
    assert capsys.readouterr().out == \
        f"indexed 4 entries of 1 sessions into {home / 'sessions.sqlite'}\n"
    assert found("deploy")[0][0][0] == session.path


def test_reindex_says_when_it_cannot_write_the_index(home, capsys):
    (home / "sessions.sqlite").mkdir(parents=True)
    assert search.reindex_main([]) == 1
    assert capsys.readouterr().err.startswith(
        f"miniagent: the search index {home / 'sessions.sqlite'} could not be updated (")


def test_tool_texts_are_cut_and_other_entries_are_not_indexed():
    long_result = {"type": "message", "id": "x", "message": tool_result("word " * 5000)}
    role, text = search_index.searchable_text(long_result)
    assert role == "toolResult" and len(text) == search_index.TOOL_TEXT_LIMIT
    assert search_index.searchable_text({"type": "model_change", "id": "y"}) is None
    assert search_index.searchable_text({"type": "message", "id": "z", "message": user("  ")}) is None


def test_a_lone_surrogate_in_a_session_pi_wrote_is_indexed_without_it(home):
    session = Session.create(CWD)
    entry_id = session.append_message(user("the walrus \ud83d sings"))
    session.append_message(assistant("ok", {"type": "toolCall", "id": "c1", "name": "bash",
                                            "arguments": {"command": "echo \udc80 seal"}}))
    assert found("walrus") == ([(session.path, entry_id, "user")], [])
    assert len(found("seal")[0]) == 1


def test_a_password_redacted_in_place_is_no_longer_found(home):
    session = Session.create(CWD)
    session.append_message(user("the database password is hunter2 for now"))
    session.append_message(assistant("Noted."))
    path = session.path
    assert len(found("hunter2")[0]) == 1
    # Redacted by hand in place: same inode, same size, and the mtime put back.
    before = os.stat(path)
    with open(path, "r+b") as file:
        data = file.read()
        file.seek(data.index(b"hunter2"))
        file.write(b"*******")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == \
        (before.st_size, before.st_mtime_ns, before.st_ino)
    assert found("hunter2") == ([], [])
    assert len(found("database")[0]) == 1  # indexed again from the top, once


def test_indexing_a_big_session_reads_it_a_line_at_a_time(home, tmp_path):
    folder = tmp_path / "dir"
    folder.mkdir()
    path = str(folder / "big.jsonl")
    longest = write_big_session(path, 1600)
    counts, peak = peak_memory(lambda: search_index.rebuild([path]))
    assert counts == {"sessions": 1, "entries": 1600}
    assert peak < 2 * longest + 256 * 1024  # SQLite's own memory is not Python's
    matches, _ = search_index.lookup('"brown fox"', [path], 5)
    assert len(matches) == 5 and matches[0].file == path
