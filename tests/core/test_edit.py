"""core/edit.py, the plain edit: exact and unique matches, all or nothing, clear errors."""

import pytest

from miniagent.core.edit import create_edit_tool
from miniagent.core.tools import ToolContext, ToolError


def edit(cwd, path, *pairs):
    edits = [{"oldText": old, "newText": new} for old, new in pairs]
    return create_edit_tool().execute("c1", {"path": path, "edits": edits},
                                      ToolContext(cwd=str(cwd)))


def test_several_edits_land_in_one_write(tmp_path):
    (tmp_path / "f.py").write_text("a = 1\nb = 2\nc = 3\n")
    result = edit(tmp_path, "f.py", ("a = 1", "a = 10"), ("c = 3", "c = 30"))
    assert (tmp_path / "f.py").read_text() == "a = 10\nb = 2\nc = 30\n"
    assert result.content[0]["text"] == f"Edited {tmp_path / 'f.py'}: replaced 2 blocks of text."
    assert "-a = 1\n+a = 10" in result.details["diff"]


def test_text_not_found_leaves_the_file_alone(tmp_path):
    (tmp_path / "f.py").write_text("a = 1\n")
    with pytest.raises(ToolError, match=r'^Could not find edits\[1\].oldText \("zzz"\)'):
        edit(tmp_path, "f.py", ("a = 1", "a = 2"), ("zzz", "y"))
    assert (tmp_path / "f.py").read_text() == "a = 1\n"


def test_text_found_twice_asks_for_more_context(tmp_path):
    (tmp_path / "f.py").write_text("x = 0\nx = 0\n")
    with pytest.raises(ToolError, match="matches 2 places .* must match exactly one"):
        edit(tmp_path, "f.py", ("x = 0", "x = 1"))


def test_overlapping_edits_are_refused(tmp_path):
    (tmp_path / "f.py").write_text("abcdef\n")
    with pytest.raises(ToolError, match="overlap"):
        edit(tmp_path, "f.py", ("abcd", "X"), ("cdef", "Y"))


def test_crlf_and_byte_order_mark_are_kept(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    edit(tmp_path, "w.txt", ("two", "2\n3"))
    assert (tmp_path / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ToolError, match="^File not found: "):
        edit(tmp_path, "nope.py", ("a", "b"))


def test_edit_declares_the_file_it_reads_and_writes(tmp_path):
    path = str(tmp_path / "f.py")
    assert create_edit_tool().paths({"path": "f.py"}, str(tmp_path)) == ([path], [path])
