"""trust.json: nearest recorded ancestor wins, flags decide one run, writes keep both answers."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from miniagent.errors import ConfigError
from miniagent.project.trust import is_trusted, project_has_resources, record_trust, resolve_trust, should_ask
from miniagent.files.home import trust_file

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path):
    folder = tmp_path / "me" / ".miniagent"
    folder.mkdir(parents=True)
    return folder


def test_undecided_until_recorded_then_the_file_holds_real_paths(tmp_path, home):
    project = tmp_path / "src" / "app"
    project.mkdir(parents=True)
    os.symlink(project, tmp_path / "link")
    assert is_trusted(str(project), home) is None
    record_trust(str(tmp_path / "link"), True, home)  # recorded under the real path
    assert json.loads(trust_file(home).read_text()) == {os.path.realpath(project): True}
    assert is_trusted(str(project), home) is True


def test_the_nearest_recorded_ancestor_wins(tmp_path, home):
    fork = tmp_path / "src" / "vendor-fork" / "lib"
    fork.mkdir(parents=True)
    record_trust(str(tmp_path / "src"), True, home)
    record_trust(str(tmp_path / "src" / "vendor-fork"), False, home)
    assert is_trusted(str(tmp_path / "src" / "other"), home) is True
    assert is_trusted(str(fork), home) is False
    assert is_trusted(str(tmp_path / "elsewhere"), home) is None


def test_flags_decide_one_run_and_record_nothing(tmp_path, home):
    project = tmp_path / "app"
    project.mkdir()
    record_trust(str(project), False, home)
    assert resolve_trust(str(project), home, True) is True
    assert resolve_trust(str(project), home, None) is False
    record_trust(str(project), True, home)
    assert resolve_trust(str(project), home, False) is False
    assert resolve_trust(str(project), home, None) is True
    assert json.loads(trust_file(home).read_text()) == {os.path.realpath(project): True}


def test_undecided_means_untrusted_and_the_repl_asks_only_when_there_is_something(tmp_path, home):
    project = tmp_path / "app"
    (project / ".miniagent").mkdir(parents=True)
    assert resolve_trust(str(project), home, None) is False
    assert not project_has_resources(str(project), home) and not should_ask(str(project), home)
    (project / ".miniagent" / "extensions").mkdir()
    assert project_has_resources(str(project), home) and should_ask(str(project), home)
    record_trust(str(project), False, home)
    assert not should_ask(str(project), home)  # answered once, never asked again


def test_the_home_directory_counts_as_global(tmp_path):
    home = tmp_path / ".miniagent"
    (home / "extensions").mkdir(parents=True)
    assert resolve_trust(str(tmp_path), home, None) is True
    assert not project_has_resources(str(tmp_path), home)
    assert not should_ask(str(tmp_path), home)


def test_a_damaged_trust_file_is_named_and_never_overwritten(tmp_path, home):
    trust_file(home).write_text('{"/a": "yes"}')
    with pytest.raises(ConfigError, match="trust.json: must be an object mapping"):
        is_trusted(str(tmp_path), home)
    with pytest.raises(ConfigError):
        record_trust(str(tmp_path), True, home)
    assert trust_file(home).read_text() == '{"/a": "yes"}'


# Each child records its own directories once the parent says go (a line on stdin), so
# both write at the same time; without the lock, one's answers would overwrite the other's.
RECORDER = """
import sys
from miniagent.project.trust import record_trust
home, name = sys.argv[1], sys.argv[2]
print("ready", flush=True)
sys.stdin.readline()
for i in range(60):
    record_trust(f"/projects/{name}{i}", i % 2 == 0, home)
"""


def test_two_processes_recording_at_once_keep_both_answers(home):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    children = [subprocess.Popen([sys.executable, "-c", RECORDER, str(home), name], env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                for name in ("a", "b")]
    for child in children:
        assert child.stdout.readline() == "ready\n"
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    assert [child.wait(timeout=60) for child in children] == [0, 0]
    decisions = json.loads(trust_file(home).read_text())
    assert len(decisions) == 120
    assert decisions["/projects/a58"] is True and decisions["/projects/b59"] is False
