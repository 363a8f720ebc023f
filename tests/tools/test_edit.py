"""edit: pi's tool tests and docs/decisions.md D9 in full.

The normalised matching is tested in test_fuzzy.py, the repair of the arguments models
send in test_edit_args.py, the diff in test_diff.py."""

import pytest

from miniagent.core.tools import ToolError
from miniagent.core import write as core_write  # the plain files the product extends
from miniagent.tools import edit as edit_module
from helpers import run_edit as edit, one_edit as one, make_file as make


# --- pi's tests --------------------------------------------------------------------------

def test_replace_reports_and_diffs(tmp_path):
    path = make(tmp_path, "Hello, world!")
    result = edit(tmp_path, "f.txt", one("world", "testing"))
    assert path.read_text() == "Hello, testing!"
    assert str(path) in result.content[0]["text"]
    assert result.details == {"diff": "-1 Hello, world!\n+1 Hello, testing!",
                              "firstChangedLine": 1}


def test_not_found_says_to_read_again(tmp_path):
    make(tmp_path, "Hello, world!")
    with pytest.raises(ToolError) as info:
        edit(tmp_path, "f.txt", one("nope", "x"))
    message = str(info.value)
    assert "Could not find" in message and '"nope"' in message and "Read the file" in message


def test_not_unique_says_how_many(tmp_path):
    make(tmp_path, "foo foo foo")
    with pytest.raises(ToolError, match="matches 3 places") as info:
        edit(tmp_path, "f.txt", one("foo", "bar"))
    assert "surrounding lines" in str(info.value)


def test_exact_match_is_preferred_and_the_rest_is_untouched(tmp_path):
    path = make(tmp_path, "keep \u201cquotes\u201d   \nvalue = 1\n")
    edit(tmp_path, "f.txt", one("value = 1", "value = 2"))
    assert path.read_text() == "keep \u201cquotes\u201d   \nvalue = 2\n"


def test_duplicates_after_normalisation(tmp_path):
    make(tmp_path, "hello world   \nhello world\n")
    with pytest.raises(ToolError, match="matches 2 places"):
        edit(tmp_path, "f.txt", one("hello world", "x"))
    make(tmp_path, "x  \nx\n")
    with pytest.raises(ToolError, match="matches 2 places"):
        edit(tmp_path, "f.txt", one("x\n", "y\n"))


def test_crlf_file_matched_with_lf_text_keeps_crlf(tmp_path):
    path = make(tmp_path, b"first\r\nsecond\r\nthird\r\n")
    edit(tmp_path, "f.txt", one("second\n", "REPLACED\n"))
    assert path.read_bytes() == b"first\r\nREPLACED\r\nthird\r\n"


def test_lf_file_stays_lf(tmp_path):
    path = make(tmp_path, "first\nsecond\nthird\n")
    edit(tmp_path, "f.txt", one("second\r\n", "A\r\nB\r\n"))
    assert path.read_bytes() == b"first\nA\nB\nthird\n"


def test_crlf_and_lf_copies_are_not_unique(tmp_path):
    make(tmp_path, b"hello\r\nworld\r\n---\r\nhello\nworld\n")
    with pytest.raises(ToolError, match="matches 2 places"):
        edit(tmp_path, "f.txt", one("hello\nworld\n", "x\n"))


def test_bom_is_preserved(tmp_path):
    path = make(tmp_path, b"\xef\xbb\xbffirst\r\nsecond\r\n")
    edit(tmp_path, "f.txt", one("first", "1st"))
    assert path.read_bytes() == b"\xef\xbb\xbf1st\r\nsecond\r\n"


# --- D9 ---------------------------------------------------------------------------------

def test_several_edits_are_matched_against_the_original(tmp_path):
    path = make(tmp_path, "a = 1\nb = 2\nc = 3\n")
    result = edit(tmp_path, "f.txt", [{"oldText": "a = 1", "newText": "c = 3"},
                                      {"oldText": "c = 3", "newText": "c = 30"}])
    assert path.read_text() == "c = 3\nb = 2\nc = 30\n"
    assert "2 blocks" in result.content[0]["text"]


def test_overlapping_edits_are_refused_and_nothing_is_written(tmp_path):
    path = make(tmp_path, "alpha\nbeta\ngamma\n")
    with pytest.raises(ToolError) as info:
        edit(tmp_path, "f.txt", [{"oldText": "alpha\nbeta", "newText": "1"},
                                 {"oldText": "beta\ngamma", "newText": "2"}])
    message = str(info.value)
    assert "overlap" in message and "edits[0]" in message and "edits[1]" in message
    assert '"beta\\ngamma"' in message and "merge" in message
    assert path.read_text() == "alpha\nbeta\ngamma\n"


def test_one_failing_edit_writes_nothing(tmp_path):
    path = make(tmp_path, "alpha\nbeta\n")
    with pytest.raises(ToolError, match=r"edits\[1\]\.oldText"):
        edit(tmp_path, "f.txt", [{"oldText": "alpha", "newText": "A"},
                                 {"oldText": "missing", "newText": "B"}])
    assert path.read_text() == "alpha\nbeta\n"


def test_undecodable_bytes_elsewhere_survive(tmp_path):
    path = make(tmp_path, b"caf\xe9\nvalue = 1\n\xff\xfe end\n")
    result = edit(tmp_path, "f.txt", one("value = 1", "value = 2"))
    assert path.read_bytes() == b"caf\xe9\nvalue = 2\n\xff\xfe end\n"
    result.details["diff"].encode("utf-8")  # the diff is valid UTF-8


def test_no_change(tmp_path):
    make(tmp_path, "same")
    with pytest.raises(ToolError, match="No changes made"):
        edit(tmp_path, "f.txt", one("same", "same"))


def test_empty_old_text_is_refused(tmp_path):
    make(tmp_path, "abc")
    with pytest.raises(ToolError, match="oldText is empty"):
        edit(tmp_path, "f.txt", one("", "x"))


def test_missing_file(tmp_path):
    with pytest.raises(ToolError, match="File not found"):
        edit(tmp_path, "nope.txt", one("a", "b"))


def test_write_back_refused_leaves_the_file_alone(tmp_path, monkeypatch):
    # Tests run as root, whom chmod does not stop: make opening for writing fail instead.
    path = make(tmp_path, "value = 1\n")

    def open_read_only(file, mode="r", *args, **kwargs):
        if "w" in mode:
            raise PermissionError(13, "Permission denied", file)
        return open(file, mode, *args, **kwargs)

    monkeypatch.setattr(core_write, "open", open_read_only, raising=False)
    with pytest.raises(ToolError, match=r"^Permission denied: .*f\.txt.*ls -l"):
        edit(tmp_path, "f.txt", one("value = 1", "value = 2"))
    assert path.read_text() == "value = 1\n"


def test_a_file_too_big_to_hold_in_memory_is_refused_with_a_way_out(tmp_path):
    # A sparse file: huge on paper, no time spent writing it. Unbounded, edit read it
    # whole (a 2 GB file peaked at 4.2 GB of memory).
    path = tmp_path / "huge.log"
    with open(path, "wb") as f:
        f.write(b"needle\n")
        f.truncate(edit_module.MAX_EDIT_BYTES + 1)
    with pytest.raises(ToolError) as info:
        edit(tmp_path, "huge.log", one("needle", "thread"))
    message = str(info.value)
    assert "10.0MB" in message and "sed -i" in message and "huge.log" in message
    assert path.read_bytes()[:7] == b"needle\n"
