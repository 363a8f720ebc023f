"""core/write.py, the plain write: parents created, bytes counted, a directory refused."""

import pytest

from miniagent.core.tools import ToolContext, ToolError
from miniagent.core.write import create_write_tool


def write(cwd, path, content):
    result = create_write_tool().execute("c1", {"path": path, "content": content},
                                         ToolContext(cwd=str(cwd)))
    return result.content[0]["text"]


def test_a_file_is_written_with_its_parents(tmp_path):
    assert write(tmp_path, "src/new/app.py", "é\n") == (
        f"Wrote 3 bytes to {tmp_path / 'src/new/app.py'}")
    assert (tmp_path / "src/new/app.py").read_text() == "é\n"


def test_a_path_ending_in_a_slash_is_refused(tmp_path):
    with pytest.raises(ToolError, match="ends with '/'"):
        write(tmp_path, "newdir/", "x")
    assert not (tmp_path / "newdir").exists()


def test_a_failure_is_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ToolError, match=f"^Cannot access {tmp_path / 'notes.txt/new.txt'}: "):
        write(tmp_path, "notes.txt/new.txt", "y")
