"""launch.py and launcher_argv: a command starts confined, or does not start at all;
and real work (git, pytest, pip into a venv, $TMPDIR) still works in the project."""

import json
import os
import subprocess
import sys
import zipfile

import pytest

from miniagent.sandbox import Policy, launch, launcher_argv, landlock, policy_for


def test_parse_reads_roots_network_temp_and_the_command():
    assert launch.parse(["--write", "/src", "--", "ls"]) == (["/src"], False, None, ["ls"])
    assert launch.parse(["--write", "/a", "--write", "/b", "--net", "--tmp", "/t", "--", "sh", "-c", "x"]) == (
        ["/a", "/b"], True, "/t", ["sh", "-c", "x"])
    for wrong in (["--write"], ["--frobnicate", "--", "ls"], ["--write", "/a", "--"], ["--write", "/a"]):
        with pytest.raises(ValueError):
            launch.parse(wrong)


def test_launcher_argv_hands_the_policy_over(tmp_path):
    assert launcher_argv(Policy()) == ()
    argv = launcher_argv(Policy("workspace", ("/src", "/tmp"), True))
    assert argv[:3] == (sys.executable, "-I", "-S")
    assert argv[6:] == ("--write", "/src", "--write", "/tmp", "--net", "--")
    read_only = policy_for("read-only", str(tmp_path))
    assert launcher_argv(read_only)[-3:] == ("--tmp", read_only.writable[0], "--")


def test_a_failed_restriction_never_runs_the_command(box, monkeypatch):
    monkeypatch.setenv(landlock.TEST_ABI, "0")
    result = box.run("touch ran")
    assert result.returncode == 126
    assert result.stderr == "miniagent sandbox: the command was not run: this kernel has no Landlock\n"
    assert not (box.project / "ran").exists()


def test_a_missing_command_is_127_with_one_line(box):
    result = subprocess.run([*launcher_argv(box.policy()), "no-such-command-here"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 127
    assert result.stderr == "miniagent sandbox: cannot run no-such-command-here: No such file or directory\n"


def test_a_project_cannot_replace_the_launcher(box):
    """The launcher runs isolated: a `miniagent` package in the project (the command's
    working folder) is not the one imported."""
    fake = box.project / "miniagent" / "sandbox"
    fake.mkdir(parents=True)
    (box.project / "miniagent" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "launch.py").write_text("import os, sys\ndef main(args):\n    os.execvp(args[-1], args[-1:])\n")
    result = box.run(f"touch {box.outside}/escaped")
    assert result.returncode != 0
    assert box.outside_files() == []


def test_read_only_commands_get_the_private_temp_folder(tmp_path):
    policy = policy_for("read-only", str(tmp_path))
    result = subprocess.run([*launcher_argv(policy), "/bin/sh", "-c", 'echo s > "$TMPDIR/s" && echo "$TMPDIR"'],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.stdout == policy.writable[0] + "\n", result.stderr


def test_git_init_and_commit_work_in_the_project(box):
    result = box.run("git init -q && echo one > a.txt && git add a.txt"
                     " && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s")
    assert result.stdout == "first\n", result.stderr


def test_pytest_runs_in_the_project(box):
    (box.project / "pytest.ini").write_text("[pytest]\n")
    (box.project / "test_tiny.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    result = box.run(f"{sys.executable} -m pytest -q -p no:xdist test_tiny.py", env={"PYTEST_ADDOPTS": ""})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert (box.project / ".pytest_cache").is_dir()


def test_pip_installs_a_local_wheel_into_a_venv_in_the_project(box):
    wheel = box.project / "tiny-0.1-py3-none-any.whl"
    make_wheel(wheel)
    result = box.run(f"{sys.executable} -m venv venv && venv/bin/python -m pip install -q --no-index {wheel.name}"
                     " && venv/bin/python -c 'import tiny; print(tiny.ANSWER)'",
                     env={"PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert result.stdout == "42\n", result.stderr
    assert box.outside_files() == []


def make_wheel(path):
    """The smallest wheel pip installs: a module and its .dist-info (a wheel is a zip)."""
    info = "tiny-0.1.dist-info"
    files = {
        "tiny.py": "ANSWER = 42\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: tiny\nVersion: 0.1\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)


def test_read_only_modes_private_temp_folder_is_gone_when_miniagent_exits(tmp_path):
    from helpers import run_cli_process, write_script
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash",
                      "arguments": {"command": "echo kept > $TMPDIR/scratch; echo $TMPDIR"}}]},
        {"content": [{"type": "text", "text": "done"}]}])
    run = run_cli_process("--sandbox", "read-only", "--provider", "scripted", "--script", script,
                          "--no-session", "--mode", "json", "go", cwd=str(project))
    assert run.returncode == 0, run.stderr
    ended = [json.loads(line) for line in run.stdout.splitlines()
             if '"tool_execution_end"' in line][0]
    folder = ended["result"]["content"][0]["text"].split()[-1]
    assert "miniagent-sandbox-" in folder and not os.path.exists(folder)
