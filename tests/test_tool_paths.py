"""Path resolution (pi-behaviour.md §7.1, path-utils tests) and the tool registry."""

import os
import unicodedata

import pytest

from miniagent.tools import ALL_TOOLS, DEFAULT_TOOLS, create_tools
from miniagent.tools.paths import expand_path, resolve_path, resolve_read_path


def test_expand_home():
    home = os.path.expanduser("~")
    assert expand_path("~") == home
    assert expand_path("~/x.txt") == home + "/x.txt"
    assert expand_path("~user/x") == "~user/x"  # not supported, left as written


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


def test_registry():
    assert [tool.name for tool in create_tools()] == DEFAULT_TOOLS == ["read", "bash", "edit", "write"]
    assert [tool.name for tool in create_tools(ALL_TOOLS)] == ALL_TOOLS
    with pytest.raises(ValueError, match="Unknown tool 'rm'"):
        create_tools(["rm"])
    for tool in create_tools(ALL_TOOLS):
        assert tool.description and tool.parameters["type"] == "object"
