"""safeopen: only regular files are opened, without blocking; whole reads are bounded."""

import os

import pytest

from miniagent.files.safeopen import open_regular, read_regular


def test_a_fifo_is_refused_at_once_and_a_regular_file_reads(tmp_path):
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match=r"not a regular file \(a FIFO\)"):
        open_regular(str(fifo))  # plain open() would wait here for a writer
    (tmp_path / "ok").write_bytes(b"data")
    with open_regular(str(tmp_path / "ok")) as file:
        assert file.read() == b"data"


def test_devices_and_directories_are_refused(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.json")
    with pytest.raises(OSError, match=r"\(a device\)"):
        read_regular(str(tmp_path / "zero.json"), 100)
    with pytest.raises(OSError, match=r"\(a directory\)"):
        read_regular(str(tmp_path))


def test_read_regular_refuses_more_than_the_limit(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 11)
    assert read_regular(str(tmp_path / "big"), 11) == b"x" * 11
    with pytest.raises(OSError, match="larger than 10 bytes"):
        read_regular(str(tmp_path / "big"), 10)
