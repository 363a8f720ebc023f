"""pi 1.6's session files through the command line: distinct ids in `sessions`, each one
usable with stats, export, script and --session; what the model gets after a
context_edit; usage entries counted."""

import json
import os
import shutil

import pytest

from fake_server import FakeServer
from helpers import FIXTURES, answer, run_cli, write_script
from miniagent.session.store import session_dir_for

PI16 = FIXTURES / "pi-run" / "pi-1.6.0"
DROP_ID = "01a23412-7a49-75bd-ab6a-a438c7743e50"   # drop-result: a context_edit, a usage entry
PRINT_ID = "01a23412-1227-75bd-9f18-c07e8cf5d902"  # print: one tool call


@pytest.fixture
def project(tmp_path, private_home):
    """A project whose session folder holds two of pi 1.6's sessions, made within the
    same minute (their ids share the first 8 digits)."""
    cwd = tmp_path / "proj"
    cwd.mkdir()
    folder = session_dir_for(str(cwd))
    os.makedirs(folder)
    for name, session_id in (("drop-result", DROP_ID), ("print", PRINT_ID)):
        shutil.copy(PI16 / f"{name}.session.jsonl",
                    os.path.join(folder, f"2026-12-02T00-05-29-257Z_{session_id}.jsonl"))
    return cwd


def test_sessions_shows_distinct_ids_each_usable_by_every_command(project, tmp_path):
    listing = run_cli("sessions", cwd=str(project))
    assert listing.returncode == 0, listing.stderr
    shown = sorted(line.split()[0] for line in listing.stdout.splitlines()
                   if not line.startswith(" "))
    assert shown == ["01a23412-1", "01a23412-7"]
    stats = run_cli("stats", "01a23412-7", "--json", cwd=str(project))
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["files"][0]["path"].endswith(DROP_ID + ".jsonl")
    page = run_cli("export", "01a23412-1", "-o", str(tmp_path / "out.html"), cwd=str(project))
    assert page.returncode == 0 and (tmp_path / "out.html").is_file(), page.stderr
    script = run_cli("script", "01a23412-1", "-o", str(tmp_path / "s.json"), cwd=str(project))
    assert script.returncode == 0 and (tmp_path / "s.json").is_file(), script.stderr
    resumed = run_cli("--script", write_script(tmp_path, [answer("resumed")]),
                      "--session", "01a23412-1", "-p", "again", cwd=str(project))
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stderr


def test_an_ambiguous_prefix_is_one_line_saying_how_many_matched(project):
    for command in (["stats", "01a23412"], ["export", "01a234"], ["-p", "x", "--session", "01a2"]):
        result = run_cli(*command, cwd=str(project))
        assert result.returncode == 1
        assert result.stderr.count("\n") == 1 and "matches 2 sessions" in result.stderr
