"""write: pi's tool tests plus byte counting and the shared lock."""

import threading

import pytest

from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.tools import create_tools
from miniagent.core import write as write_module  # the plain files the product extends


def write(cwd, path, content, abort=None):
    tool = create_tools(["write"])[0]
    ctx = ToolContext(cwd=str(cwd), abort=abort or threading.Event())
    return tool.execute("call-1", validate_arguments(tool, {"path": path, "content": content}),
                        ctx)


def test_write_reports_bytes_and_path(tmp_path):
    result = write(tmp_path, "a.txt", "hello")
    text = result.content[0]["text"]
    assert "5 bytes" in text and str(tmp_path / "a.txt") in text
    assert (tmp_path / "a.txt").read_text() == "hello"


def test_bytes_are_utf8_bytes_not_characters(tmp_path):
    text = write(tmp_path, "u.txt", "héllo ✓").content[0]["text"]
    assert "10 bytes" in text  # 7 characters, 10 bytes


def test_creates_parent_directories(tmp_path):
    write(tmp_path, "deep/nested/dir/f.txt", "x")
    assert (tmp_path / "deep/nested/dir/f.txt").read_text() == "x"


def test_overwrites_and_keeps_content_as_given(tmp_path):
    write(tmp_path, "f.txt", "old content that is longer")
    write(tmp_path, "f.txt", "a\r\nb")
    assert (tmp_path / "f.txt").read_bytes() == b"a\r\nb"


def test_directory_in_the_way(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        write(tmp_path, "d", "x")


def test_a_file_in_the_middle_of_the_path(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ToolError, match="a part of the path before the last name is a file"):
        write(tmp_path, "notes.txt/new.txt", "y")


def test_permission_denied_says_what_to_check(tmp_path, monkeypatch):
    # Tests run as root, whom chmod does not stop: make open() refuse instead.
    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(write_module, "open", refuse, raising=False)
    with pytest.raises(ToolError, match=r"^Permission denied: .*f\.txt.*ls -l"):
        write(tmp_path, "f.txt", "x")


def test_aborted_before_start(tmp_path):
    abort = threading.Event()
    abort.set()
    with pytest.raises(ToolError, match="Operation aborted"):
        write(tmp_path, "f.txt", "x", abort=abort)
    assert not (tmp_path / "f.txt").exists()


def test_a_path_ending_in_a_slash_is_refused(tmp_path):
    # Without the check, "newdir/" resolved to "newdir" and became a FILE of that name.
    with pytest.raises(ToolError, match="the path ends with '/'") as info:
        write(tmp_path, "newdir/", "x")
    assert "newdir/file.txt" in str(info.value)  # the next step: name the file
    assert not (tmp_path / "newdir").exists()


class Confined:
    """A sandbox whose roots are one folder (sandbox/confine.py's, in miniature)."""

    def __init__(self, root):
        self.root = str(root)

    def refuse_write(self, path):
        return None if path.startswith(self.root) else f"Not written: {path} is outside"


def test_a_write_outside_the_sandbox_is_a_tool_error_and_writes_nothing(tmp_path):
    from miniagent.tools import write as write_tool
    tool = write_tool.create_tool(Confined(tmp_path / "app"))
    ctx = ToolContext(cwd=str(tmp_path / "app"), abort=threading.Event())
    with pytest.raises(ToolError, match="Not written: .*outside"):
        tool.execute("c", {"path": str(tmp_path / "x.txt"), "content": "hi"}, ctx)
    assert not (tmp_path / "x.txt").exists()
    tool.execute("c", {"path": "in.txt", "content": "hi"}, ctx)
    assert (tmp_path / "app" / "in.txt").read_text() == "hi"


def test_an_edit_outside_the_sandbox_leaves_the_file_alone(tmp_path):
    from miniagent.tools import edit as edit_tool
    outside = tmp_path / "x.txt"
    outside.write_text("a = 1\n")
    tool = edit_tool.create_tool(Confined(tmp_path / "app"))
    ctx = ToolContext(cwd=str(tmp_path), abort=threading.Event())
    with pytest.raises(ToolError, match="Not written"):
        tool.execute("c", {"path": str(outside),
                           "edits": [{"oldText": "a = 1", "newText": "a = 2"}]}, ctx)
    assert outside.read_text() == "a = 1\n"
