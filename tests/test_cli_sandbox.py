"""--sandbox and --sandbox-net on the command line (issue 32): the start-up line, the
refusal when the kernel cannot enforce a mode, commands started through the launcher,
and write refused outside the roots. The kernel's part is stood in for (a launcher that
marks the command: the `kernel` fixture in tests/conftest.py): sandbox/'s own tests
confine for real."""

import json

from helpers import answer, bash_turn, call, run_cli, write_script


def tool_results(tmp_path):
    session = next((tmp_path / "sessions").glob("*.jsonl"))
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    return [entry["message"] for entry in entries if entry.get("type") == "message"
            and entry["message"]["role"] == "toolResult"]


def test_help_names_the_sandbox_flags():
    shown = run_cli("--help").stdout
    assert "--sandbox {off,read-only,workspace}" in shown and "--sandbox-net" in shown


def test_a_mode_the_kernel_cannot_enforce_refuses_to_start_in_one_line(tmp_path, kernel):
    kernel.problem = "this kernel has no Landlock (Linux 5.13 or later needed)"
    script = write_script(tmp_path, [answer("never")])
    done = run_cli("--sandbox", "workspace", "--provider", "scripted", "--script", script,
                   "--no-session", "-p", "hi", cwd=str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("miniagent: --sandbox workspace: this kernel has no Landlock "
                           "(Linux 5.13 or later needed)\n")


def test_settings_choose_the_mode_the_flag_wins(tmp_path, kernel, private_home):
    kernel.problem = "no Landlock"
    (private_home / "settings.json").write_text(json.dumps({"sandbox": {"mode": "read-only"}}))
    script = write_script(tmp_path, [answer("fine")])
    refused = run_cli("--provider", "scripted", "--script", script, "--no-session", "-p", "hi",
                      cwd=str(tmp_path))
    assert refused.returncode == 2 and "--sandbox read-only: no Landlock" in refused.stderr
    ran = run_cli("--sandbox", "off", "--provider", "scripted", "--script", script,
                  "--no-session", "-p", "hi", cwd=str(tmp_path))
    assert ran.returncode == 0 and ran.stdout == "fine\n" and "sandbox" not in ran.stderr


def test_commands_run_through_the_launcher_and_writes_stay_inside_the_roots(tmp_path, kernel):
    project = tmp_path / "app"
    project.mkdir()
    outside = project / "kept.txt"  # read-only: even the project is outside its roots
    script = write_script(tmp_path, [
        bash_turn("echo confined=$MINIAGENT_CONFINED"),
        {"content": [call("write", path=str(outside), content="x")]},
        answer("done")])
    done = run_cli("--sandbox", "read-only", "--provider", "scripted", "--script", script,
                   "--session-dir", str(tmp_path / "sessions"), "--cwd", str(project),
                   "hi", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "miniagent: sandbox: read-only (writes: a private temp folder; network off)" \
        in done.stderr
    ran, wrote = tool_results(tmp_path)
    assert ran["content"][0]["text"] == "confined=1\n"
    assert wrote["isError"] and "outside the sandbox's writable roots (--sandbox " \
                                "read-only" in wrote["content"][0]["text"]
    assert not outside.exists()
