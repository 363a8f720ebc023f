"""Sessions: writing, the tree API, labels, forks and pi's files (pi's session tests, as ours,
with docs/decisions.md D12's two flips: a 0-byte file is a new session at that path; a non-empty
file without a valid header is refused and left byte-identical)."""

import hashlib
import json
import os

import pytest

from helpers import FIXTURES
from miniagent.session.tree import Session, fork_session, parse_fork_argument
from miniagent.errors import SessionError

PI_V1 = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"
PI_V3 = FIXTURES / "pi-run" / "pi-0.73.1" / "errors.session.jsonl"


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(text):
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
            "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 2,
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}}


def lines(path):
    return [json.loads(line) for line in open(path, encoding="utf-8").read().splitlines()]


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def new_session(tmp_path, **kwargs):
    return Session.create(str(tmp_path / "proj"), session_dir=str(tmp_path / "sessions"), **kwargs)


# --- Writing ------------------------------------------------------------------------------


def test_the_file_appears_with_the_first_assistant_reply(tmp_path):
    session = new_session(tmp_path)
    session.append_model_change("p", "m", base_url="http://127.0.0.1:8080/v1")
    session.append_thinking_level_change("off")
    session.append_message(user("hi"))
    assert session.path is None and not os.path.exists(session.file_path)

    session.append_message(assistant("hello"))
    written = lines(session.path)
    assert written[0] == {"type": "session", "version": 3, "id": session.id,
                          "timestamp": session.header["timestamp"], "cwd": str(tmp_path / "proj")}
    assert [e["type"] for e in written[1:]] == ["model_change", "thinking_level_change",
                                                "message", "message"]
    assert written[1]["baseUrl"] == "http://127.0.0.1:8080/v1"
    session.append_message(user("more"))
    assert lines(session.path)[-1]["message"]["content"][0]["text"] == "more"


def test_file_name_and_entry_format_match_pi(tmp_path):
    session = new_session(tmp_path)
    first = session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    name = os.path.basename(session.path)
    stamp = session.header["timestamp"]
    assert name == stamp.replace(":", "-").replace(".", "-") + f"_{session.id}.jsonl"
    assert len(stamp) == 24 and stamp.endswith("Z")  # 2026-03-15T10:20:30.123Z
    raw = open(session.path, encoding="utf-8").read().splitlines()[1]
    assert raw.startswith('{"type":"message","id":"%s","parentId":null,"timestamp":"' % first)
    assert len(first) == 8 and int(first, 16) >= 0


def test_persist_false_writes_nothing(tmp_path):
    session = new_session(tmp_path, persist=False)
    session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    assert session.path is None and not (tmp_path / "sessions").exists()
    assert len(session.build_context().messages) == 2


def test_a_custom_id_is_used_and_written(tmp_path):
    session = new_session(tmp_path, session_id="my-custom-id")
    session.append_message(assistant("hello"))
    assert session.id == "my-custom-id" and lines(session.path)[0]["id"] == "my-custom-id"
    assert new_session(tmp_path).id not in ("", "my-custom-id")


def test_text_that_utf8_cannot_hold_is_written_as_escapes(tmp_path):
    session = new_session(tmp_path)
    session.append_message(assistant("café \ud83d"))
    reopened = Session.open(session.path)
    assert reopened.entries[0]["message"]["content"][0]["text"] == "café \ud83d"


def test_a_failed_write_names_the_file_and_keeps_memory_equal_to_it(tmp_path):
    (tmp_path / "blocker").write_text("a file where the folder must be")
    session = Session.create("/p", session_dir=str(tmp_path / "blocker" / "sessions"))
    session.append_message(user("hi"))
    with pytest.raises(SessionError, match=r"cannot write session .*blocker/sessions/.*\.jsonl: "):
        session.append_message(assistant("hello"))
    assert [e["message"]["role"] for e in session.entries] == ["user"]
    assert session.leaf_id == session.entries[0]["id"]


# --- Opening ------------------------------------------------------------------------------


def test_a_missing_file_is_a_new_session_written_there(tmp_path):
    path = tmp_path / "named.jsonl"
    session = Session.open(str(path), cwd="/p")
    assert session.entries == [] and session.file_path == str(path) and session.path is None
    session.append_message(assistant("hello"))
    assert lines(path)[0]["id"] == session.id and lines(path)[0]["cwd"] == "/p"


