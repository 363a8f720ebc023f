"""core/read.py, the plain read: windows of lines, the closing notice, clear errors."""

import pytest

from miniagent.core.read import MAX_LINES, create_read_tool, resolve_path
from miniagent.core.tools import ToolContext, ToolError


def read(cwd, **args):
    result = create_read_tool().execute("c1", args, ToolContext(cwd=str(cwd)))
    return result.content[0]["text"]


def test_a_small_file_comes_back_as_it_is(tmp_path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    assert read(tmp_path, path="a.txt") == "one\ntwo\n"


def test_offset_and_limit_pick_a_window_and_say_how_to_continue(tmp_path):
    (tmp_path / "a.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    assert read(tmp_path, path="a.txt", offset=3, limit=2) == (
        "3\n4\n\n[7 more lines in file. Use offset=5 to continue.]")


def test_a_long_file_stops_at_the_line_limit(tmp_path):
    (tmp_path / "big.txt").write_text("x\n" * 2500)
    text = read(tmp_path, path="big.txt")
    assert text.count("x") == MAX_LINES
    assert text.endswith(f"[Showing lines 1-{MAX_LINES} of 2501. Use offset=2001 to continue.]")


def test_wide_lines_stop_at_50_kb(tmp_path):
    (tmp_path / "wide.txt").write_text(("y" * 1000 + "\n") * 100)
    assert read(tmp_path, path="wide.txt").endswith(
        "[Showing lines 1-51 of 101 (50.0KB limit). Use offset=52 to continue.]")


def test_an_offset_past_the_end_is_an_error(tmp_path):
    (tmp_path / "a.txt").write_text("a\nb\n")
    with pytest.raises(ToolError, match=r"^Offset 9 is beyond end of file \(3 lines total\)"):
        read(tmp_path, path="a.txt", offset=9)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ToolError, match=f"^File not found: {tmp_path / 'nope.txt'}"):
        read(tmp_path, path="nope.txt")


def test_an_empty_file_says_so(tmp_path):
    (tmp_path / "e.txt").write_text("")
    assert read(tmp_path, path="e.txt") == "(empty file)"


def test_read_declares_the_file_it_reads(tmp_path):
    assert create_read_tool().paths({"path": "a.txt"}, str(tmp_path)) == (
        [str(tmp_path / "a.txt")], [])
    assert resolve_path("a.py", "/r") == "/r/a.py"
