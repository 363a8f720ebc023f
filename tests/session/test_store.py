"""Where sessions live: folders, listings, lookups by id prefix, `-c`'s newest session."""

import os


from helpers import FIXTURES, peak_memory, write_big_session
from miniagent.errors import SessionError
from miniagent.session.tree import Session
from miniagent.session.store import (STORE, find_most_recent, find_sessions_by_prefix,
                                    list_sessions, session_dir_for)

PI_V3 = FIXTURES / "pi-run" / "pi-0.73.1" / "errors.session.jsonl"
PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"
HEADER = '{"type":"session","version":3,"id":"%s","timestamp":"2025-01-01T00:00:00Z","cwd":"/p"}\n'


def write(path, text, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return str(path)


def conversation(cwd, prompt, name=None):
    session = Session.create(cwd)
    session.append_message({"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": 1})
    session.append_message({"role": "assistant", "content": [], "provider": "p", "model": "m",
                            "stopReason": "stop", "timestamp": 2})
    if name:
        session.append_session_info(name)
    return session


def test_the_folder_is_named_after_the_cwd_as_pi_names_it(home):
    assert session_dir_for("/home/u/proj") == str(home / "sessions" / "--home-u-proj--")
    assert session_dir_for("C:\\work\\x", base_dir="/b") == "/b/--C--work-x--"


def test_a_listing_shows_this_projects_sessions_newest_first(home):
    older = conversation("/work/proj", "first question")
    newer = conversation("/work/proj", "second\nquestion", name="my name")
    conversation("/work/other", "elsewhere")
    os.utime(older.path, (1000, 1000))
    infos = list_sessions("/work/proj")
    assert [info.path for info in infos] == [newer.path, older.path]
    assert (infos[0].id, infos[0].cwd, infos[0].entries, infos[0].name, infos[0].first_message) == \
        (newer.id, "/work/proj", 3, "my name", "second question")
    assert infos[1].name == "" and infos[1].modified == 1000
    assert len(list_sessions(all_projects=True)) == 3


def test_a_listing_skips_bad_files_and_reads_pi_files(home, tmp_path):
    folder = tmp_path / "dir"
    write(folder / "bad.jsonl", "not a session\n")
    write(folder / "empty.jsonl", "")
    write(folder / "pi.jsonl", PI_V3.read_text(), mtime=2000)
    write(folder / "pi-v1.jsonl", PI_V1.read_text(), mtime=1000)  # entries without ids
    infos = list_sessions(session_dir=str(folder))
    assert [info.first_message[:30] for info in infos] == ["Explore error paths.",
                                                           "alright, read @packages/coding"]


def test_a_listing_of_a_big_session_reads_it_a_line_at_a_time(home, tmp_path):
    folder = tmp_path / "dir"
    folder.mkdir()
    longest = write_big_session(folder / "big.jsonl", 1600, name="named at the start")
    infos, peak = peak_memory(lambda: list_sessions(session_dir=str(folder)))
    assert (infos[0].name, infos[0].entries) == ("named at the start", 1601)
    assert infos[0].first_message.startswith("the quick brown fox")
    assert peak < 2 * longest + 256 * 1024


def write_long_first_line(path, size, padding):
    """A file whose first line is `size` bytes: a header padded with `padding` (inside
    its JSON, or white space after it, which JSON allows), then one entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = (HEADER % "x").rstrip("\n")
    start, end = (head[:-1] + ',"pad":"', '"}') if padding == b"a" else (head, "")
    with open(path, "wb") as file:
        file.write(start.encode())
        for _ in range(size // (1 << 20)):
            file.write(padding * (1 << 20))
        file.write(end.encode() + b"\n" + b'{"type":"custom","id":"a1","parentId":null}\n')
    return str(path)


def outcome_of(read):
    """What `read()` returns, or the SessionError it raises, as a user sees it."""
    try:
        return read()
    except SessionError as error:
        return str(error)


def test_a_first_line_too_long_for_a_header_is_no_session_and_is_not_read_whole(home):
    # A header is small: the first 64 KB of a longer first line are all that is read
    # (the whole line once took twice its size in memory), and the file is no session.
    folder = home / "sessions" / "--p--"
    for padding in (b"a", b" "):
        path = write_long_first_line(folder / "long.jsonl", 50 << 20, padding)
        refused = f"{path} is not a session file (its first line is not a session header); " \
                  f"it was left unchanged"
        for read, expected in ((lambda: list_sessions("/p"), []),
                               (lambda: find_sessions_by_prefix("x", "/p"), []),
                               (lambda: find_most_recent(str(folder)), None),
                               (lambda: list(STORE.stream(path).entries), refused),
                               (lambda: STORE.load(path), refused),
                               (lambda: list(STORE.read_since(path).entries), refused)):
            outcome, peak = peak_memory(lambda: outcome_of(read))
            assert (padding, outcome) == (padding, expected)
            assert peak < 1 << 20


def test_a_stream_warns_of_a_torn_line_as_it_passes(tmp_path):
    path = write(tmp_path / "s.jsonl", HEADER % "x" + '{"type":"custom","id":"a1","parentId":null,'
                 '"timestamp":"t"}\n{"type":"cus')
    streamed = STORE.stream(path)
    assert streamed.header["id"] == "x" and streamed.warnings == []  # nothing read yet
    assert [entry["id"] for entry in streamed.entries] == ["a1"]
    assert streamed.warnings == [f"{path}:3: skipped a malformed line"]


def test_find_by_prefix_looks_in_this_project_then_everywhere(home):
    here = conversation("/work/proj", "q")
    there = conversation("/work/other", "q")
    # ids made in the same minute share their first digits (UUIDv7): use whole ids
    assert find_sessions_by_prefix(here.id, "/work/proj") == [here.path]
    assert find_sessions_by_prefix(there.id, "/work/proj") == [there.path]
    assert find_sessions_by_prefix("zz-not-an-id", "/work/proj") == []


def test_find_by_prefix_returns_every_match_in_this_project(home, tmp_path):
    folder = home / "sessions" / "--p--"
    write(folder / "a.jsonl", HEADER % "abc-1")
    write(folder / "b.jsonl", HEADER % "abc-2")
    assert sorted(find_sessions_by_prefix("abc", "/p")) == [str(folder / "a.jsonl"), str(folder / "b.jsonl")]


def test_find_most_recent(tmp_path):
    folder = tmp_path / "s"
    assert find_most_recent(str(folder)) is None  # missing folder
    folder.mkdir()
    assert find_most_recent(str(folder)) is None  # empty folder
    write(folder / "notes.txt", HEADER % "x", mtime=3000)
    write(folder / "broken.jsonl", "garbage\n", mtime=3000)
    assert find_most_recent(str(folder)) is None
    old = write(folder / "old.jsonl", HEADER % "old", mtime=1000)
    assert find_most_recent(str(folder)) == old
    new = write(folder / "new.jsonl", HEADER % "new", mtime=2000)
    assert find_most_recent(str(folder)) == new


def test_load_reports_entries_without_an_id(tmp_path):
    path = write(tmp_path / "s.jsonl", HEADER % "x" + '{"type":"custom","parentId":null}\n')
    loaded = STORE.load(path)
    assert loaded.entries == [] and loaded.warnings == [f"{path}:2: skipped an entry without an id"]


# --- read_since: what the search index reads --------------------------------------------



def test_read_since_gives_only_what_was_added(home):
    session = conversation("/work/proj", "first question")
    first = STORE.read_since(session.path)
    assert first.restarted and first.header["id"] == session.id
    assert [entry["id"] for entry in first.entries] == [entry["id"] for entry in session.entries]
    unchanged = STORE.read_since(session.path, first.cursor)
    assert (unchanged.header, list(unchanged.entries), unchanged.cursor) == (None, [], first.cursor)
    new_id = session.append_message({"role": "user", "content": "again", "timestamp": 3})
    later = STORE.read_since(session.path, first.cursor)
    assert not later.restarted and [entry["id"] for entry in later.entries] == [new_id]


def test_read_since_leaves_a_line_being_written_for_next_time(tmp_path):
    path = write(tmp_path / "s.jsonl", HEADER % "x" + '{"type":"custom","id":"a1","parentId":null}\n'
                 + '{"type":"custom","id":"b2"')
    first = STORE.read_since(path)
    assert [entry["id"] for entry in first.entries] == ["a1"]
    with open(path, "a") as file:
        file.write(',"parentId":"a1"}\n')
    assert [entry["id"] for entry in STORE.read_since(path, first.cursor).entries] == ["b2"]


def test_read_since_a_pi_v1_file_in_two_steps_gives_the_ids_load_gives(tmp_path):
    lines = PI_V1.read_bytes().split(b"\n")
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"\n".join(lines[:40]) + b"\n")
    first = STORE.read_since(str(path))
    first_entries = list(first.entries)  # read as they are iterated: before the append
    with open(path, "ab") as file:
        file.write(b"\n".join(lines[40:]))
    second = STORE.read_since(str(path), first.cursor)
    assert not second.restarted
    assert [entry["id"] for entry in [*first_entries, *second.entries]] == \
        [entry["id"] for entry in STORE.load(str(path)).entries]


def test_read_since_starts_again_when_the_file_shrank_or_changed(tmp_path):
    path = write(tmp_path / "s.jsonl", HEADER % "x" + '{"type":"custom","id":"a1","parentId":null}\n')
    cursor = STORE.read_since(path).cursor
    write(tmp_path / "s.jsonl", HEADER % "x")
    shrunk = STORE.read_since(path, cursor)
    assert shrunk.restarted and list(shrunk.entries) == []
    write(tmp_path / "s.jsonl", HEADER % "x" + '{"type":"custom","id":"z9","parentId":null}\n'
          + '{"type":"custom","id":"a2","parentId":"z9"}\n')
    changed = STORE.read_since(path, cursor)
    assert changed.restarted and [entry["id"] for entry in changed.entries] == ["z9", "a2"]
