"""Rewriting a file in place: the whole new text or the old file, never half of either."""

import os

import pytest

from miniagent.files.atomic import replace_atomically


def test_the_new_text_replaces_the_old_and_nothing_is_left_beside_it(tmp_path):
    path = tmp_path / "trust.json"
    path.write_text("old\n")
    replace_atomically(path, "new\n")
    assert path.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["trust.json"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary_one(tmp_path, monkeypatch):
    path = tmp_path / "trust.json"
    path.write_text("old\n")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        replace_atomically(path, "new\n")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["trust.json"]


def test_a_link_at_the_path_is_replaced_not_what_it_points_to(tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("mine\n")
    path = tmp_path / "windows.json"
    path.symlink_to(target)
    replace_atomically(path, "{}\n")
    assert not path.is_symlink() and path.read_text() == "{}\n"
    assert target.read_text() == "mine\n"