def test_a_zero_byte_file_is_a_new_session_at_that_path(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    session = Session.open(str(path))
    assert session.entries == [] and path.read_bytes() == b""
    session.append_message(user("hi"))
    session.append_message(assistant("hello"))
    written = lines(path)
    assert [e["type"] for e in written] == ["session", "message", "message"]
    assert written[0]["id"] == session.id
    assert Session.open(str(path)).id == session.id


def test_two_sessions_creating_one_file_leave_one_header_and_both_answers(tmp_path):
    # The lost race, made deterministic: both processes looked, found no file, and each
    # holds a new session for that path; the second to write finds the first's header.
    path = tmp_path / "shared.jsonl"
    first, second = Session.open(str(path)), Session.open(str(path))
    first.append_message(user("one"))
    first.append_message(assistant("answer one"))
    second.append_message(user("two"))
    second.append_message(assistant("answer two"))
    written = lines(path)
    assert [e["type"] for e in written] == ["session"] + ["message"] * 4
    assert second.id == first.id == written[0]["id"]
    second.append_message(user("three"))  # goes on under the shared header
    reloaded = Session.open(str(path))
    assert reloaded.warnings == [] and len(reloaded.entries) == 5
    texts = [e["message"]["content"][0]["text"] for e in reloaded.get_branch()]
    assert texts == ["two", "answer two", "three"]


@pytest.mark.parametrize("content", ['{"type":"message","id":"a","parentId":null}\n', "not json\n",
                                     "\n", '{"type":"session"}\n'])
def test_a_file_without_a_valid_header_is_refused_and_left_alone(tmp_path, content):
    path = tmp_path / "other.jsonl"
    path.write_text(content)
    with pytest.raises(SessionError) as error:
        Session.open(str(path))
    assert str(path) in str(error.value) and "\n" not in str(error.value)
    assert path.read_text() == content


def test_a_v3_file_loads_and_is_appended_to(tmp_path):
    path = tmp_path / "pi.jsonl"
    path.write_bytes(PI_V3.read_bytes())
    session = Session.open(str(path))
    assert session.warnings == [] and session.path == str(path) and not session.needs_new_file
    assert session.leaf_id == "da90cb7d" and session.id == "01a22b2e-57c4-7404-8c1d-e98fd13ea56d"
    assert session.build_context().model == {"provider": "scripted", "modelId": "scripted-model"}
    session.append_message(user("again"))
    assert path.read_bytes().startswith(PI_V3.read_bytes())
    assert lines(path)[-1]["parentId"] == "da90cb7d"


def test_malformed_lines_between_valid_ones_are_skipped_with_a_warning(tmp_path):
    path = tmp_path / "s.jsonl"
    header = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'
    good = '{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2025-01-01T00:00:00Z",' \
           '"message":{"role":"user","content":"hi","timestamp":1}}'
    path.write_text(f"{header}\nnot json\n{good}\n[1]\n")
    session = Session.open(str(path))
    assert [e["id"] for e in session.entries] == ["aaaaaaaa"]
    assert session.warnings == [f"{path}:2: skipped a malformed line",
                                f"{path}:4: skipped a malformed line"]


# --- pi's version-1 file ------------------------------------------------------------------


def test_the_pi_v1_fixture_loads_and_its_context_starts_with_the_latest_summary():
    session = Session.open(str(PI_V1), cwd="/p")
    assert session.warnings == [] and len(session.entries) == 1002 and session.needs_new_file
    compactions = [e for e in session.entries if e["type"] == "compaction"]
    latest = compactions[-1]
    context = session.build_context()
    assert context.messages[0]["role"] == "compactionSummary"
    assert context.messages[0]["summary"] == latest["summary"]
    assert context.messages[0]["tokensBefore"] == 185014
    kept = session.get_entry(latest["firstKeptEntryId"])
    assert context.messages[1] is kept["message"]
    # Version 1 counted the header as index 0: the kept entry is on file line index + 1.
    raw = json.loads(PI_V1.read_text(encoding="utf-8").splitlines()[551])
    assert raw["timestamp"] == kept["timestamp"]


def test_v1_ids_come_from_line_numbers_and_are_the_same_every_time():
    first, second = Session.open(str(PI_V1)), Session.open(str(PI_V1))
    assert [e["id"] for e in first.entries] == [e["id"] for e in second.entries]
    assert first.entries[0]["id"] == "00000002" and first.entries[0]["parentId"] is None
    assert first.entries[1]["parentId"] == "00000002"


def test_resuming_the_v1_fixture_writes_a_new_v3_file_and_leaves_it_byte_identical(tmp_path):
    before = digest(PI_V1)
    session = Session.open(str(PI_V1), cwd=str(tmp_path / "proj"))
    assert session.path is None
    session.append_message(user("continue"))
    assert digest(PI_V1) == before
    written = lines(session.path)
    assert written[0]["version"] == 3 and written[0]["parentSession"] == str(PI_V1)
    assert written[0]["cwd"] == str(tmp_path / "proj")
    assert len(written) == 1 + 1002 + 1 and written[-1]["parentId"] == "00001003"
    assert os.path.dirname(session.path).endswith("--" + str(tmp_path / "proj")[1:].replace("/", "-") + "--")
    again = Session.open(session.path)
    assert not again.needs_new_file and len(again.entries) == 1003


# --- The tree -----------------------------------------------------------------------------


def test_appends_chain_and_the_leaf_follows(tmp_path):
    session = new_session(tmp_path)
    ids = [session.append_message(user("1")), session.append_message(assistant("2")),
           session.append_custom("state", {"n": 1}), session.append_message(user("3"))]
    assert [e["parentId"] for e in session.entries] == [None] + ids[:-1]
    assert session.leaf_id == ids[-1]
    assert [m["role"] for m in session.build_context().messages] == ["user", "assistant", "user"]
    assert session.get_branch() == session.entries
    assert session.get_branch(ids[1]) == session.entries[:2]
    assert session.children(ids[0]) == [session.entries[1]]


def test_branching_makes_siblings_and_the_tree_shows_them(tmp_path):
    session = new_session(tmp_path)
    root = session.append_message(user("q"))
    a = session.append_message(assistant("a"))
    first = session.append_message(user("try A"))
    session.branch(a)
    second = session.append_message(user("try B"))
    session.branch(a)
    third = session.append_message(user("try C"))
    deep = session.append_message(assistant("deep"))
    tree = session.get_tree()
    assert [n.entry["id"] for n in tree] == [root]
    assert [n.entry["id"] for n in tree[0].children[0].children] == [first, second, third]
    assert tree[0].children[0].children[2].children[0].entry["id"] == deep
    assert [e["id"] for e in session.get_branch()] == [root, a, third, deep]
    assert [e["id"] for e in session.children(a)] == [first, second, third]


def test_branch_to_an_unknown_entry_raises(tmp_path):
    session = new_session(tmp_path)
    with pytest.raises(ValueError, match="Entry nonexistent not found"):
        session.branch("nonexistent")


def test_reset_leaf_makes_the_next_entry_a_new_root(tmp_path):
    session = new_session(tmp_path)
    session.append_message(user("a"))
    session.reset_leaf()
    assert session.build_context().messages == []
    second = session.append_message(user("b"))
    assert session.get_entry(second)["parentId"] is None and len(session.get_tree()) == 2


def test_branch_with_summary_becomes_the_leaf_under_the_branch_point(tmp_path):
    session = new_session(tmp_path)
    root = session.append_message(user("start"))
    session.append_message(assistant("wrong"))
    summary = session.branch_with_summary(root, "Tried the wrong thing", {"readFiles": []})
    entry = session.get_entry(summary)
    assert session.leaf_id == summary and entry["parentId"] == root and entry["fromId"] == root
    assert session.build_context().messages[-1]["summary"] == "Tried the wrong thing"
    with pytest.raises(ValueError, match="Entry nope not found"):
        session.branch_with_summary("nope", "x")


def test_a_session_name_is_the_latest_non_empty_one(tmp_path):
    session = new_session(tmp_path)
    assert session.name is None
    session.append_session_info("  first  ")
    session.append_session_info("")
    assert session.name == "first"


# --- Labels -------------------------------------------------------------------------------


def test_labels_set_clear_last_wins_and_stay_out_of_the_context(tmp_path):
    session = new_session(tmp_path)
    target = session.append_message(user("hi"))
    assert session.get_label(target) is None
    label_id = session.append_label(target, "checkpoint")
    assert session.get_label(target) == "checkpoint"
    assert session.get_entry(label_id)["targetId"] == target
    session.append_label(target, None)
    assert session.get_label(target) is None
    session.append_label(target, "second")
    session.append_label(target, "third")
    assert session.get_label(target) == "third"
    assert session.get_tree()[0].label == "third"
    assert [m["role"] for m in session.build_context().messages] == ["user"]
    with pytest.raises(ValueError, match="Entry non-existent not found"):
        session.append_label("non-existent", "x")


def test_labels_survive_reopening(tmp_path):
    session = new_session(tmp_path)
    target = session.append_message(assistant("hi"))
    session.append_label(target, "keep")
    assert Session.open(session.path).get_label(target) == "keep"


# --- Branched sessions and forks ----------------------------------------------------------


def test_create_branched_session_keeps_the_path_and_its_labels(tmp_path):
    session = new_session(tmp_path)
    one = session.append_message(user("1"))
    two = session.append_message(assistant("2"))
    session.append_label(one, "important")
    three = session.append_message(user("3"))
    session.append_label(three, "off the path")
    session.branch(two)
    four = session.append_message(user("4"))
    five = session.append_message(assistant("5"))
    branched = session.create_branched_session(five)
    assert [e["id"] for e in branched.entries if e["type"] != "label"] == [one, two, four, five]
    assert branched.get_label(one) == "important" and branched.get_label(three) is None
    written = lines(branched.path)
    assert written[0]["parentSession"] == session.path and written[0]["id"] == branched.id
    assert len(written) == 1 + 5 and written[-1]["type"] == "label"


def test_a_branched_session_without_a_reply_is_written_lazily_with_one_header(tmp_path):
    session = new_session(tmp_path)
    root = session.append_message(user("only a question"))
    branched = session.create_branched_session(root)
    assert branched.path is None and not os.path.exists(branched.file_path)
    branched.append_message(user("another"))
    branched.append_message(assistant("answer"))
    types = [e["type"] for e in lines(branched.path)]
    assert types == ["session", "message", "message", "message"]
    with pytest.raises(ValueError, match="Entry missing not found"):
        session.create_branched_session("missing")


def test_fork_copies_the_leaf_path_and_is_written_at_once(tmp_path):
    source = tmp_path / "src.jsonl"
    source.write_bytes(PI_V3.read_bytes())
    fork = fork_session(str(source), cwd="/work/other", session_dir=str(tmp_path / "forks"))
    written = lines(fork.path)
    assert written[0]["parentSession"] == str(source) and written[0]["cwd"] == "/work/other"
    assert written[1:] == lines(source)[1:]
    assert source.read_bytes() == PI_V3.read_bytes()


def test_fork_at_an_entry_stops_there(tmp_path):
    source = tmp_path / "src.jsonl"
    source.write_bytes(PI_V3.read_bytes())
    fork = fork_session(str(source), "ad540258", cwd="/p", session_dir=str(tmp_path / "forks"))
    assert [e["id"] for e in lines(fork.path)[1:]] == ["c3d02f0e", "71e8d4ba", "ad540258"]
    with pytest.raises(SessionError, match="has no entry zzzzzzzz"):
        fork_session(str(source), "zzzzzzzz", cwd="/p")
    with pytest.raises(SessionError, match="cannot fork .*missing.jsonl"):
        fork_session(str(tmp_path / "missing.jsonl"), cwd="/p")


def test_fork_of_a_v1_file_at_a_line_id(tmp_path):
    fork = fork_session(str(PI_V1), "00000010", cwd="/p", session_dir=str(tmp_path))
    assert [e["id"] for e in lines(fork.path)[1:]] == [f"{n:08d}" for n in range(2, 11)]


def test_parse_fork_argument_splits_only_at_an_entry_id(tmp_path):
    source = tmp_path / "src.jsonl"
    source.write_bytes(PI_V3.read_bytes())
    colon = tmp_path / "odd:name.jsonl"
    colon.write_bytes(PI_V3.read_bytes())
    assert parse_fork_argument(str(source)) == (str(source), None)
    assert parse_fork_argument(f"{source}:2d5d89c5") == (str(source), "2d5d89c5")
    assert parse_fork_argument(str(colon)) == (str(colon), None)
    with pytest.raises(SessionError, match="has no entry nothere"):
        parse_fork_argument(f"{source}:nothere")


def test_a_custom_message_entry_reaches_the_context_as_a_custom_message(tmp_path):
    session = Session.create(str(tmp_path), persist=False)
    session.append_message(user("hi"))
    session.append_custom_message("note", "from an extension", display=False)
    [_, custom] = session.build_context().messages
    assert custom["role"] == "custom" and custom["customType"] == "note"
    assert custom["content"] == "from an extension" and custom["display"] is False
