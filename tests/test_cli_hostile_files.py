"""Files from elsewhere through the command line: FIFOs and devices among the sessions,
config files that are not what their names say, session paths that cannot be written
(issue 17, items 11, 15 and 19)."""

import glob
import json
import os
import resource
import signal
import subprocess
import sys

import pytest

from fake_server import FakeServer
from helpers import ROOT, answer, run_cli, write_script

BOUND = 10  # seconds: each command here ends at once; a hang would wait forever


def run_bounded(*args, cwd, env=None):
    """`miniagent ARGS`, in this process, that must end within BOUND seconds (Hung
    fails the test: that is the hang)."""
    return run_cli(*args, cwd=cwd, env=env, bound=BOUND)


def told(stderr):
    """stderr's lines without the note that model "m" of the fake server is unknown."""
    return [line for line in stderr.splitlines() if "is not in the registry" not in line]


@pytest.fixture
def hostile_folder(tmp_path, private_home):
    """This project's session folder holding one real session, a FIFO and a link to
    /dev/zero, both named like sessions."""
    first = run_bounded("--script", write_script(tmp_path, [answer("one")]), "-p", "hello",
                        cwd=str(tmp_path))
    assert first.returncode == 0, first.stderr
    [real] = glob.glob(os.path.join(str(private_home), "sessions", "*", "*.jsonl"))
    folder = os.path.dirname(real)
    fifo, zero = os.path.join(folder, "fifo.jsonl"), os.path.join(folder, "zero.jsonl")
    os.mkfifo(fifo)
    os.symlink("/dev/zero", zero)
    return real, fifo, zero


def test_sessions_and_c_and_search_skip_a_fifo_and_dev_zero(tmp_path, hostile_folder):
    real, fifo, zero = hostile_folder
    listing = run_bounded("sessions", "--json", cwd=str(tmp_path))
    assert listing.returncode == 0, listing.stderr
    assert [row["file"] for row in json.loads(listing.stdout)] == [real]
    resumed = run_bounded("--script", write_script(tmp_path, [answer("two")]), "-c", "-p", "more",
                          cwd=str(tmp_path))
    assert resumed.returncode == 0 and resumed.stdout == "two\n", resumed.stderr
    found = run_bounded("sessions", "search", "hello", cwd=str(tmp_path))
    assert found.returncode == 0 and "hello" in found.stdout, found.stderr


@pytest.mark.parametrize("command", [["stats"], ["export", "-o", "out.html"]])
@pytest.mark.parametrize("which", ["fifo", "zero"])
def test_stats_and_export_refuse_a_fifo_or_dev_zero_in_one_line(tmp_path, hostile_folder,
                                                                command, which):
    path = hostile_folder[1] if which == "fifo" else hostile_folder[2]
    result = run_bounded(*command[:1], path, *command[1:], cwd=str(tmp_path))
    assert result.returncode == 1
    assert path in result.stderr and "not a regular file" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_session_flag_on_a_fifo_is_refused_before_any_request(tmp_path):
    fifo = str(tmp_path / "s.jsonl")
    os.mkfifo(fifo)
    result = run_bounded("--script", write_script(tmp_path, [answer("x")]), "--session", fifo,
                         "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 1 and result.stdout == ""
    assert fifo in result.stderr and "not a regular file" in result.stderr


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_trust_json_that_is_not_a_file_does_not_hang_the_start(tmp_path, private_home, target):
    trust = os.path.join(str(private_home), "trust.json")
    if target == "fifo":
        os.mkfifo(trust)
    else:
        os.symlink(target, trust)
    (tmp_path / ".miniagent").mkdir()
    (tmp_path / ".miniagent" / "SYSTEM.md").write_text("be brief")  # makes trust matter
    result = run_bounded("--script", write_script(tmp_path, [answer("x")]), "-p", "hi",
                         cwd=str(tmp_path))
    assert result.returncode == 2, result.stderr
    assert trust in result.stderr and "not a regular file" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_huge_models_json_is_refused_naming_the_file(tmp_path, private_home):
    models = os.path.join(str(private_home), "models.json")
    with open(models, "w") as file:
        file.write('{"providers": {}, "pad": "' + "x" * (2 * 1024 * 1024) + '"}')
    result = run_bounded("--list-models", cwd=str(tmp_path))
    assert result.returncode == 2
    assert models in result.stderr and "larger than" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("name", ["models.json", "settings.json"])
@pytest.mark.parametrize("text, says", [
    ('{"x": ' + "9" * 5000 + "}", "a number too long to read"),
    ("[" * 100000 + "]" * 100000, "nested too deeply")])
def test_malformed_config_is_one_line_naming_the_file_exit_2(tmp_path, private_home, name,
                                                             text, says):
    path = os.path.join(str(private_home), name)
    with open(path, "w") as file:
        file.write(text)
    run = ["--list-models"] if name == "models.json" else [
        "--script", write_script(tmp_path, [answer("x")]), "-p", "hi"]
    result = run_bounded(*run, cwd=str(tmp_path))
    assert result.returncode == 2
    assert result.stderr == f"miniagent: {path}: invalid JSON: {says}\n"


# --- A session path that cannot be written (item 19) ------------------------------------


@pytest.mark.parametrize("where", ["session-dir is a file", "session under a file"])
def test_an_unusable_session_path_is_refused_before_any_request(tmp_path, where):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder")
    place = (["--session-dir", str(blocker)] if where == "session-dir is a file"
             else ["--session", str(blocker / "s.jsonl")])
    with FakeServer([answer("paid for")]) as srv:
        result = run_bounded("--base-url", srv.base_url + "/v1", "--model", "m", *place,
                             "-p", "hi", cwd=str(tmp_path))
        assert srv.requests == []
    assert result.returncode == 1 and result.stdout == ""
    [line] = told(result.stderr)
    assert line.startswith("miniagent: cannot write session ") and line.endswith(
        f"{blocker} is a file, not a folder")


def test_an_answer_received_is_printed_even_when_the_session_write_fails(tmp_path):
    def tiny_files():  # runs in the child: no file may grow past 100 bytes
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full disk sends no signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
    with FakeServer([answer("paid for")]) as srv:
        # A size limit belongs to a process: this one runs as a process of its own.
        result = subprocess.run(
            [sys.executable, "-m", "miniagent", "--base-url", srv.base_url + "/v1", "--model",
             "m", "-p", "hi"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
            cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=ROOT), timeout=BOUND,
            preexec_fn=tiny_files)
    assert result.stdout == "paid for\n"
    assert result.returncode == 1
    [line] = told(result.stderr)
    assert line.startswith("miniagent: cannot write session ") and "File too large" in line
    assert "make room" not in line


def test_a_fifo_named_skill_md_or_a_device_named_agents_md_does_not_hang_the_start(
        tmp_path, private_home):
    """A skill folder and a project hold names that promise text: a FIFO behind SKILL.md,
    a link to /dev/zero behind AGENTS.md. The run skips them and answers."""
    skill = private_home / "skills" / "stuck"
    skill.mkdir(parents=True)
    os.mkfifo(str(skill / "SKILL.md"))
    os.symlink("/dev/zero", str(tmp_path / "AGENTS.md"))
    done = run_bounded("--script", write_script(tmp_path, [answer("fine")]), "-p", "hi",
                       cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fine"
    assert "SKILL.md" in done.stderr and "not a regular file" in done.stderr
