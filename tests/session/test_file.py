"""The session file's bytes: one write per line, torn lines, a second writer, a full disk."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from miniagent.session.tree import Session
from miniagent.session.file import append_lines, to_line
from miniagent.errors import SessionError

REPO = str(Path(__file__).resolve().parents[2])
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z",
          "cwd": "/p"}


def entry(entry_id, parent, text):
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": "2025-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}}


def run_child(code):
    """Run Python code in a child process that imports miniagent from this checkout."""
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_torn_last_line_warns_and_the_next_append_starts_on_a_fresh_line(tmp_path):
    path = tmp_path / "s.jsonl"
    old = (to_line(HEADER) + to_line(entry("aaaaaaaa", None, "hi")) + '{"type":"mess').encode()
    path.write_bytes(old)
    session = Session.open(str(path))
    assert session.warnings == [f"{path}:3: skipped a malformed line"]
    assert [e["id"] for e in session.entries] == ["aaaaaaaa"]

    session.append_message({"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": 2})
    data = path.read_bytes()
    assert data.startswith(old + b"\n")
    new_lines = data[len(old) + 1:].split(b"\n")
    assert new_lines[-1] == b"" and json.loads(new_lines[0])["parentId"] == "aaaaaaaa"
    again = Session.open(str(path))
    assert [e["id"] for e in again.entries] == ["aaaaaaaa", session.leaf_id]
    assert again.build_context().messages[-1]["content"][0]["text"] == "next"


def test_a_line_cut_inside_a_character_spoils_only_itself(tmp_path):
    path = tmp_path / "s.jsonl"
    whole = to_line(HEADER).encode() + to_line(entry("aaaaaaaa", None, "é")).encode()
    path.write_bytes(whole + to_line(entry("bbbbbbbb", "aaaaaaaa", "é")).encode()[:-4])
    session = Session.open(str(path))
    assert len(session.entries) == 1 and len(session.warnings) == 1


def test_two_processes_appending_never_interleave_within_a_line(tmp_path):
    path = tmp_path / "shared.jsonl"
    append_lines(str(path), [HEADER])
    writer = (
        "import sys\n"
        "from miniagent.session.file import append_lines\n"
        "name = sys.argv[1]\n"
        "for i in range(500):\n"
        "    append_lines(sys.argv[2], [{'type': 'custom', 'id': f'{name}{i}', 'parentId': None,\n"
        "                               'timestamp': '', 'customType': name, 'data': name * 20000}])\n")
    env = dict(os.environ, PYTHONPATH=REPO)
    children = [subprocess.Popen([sys.executable, "-c", writer, name, str(path)], env=env)
                for name in ("a", "b")]
    assert [child.wait(timeout=60) for child in children] == [0, 0]
    written = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert sorted(e["id"] for e in written) == sorted([f"a{i}" for i in range(500)] + [f"b{i}" for i in range(500)])
    assert all(e["data"] == e["customType"] * 20000 for e in written)


def test_two_processes_creating_one_session_file_leave_one_header(tmp_path):
    # Both open the missing file (each sees no file, so each holds a new header), say so,
    # and wait on stdin; only when both have looked does the test let them write.
    path = tmp_path / "new.jsonl"
    creator = (
        "import sys\n"
        "from miniagent.session.tree import Session\n"
        "session = Session.open(sys.argv[1])\n"
        "print('looked', flush=True)\n"
        "sys.stdin.readline()\n"
        "for role in ('user', 'assistant'):\n"
        "    session.append_message({'role': role, 'content': [], 'timestamp': 1})\n")
    env = dict(os.environ, PYTHONPATH=REPO)
    children = [subprocess.Popen([sys.executable, "-c", creator, str(path)], env=env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                for _ in range(2)]
    assert [child.stdout.readline() for child in children] == ["looked\n"] * 2
    assert not path.exists()
    for child in children:
        child.stdin.write("go\n")
        child.stdin.close()
    assert [child.wait(timeout=60) for child in children] == [0, 0]
    types = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    assert types == ["session"] + ["message"] * 4
    assert len(Session.open(str(path)).entries) == 4


def test_a_full_disk_raises_one_line_and_leaves_the_file_whole(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(to_line(HEADER).encode() + to_line(entry("aaaaaaaa", None, "hi")).encode())
    before = path.read_bytes()
    # The child may not grow files past 100 more bytes: its next, longer line is cut short
    # by the kernel (EFBIG), as on a full disk.
    code = (
        "import resource, signal, sys\n"
        "from miniagent.errors import SessionError\n"
        "from miniagent.session.tree import Session\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "session = Session.open(sys.argv[1])\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 100}, resource.RLIM_INFINITY))\n"
        "try:\n"
        "    session.append_message({'role': 'user', 'content': 'x' * 1000, 'timestamp': 1})\n"
        "except SessionError as error:\n"
        "    print(error)\n")
    result = run_child(code.replace("sys.argv[1]", repr(str(path))))
    assert result.stdout == f"cannot write session {path}: File too large\n", result.stderr
    assert path.read_bytes() == before


def test_an_unwritable_place_is_a_one_line_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(SessionError, match=r"^cannot write session .*file/x/s\.jsonl: Not a directory$"):
        append_lines(str(tmp_path / "file" / "x" / "s.jsonl"), [HEADER])


def test_lines_are_compact_and_keep_non_ascii_text():
    assert to_line({"a": "é", "b": [1, 2]}) == '{"a":"é","b":[1,2]}\n'


def test_a_lone_surrogate_is_written_as_pi_writes_it():
    # JSON.stringify: the surrogate as the six characters \ud800, the rest as UTF-8.
    line = to_line({"text": "é \ud800 😀", "k\udc80": 1}).encode("utf-8")
    assert line == b'{"text":"\xc3\xa9 \\ud800 \xf0\x9f\x98\x80","k\\udc80":1}\n'


def test_an_absurdly_nested_line_is_skipped_not_a_crash(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(to_line(HEADER) + "[" * 100_000 + "\n")
    assert Session.open(str(path)).warnings == [f"{path}:2: skipped a malformed line"]
