"""The history file: whole entries written and read back, today's file read once."""

import json
import os

from miniagent.tui.history import History


def test_entries_are_written_as_json_lines_and_read_back_whole(tmp_path):
    path = tmp_path / "home" / "history.jsonl"
    history = History(str(path))
    history.add("first")
    history.add("fix this:\n  File \"a.py\", line 3")
    assert path.read_text().splitlines() == [
        '"first"', '"fix this:\\n  File \\"a.py\\", line 3"']
    again = History(str(path))
    again.load()
    assert again.entries == ["first", "fix this:\n  File \"a.py\", line 3"]
    assert again.previous("") == "fix this:\n  File \"a.py\", line 3"


def test_blank_inputs_and_repeats_are_not_kept(tmp_path):
    history = History(str(tmp_path / "history.jsonl"))
    for text in ("a", "a", "   ", "", "b", "a"):
        history.add(text)
    assert history.entries == ["a", "b", "a"]


def test_only_the_last_limit_entries_are_kept(tmp_path):
    path = tmp_path / "history.jsonl"
    history = History(str(path), limit=3)
    for n in range(5):
        history.add(f"prompt {n}")
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        "prompt 2", "prompt 3", "prompt 4"]


def test_the_legacy_readline_file_is_read_when_there_is_no_new_one(tmp_path):
    legacy = tmp_path / "history"
    legacy.write_text("ls -la\nexplain \\040 literally\n\nsecond\n")
    history = History(str(tmp_path / "history.jsonl"))
    history.load(legacy_path=str(legacy))
    assert history.entries == ["ls -la", "explain \\040 literally", "second"]


def test_libedits_header_is_skipped_and_its_escapes_decoded(tmp_path):
    legacy = tmp_path / "history"
    legacy.write_text("_HiStOrY_V2_\nls\\040-la\nback\\\\slash\\040and\\011tab\n")
    history = History(str(tmp_path / "history.jsonl"))
    history.load(legacy_path=str(legacy))
    assert history.entries == ["ls -la", "back\\slash and\ttab"]


def test_the_new_file_wins_over_the_legacy_one(tmp_path):
    legacy = tmp_path / "history"
    legacy.write_text("old\n")
    new = tmp_path / "history.jsonl"
    new.write_text('"new"\nnot json\n42\n"newer"\n')
    history = History(str(new))
    history.load(legacy_path=str(legacy))
    assert history.entries == ["new", "newer"]  # broken and non-text lines skipped


def test_missing_files_give_an_empty_history(tmp_path):
    history = History(str(tmp_path / "history.jsonl"))
    history.load(legacy_path=str(tmp_path / "history"))
    assert history.entries == []
    assert history.previous("draft") is None


def test_a_save_that_cannot_write_is_silent(tmp_path):
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("")  # even root cannot make a folder inside a file
    history = History(str(not_a_folder / "history.jsonl"))
    history.add("still remembered")
    assert history.entries == ["still remembered"]
    assert history.previous("") == "still remembered"


def test_the_save_replaces_the_file_and_leaves_no_temporary_behind(tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_text('"old"\n')
    history = History(str(path))
    history.load()
    history.add("new")
    assert sorted(os.listdir(tmp_path)) == ["history.jsonl"]
    assert path.read_text() == '"old"\n"new"\n'


def test_navigation_walks_back_and_returns_the_draft():
    history = History(None)
    for text in ("a", "b"):
        history.add(text)
    assert history.next() is None
    assert [history.previous("typing"), history.previous("b"), history.previous("a")] == \
        ["b", "a", None]
    assert [history.next(), history.next(), history.next()] == ["b", "typing", None]
