"""Path resolution (pi's path-utils tests), special files, the registry."""

import os
import pwd
import threading
import unicodedata

import pytest

from miniagent.tools import ALL_TOOLS, DEFAULT_TOOLS, create_tools
from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.tools.hardening.paths import expand_path, resolve_path, resolve_read_path


def test_expand_home():
    home = os.path.expanduser("~")
    assert expand_path("~") == home
    assert expand_path("~/x.txt") == home + "/x.txt"
    # ~user as in the shell (pi leaves it); an unknown user stays as written.
    assert expand_path("~root/x") == pwd.getpwnam("root").pw_dir + "/x"
    assert expand_path("~no-such-user-here/x") == "~no-such-user-here/x"
    assert expand_path("~$lock.docx") == "~$lock.docx"


def test_at_prefix_and_special_spaces():
    assert expand_path("@src/a.py") == "src/a.py"
    assert expand_path("file\u00a0name\u2009x\u3000y.txt") == "file name x y.txt"


def test_resolve_relative_and_absolute():
    assert resolve_path("a/../b.txt", "/repo") == "/repo/b.txt"
    assert resolve_path("/etc/hosts", "/repo") == "/etc/hosts"


@pytest.mark.parametrize("on_disk, asked", [
    ("Screenshot 2024-01-01 at 10.00.00\u202fAM.png", "Screenshot 2024-01-01 at 10.00.00 AM.png"),
    (unicodedata.normalize("NFD", "café.txt"), unicodedata.normalize("NFC", "café.txt")),
    ("it\u2019s.txt", "it's.txt"),
    (unicodedata.normalize("NFD", "café\u2019s.txt"), "café's.txt"),
])
def test_read_path_macos_variants(tmp_path, on_disk, asked):
    (tmp_path / on_disk).write_text("x")
    assert resolve_read_path(asked, str(tmp_path)) == str(tmp_path / on_disk)


def test_read_path_missing_stays_as_asked(tmp_path):
    assert resolve_read_path("nope.txt", str(tmp_path)) == str(tmp_path / "nope.txt")


def call_beside_a_pipe(fifo, name, cwd, args):
    """Run a tool on a thread and return its text or its error. A tool that opened the
    named pipe would wait forever: after a wide 10 s bound the pipe is opened from here
    (read and write end at once) to set it free, and the test fails."""
    tool = create_tools([name])[0]
    outcome = []

    def call():
        try:
            result = tool.execute("c", validate_arguments(tool, args), ToolContext(cwd=str(cwd)))
            outcome.append(result.content[0]["text"])
        except Exception as exc:  # the assertions below look at it
            outcome.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    thread.join(10)
    hung = thread.is_alive()
    if hung:
        os.close(os.open(fifo, os.O_RDWR))
        thread.join()
    assert not hung, f"{name} opened the named pipe"
    return outcome[0]


READ_HINT = "timeout 5 head -c 1000 {}"
WRITE_HINT = "echo TEXT | timeout 5 tee {} > /dev/null"


@pytest.mark.parametrize("name, args, hints, not_hints", [
    ("read", {"path": "pipe"}, [READ_HINT], [WRITE_HINT]),
    ("grep", {"pattern": "x", "path": "pipe"}, [READ_HINT], [WRITE_HINT]),
    # A read command alone is no next step for "write this": write and edit say how
    # to send the pipe data (edit also how to look, since it has nothing to replace).
    ("write", {"path": "pipe", "content": "x"}, [WRITE_HINT, "choose another path"],
     [READ_HINT]),
    ("edit", {"path": "pipe", "edits": [{"oldText": "a", "newText": "b"}]},
     [WRITE_HINT, READ_HINT, "no stored text to replace"], []),
])
def test_a_named_pipe_is_refused_not_opened(tmp_path, name, args, hints, not_hints):
    os.mkfifo(tmp_path / "pipe")
    error = call_beside_a_pipe(tmp_path / "pipe", name, tmp_path, args)
    assert isinstance(error, ToolError)
    assert "is a named pipe (FIFO), not a regular file" in str(error)
    for hint in hints:
        assert hint.format(tmp_path / "pipe") in str(error)
    for hint in not_hints:
        assert hint.format(tmp_path / "pipe") not in str(error)


@pytest.mark.parametrize("name, args", [
    ("read", {}), ("write", {"content": "x"}), ("grep", {"pattern": "x"}),
    ("edit", {"edits": [{"oldText": "a", "newText": "b"}]}),
    ("find", {"pattern": "*"}), ("ls", {}),
])
def test_a_nul_byte_in_a_path_is_a_tool_error(tmp_path, name, args):
    # os functions raise a bare "ValueError: embedded null byte" for such a path.
    tool = create_tools([name])[0]
    arguments = validate_arguments(tool, {"path": "a\0b.txt", **args})
    with pytest.raises(ToolError, match=r"The path 'a\\x00b\.txt' contains a NUL byte"):
        tool.execute("c", arguments, ToolContext(cwd=str(tmp_path)))
    assert os.listdir(tmp_path) == []


def test_grep_skips_a_named_pipe_in_the_tree(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "a.txt").write_text("x\n")
    assert call_beside_a_pipe(tmp_path / "pipe", "grep", tmp_path, {"pattern": "x"}) == \
        "a.txt:1: x"


def test_registry():
    assert [tool.name for tool in create_tools()] == DEFAULT_TOOLS == ["read", "bash", "edit", "write"]
    assert [tool.name for tool in create_tools(ALL_TOOLS)] == ALL_TOOLS
    with pytest.raises(ValueError, match="Unknown tool 'rm'"):
        create_tools(["rm"])
    for tool in create_tools(ALL_TOOLS):
        assert tool.description and tool.parameters["type"] == "object"
