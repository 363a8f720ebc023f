"""`miniagent eval` through the command line (issue 23): the built-in suite offline with
its references, a wrong reference, shards merged, resuming, limits and timeouts as stop
reasons, a private home, suites from elsewhere, Ctrl-C, and two runs compared."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_server import FakeServer
from helpers import ROOT, run_cli
from pty_driver import Terminal
from miniagent.sandbox import policy_for, unavailable

BASIC = Path(ROOT) / "miniagent" / "evals" / "basic"
FIXTURES = Path(ROOT) / "tests" / "fixtures" / "evals"
TINY = FIXTURES / "tiny"
NOT_DATA = shutil.ignore_patterns("__pycache__")


def results(folder):
    with open(folder / "results.jsonl") as lines:
        return [json.loads(line) for line in lines]


def by_task(records):
    return {record["task"]: record for record in records}


def copy_suite(source, tmp_path, name="suite"):
    target = tmp_path / name
    shutil.copytree(source, target, ignore=NOT_DATA)
    return target


def write_task(suite, name, front_matter, turns, repo_files=None):
    """A task folder: TASK.md with these fields, a repo/, and a reference of `turns`."""
    task = suite / name
    (task / "repo").mkdir(parents=True)
    for path, text in (repo_files or {"README.md": "a task\n"}).items():
        (task / "repo" / path).write_text(text)
    fields = "".join(f"{key}: {value}\n" for key, value in front_matter.items())
    (task / "TASK.md").write_text(f"---\n{fields}---\nDo the thing.\n")
    (task / "reference.json").write_text(json.dumps(turns))
    return task


def bash(command):
    return {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": command}}]}


def say(text):
    return {"content": [{"type": "text", "text": text}]}


def write(path, content):
    return {"content": [{"type": "toolCall", "name": "write",
                         "arguments": {"path": path, "content": content}}]}


def test_the_basic_suite_passes_offline_with_its_references(tmp_path):
    out = tmp_path / "out"
    done = run_cli("eval", "basic", "--provider", "scripted", "--out", str(out), "-j", "2",
                   bound=120)
    assert done.returncode == 0, done.stderr
    records = results(out)
    assert len(records) == 8 and all(record["passed"] for record in records)
    for record in records:  # each trial is a real session, read like any other
        assert record["stop_reason"] == "stop" and record["turns"] >= 2
        assert run_cli("stats", str(out / record["session"])).returncode == 0
    assert "overall" in done.stdout and "8/8" in done.stdout
    assert done.stderr.count("passed  stop") == 8  # one progress line per trial
    confined = unavailable(policy_for("workspace", str(tmp_path))) is None
    assert {record["sandbox"] for record in records} == {"workspace" if confined else "off"}
    assert f"sandbox {'workspace' if confined else 'off'}" in done.stdout  # the report's line


def test_a_wrong_reference_fails_its_task_and_no_other(tmp_path):
    suite = tmp_path / "suite"  # two tasks of basic: one spoiled, one as shipped
    for name in ("fix-typo-bug", "rename-symbol"):
        shutil.copytree(BASIC / name, suite / name, ignore=NOT_DATA)
    shutil.copy(FIXTURES / "wrong-reference.json", suite / "fix-typo-bug" / "reference.json")
    out = tmp_path / "out"
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted", "--out", str(out),
                   "-j", "2")
    assert done.returncode == 0, done.stderr  # the suite ran: a failed task is a result
    records = by_task(results(out))
    assert records["fix-typo-bug"]["passed"] is False
    assert records["fix-typo-bug"]["stop_reason"] == "stop"  # the agent thought it was done
    assert records["rename-symbol"]["passed"] is True
    assert "1/2" in done.stdout
    log = (out / records["fix-typo-bug"]["log"]).read_text()
    assert "['apples', 'pears', 'plums', 'figs'] != ['pears', 'plums']" in log  # why


def test_two_shards_report_the_totals_of_one_run(tmp_path):
    whole, first, second = tmp_path / "whole", tmp_path / "one", tmp_path / "two"
    common = ("eval", str(TINY), "--approve", "--provider", "scripted", "--trials", "2")
    assert run_cli(*common, "--out", str(whole), "-j", "2").returncode == 0
    assert run_cli(*common, "--out", str(first), "--shard", "1/2").returncode == 0
    assert run_cli(*common, "--out", str(second), "--shard", "2/2").returncode == 0
    assert (len(results(first)), len(results(second))) == (2, 2)
    pairs = {(r["task"], r["trial"]) for r in results(first) + results(second)}
    assert len(pairs) == 4  # the two shards share no trial
    merged = run_cli("eval", "report", str(first), str(second))
    alone = run_cli("eval", "report", str(whole))
    assert merged.returncode == alone.returncode == 0
    overall = [line for line in merged.stdout.splitlines() if line.startswith("overall")]
    assert overall == [line for line in alone.stdout.splitlines() if line.startswith("overall")]
    assert "4/4" in overall[0]


def test_an_existing_results_folder_is_resumed(tmp_path):
    out = tmp_path / "out"
    args = ("eval", str(TINY), "--approve", "--provider", "scripted", "--out", str(out))
    assert run_cli(*args).returncode == 0
    again = run_cli(*args, "--trials", "2")
    assert again.returncode == 0
    assert "2 of 4 trials already done" in again.stderr
    assert sorted((r["task"], r["trial"]) for r in results(out)) == [
        ("fix-add", 1), ("fix-add", 2), ("write-greeting", 1), ("write-greeting", 2)]


def test_limits_timeouts_a_cut_off_answer_and_a_failed_setup_are_told_apart(tmp_path):
    suite = tmp_path / "suite"
    write_task(suite, "slow", {"check": "true", "timeout": 1},
               [bash("sleep 30"), say("done")])
    write_task(suite, "chatty", {"check": "true", "max_turns": 1},
               [bash("echo one"), bash("echo two"), say("done")])
    write_task(suite, "broken", {"check": "true", "setup": "echo no such tool >&2; exit 3"},
               [say("done")])
    write_task(suite, "cut", {"check": "true"}, [dict(say("The answer is"), stopReason="length")])
    out = tmp_path / "out"
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted", "--out", str(out),
                   "-j", "3", bound=60)
    records = by_task(results(out))
    assert records["slow"]["stop_reason"] == "timeout" and records["slow"]["seconds"] < 20
    assert records["chatty"]["stop_reason"] == "max_turns"
    assert records["chatty"]["passed"]  # the check decides, whatever stopped the agent
    assert records["cut"]["stop_reason"] == "length"  # exit 0, but the answer is not whole
    assert records["broken"]["failure"] == "setup exited with status 3: --- setup --- " \
                                           "no such tool"
    assert records["broken"]["session"] is None and not records["broken"]["passed"]
    assert done.returncode == 1  # a trial failed for a reason outside the agent


def test_a_trial_stopped_at_its_timeout_keeps_the_session_it_had_so_far(tmp_path):
    suite = tmp_path / "suite"  # the model never answers: killed at once, nothing was left
    write_task(suite, "hung", {"check": "true", "timeout": 5},
               [dict(say("Let me think"), delayMs=120000)])
    out = tmp_path / "out"
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted", "--out", str(out),
                   bound=60)
    assert done.returncode == 0, done.stderr
    [record] = results(out)
    assert record["stop_reason"] == "timeout" and record["seconds"] < 30
    assert record["session"] == "sessions/hung/trial-1.jsonl" and record["turns"] == 1
    entries = [json.loads(line) for line in (out / record["session"]).read_text().splitlines()]
    assert entries[-1]["message"]["stopReason"] == "aborted"  # the reply it was waiting for
    assert "miniagent: stopped; the run was aborted." in (out / record["log"]).read_text()


def test_a_module_the_agent_leaves_in_the_copy_cannot_stand_in_for_what_a_check_imports(tmp_path):
    suite = tmp_path / "suite"  # N06: a unittest.py of the agent's "passed" any unittest check
    shutil.copytree(BASIC / "fix-typo-bug", suite / "fix-typo-bug", ignore=NOT_DATA)
    (suite / "fix-typo-bug" / "reference.json").write_text(json.dumps(
        [write("unittest.py", "raise SystemExit(0)\n"), say("done")]))
    script = write_task(suite, "script-check", {"check": '"$PYTHON" check_it.py'},
                        [write("json.py", "raise SystemExit(0)\n"), say("done")])
    (script / "check").mkdir()
    (script / "check" / "check_it.py").write_text("import json, sys\nsys.exit(1)\n")
    code = """"$PYTHON" -c 'import answer; assert answer.VALUE == 42'"""
    write_task(suite, "code-check", {"check": code}, [write("answer.py", "VALUE = 42\n"), say("done")])
    out = tmp_path / "out"
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted", "--out", str(out),
                   "-j", "3")
    assert done.returncode == 0, done.stderr
    records = by_task(results(out))
    assert records["fix-typo-bug"]["passed"] is False
    assert records["script-check"]["passed"] is False
    assert records["code-check"]["passed"] is True  # the copy's own modules are still found


def test_a_trial_sees_the_users_models_json_and_nothing_else_of_the_home(tmp_path, home):
    with FakeServer([{"content": [{"type": "toolCall", "name": "write", "arguments": {
            "path": "greeting.txt", "content": "hello\n"}}]}, say("Written.")]) as srv:
        (home / "models.json").write_text(json.dumps({"providers": {"local": {
            "baseUrl": srv.base_url + "/v1", "api": "openai-completions", "apiKey": "none",
            "models": [{"id": "tiny-model", "contextWindow": 32768}]}}}))
        (home / "extensions").mkdir()  # an extension of the user's would leave this file
        marker = tmp_path / "extension-ran"
        (home / "extensions" / "mark.py").write_text(
            f"def setup(api):\n    open({str(marker)!r}, 'w').close()\n")
        suite = tmp_path / "suite"
        shutil.copytree(TINY / "write-greeting", suite / "write-greeting", ignore=NOT_DATA)
        out = tmp_path / "out"
        done = run_cli("eval", str(suite), "--approve", "--provider", "local", "--model",
                       "tiny-model", "--out", str(out))
    assert done.returncode == 0, done.stderr
    [record] = results(out)
    assert record["passed"] and (record["provider"], record["model"]) == ("local", "tiny-model")
    assert not marker.exists()  # the private home has no extensions


def test_a_suite_from_elsewhere_runs_only_once_trusted(tmp_path, home):
    suite = copy_suite(TINY, tmp_path)
    out = tmp_path / "out"
    refused = run_cli("eval", str(suite), "--provider", "scripted", "--out", str(out))
    assert refused.returncode == 2 and not out.exists()
    assert "pass --approve" in refused.stderr and str(suite) in refused.stderr
    (home / "trust.json").write_text(json.dumps({str(suite.resolve()): True}))
    assert run_cli("eval", str(suite), "--provider", "scripted", "--out", str(out)).returncode == 0


def test_a_bad_task_file_is_one_line_naming_the_file_and_the_field(tmp_path):
    suite = tmp_path / "suite"
    task = write_task(suite, "typo", {"check": "true", "max_turn": 3}, [say("hi")])
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted")
    assert done.returncode == 2
    assert done.stderr.strip() == f"miniagent: {task / 'TASK.md'}: max_turn: unknown field " \
        f"(known: name, prompt, check, setup, timeout, max_turns, max_cost)"
    (task / "TASK.md").write_text("---\ncheck: true\ntimeout: soon\n---\nDo it.\n")
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted")
    assert done.stderr.strip().endswith("TASK.md: timeout: must be a positive float, got 'soon'")


def test_ctrl_c_keeps_the_finished_trials_and_leaves_no_process(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(TINY / "write-greeting", suite / "a-quick", ignore=NOT_DATA)
    pid_file = tmp_path / "slow.pid"
    write_task(suite, "b-slow", {"check": "true"},
               [bash(f"echo $$ > {pid_file}; exec sleep 120"), say("done")])
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", "miniagent", "eval", str(suite), "--approve", "--provider",
         "scripted", "--out", str(out), "-j", "2"],
        cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    for line in process.stderr:  # the quick trial is done and the slow one is sleeping
        if line.startswith("[1/2] a-quick #1"):
            break
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text().strip():  # written by the bash call
        assert process.poll() is None and time.monotonic() < deadline
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=10) == 130
    rest = process.stderr.read()
    process.stderr.close()
    assert "1 finished trial kept" in rest
    assert [record["task"] for record in results(out)] == ["a-quick"]
    sleeper = int(pid_file.read_text())
    assert not os.path.exists(f"/proc/{sleeper}") or \
        "Z" in Path(f"/proc/{sleeper}/stat").read_text().split()[2]


def test_report_against_another_run_shows_the_differences_and_writes_a_page(tmp_path):
    good, bad = tmp_path / "good", tmp_path / "bad"
    args = ("eval", str(TINY), "--approve", "--provider", "scripted")
    assert run_cli(*args, "--out", str(good)).returncode == 0
    wrong = copy_suite(TINY, tmp_path / "other", "tiny")  # the same suite, one task spoiled
    shutil.copy(TINY / "fix-add" / "reference.json", wrong / "write-greeting" / "reference.json")
    assert run_cli("eval", str(wrong), "--approve", "--provider", "scripted",
                   "--out", str(bad)).returncode == 0
    page = tmp_path / "report.html"
    done = run_cli("eval", "report", str(good), "--against", str(bad), "--html", str(page))
    assert done.returncode == 0, done.stderr
    [row] = [line for line in done.stdout.splitlines() if line.startswith("write-greeting")]
    assert "+1.00" in row
    [row] = [line for line in done.stdout.splitlines() if line.startswith("fix-add")]
    assert "=" in row
    html = page.read_text()
    assert "write-greeting" in html and "trial-1.html" in html
    assert (good / "sessions" / "write-greeting" / "trial-1.html").is_file()


def test_report_of_a_folder_without_results_is_a_usage_error(tmp_path):
    done = run_cli("eval", "report", str(tmp_path))
    assert done.returncode == 2 and "no results.jsonl" in done.stderr


def test_an_agent_that_cannot_start_stops_the_run_with_its_reason(tmp_path):
    out = tmp_path / "out"
    done = run_cli("eval", str(TINY), "--approve", "--provider", "no-such-provider",
                   "--out", str(out), "--trials", "3")
    assert done.returncode == 2
    [record] = results(out)  # one trial told it; the other five were not started
    assert record["failure"].startswith("the agent could not start (exit status 2): ")
    assert "no-such-provider" in record["failure"]
    assert "stopped: every trial would fail the same way" in done.stderr


def test_a_report_page_that_cannot_be_written_is_one_line(tmp_path):
    out = tmp_path / "out"
    assert run_cli("eval", str(TINY), "--approve", "--provider", "scripted",
                   "--out", str(out)).returncode == 0
    page = tmp_path / "no-such-folder" / "report.html"
    done = run_cli("eval", "report", str(out), "--html", str(page))
    assert done.returncode == 1 and not page.exists()
    assert done.stderr.strip().startswith("miniagent eval report: ")
    assert len(done.stderr.strip().splitlines()) == 1


def test_on_a_terminal_a_suite_from_elsewhere_is_asked_about_once(tmp_path, home):
    suite = copy_suite(TINY, tmp_path)
    out = tmp_path / "out"
    args = ["eval", str(suite), "--provider", "scripted", "--out", str(out)]
    with Terminal(args, cwd=str(tmp_path)) as term:
        term.expect("each task's setup and check")
        term.send("y\r")
        term.expect("overall")
        assert term.wait() == 0
    assert json.loads((home / "trust.json").read_text()) == {str(suite.resolve()): True}
    with Terminal(args, cwd=str(tmp_path)) as term:  # recorded: not asked again
        term.expect("overall")
        assert term.wait() == 0
        assert "setup and check" not in term.text


def test_control_codes_in_a_results_file_reach_the_terminal_as_symbols(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text(json.dumps({
        "suite": "s", "task": "evil\x1b]0;owned\x07", "trial": 1, "passed": False,
        "stop_reason": "stop", "failure": "boom \x1b[2J", "cost": 0}) + "\n")
    done = run_cli("eval", "report", str(out))
    assert done.returncode == 0
    assert "\x1b" not in done.stdout and "\u241b]0;owned" in done.stdout


def test_a_task_name_cannot_lead_out_of_the_results_folder(tmp_path):
    suite = tmp_path / "suite"
    task = write_task(suite, "climber", {"check": "true", "name": "../../outside"}, [say("hi")])
    done = run_cli("eval", str(suite), "--approve", "--provider", "scripted",
                   "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and not (tmp_path / "outside").exists()
    assert f"{task / 'TASK.md'}: name: must be letters" in done.stderr


def test_a_results_file_that_cannot_be_read_is_one_line(tmp_path):
    out = tmp_path / "out"
    (out / "results.jsonl").mkdir(parents=True)  # where the file should be
    done = run_cli("eval", str(TINY), "--approve", "--provider", "scripted", "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == \
        f"miniagent: {out / 'results.jsonl'}: cannot be read (not a regular file (a directory))"


def test_a_full_disk_stops_the_run_in_one_line(tmp_path, monkeypatch):
    from miniagent.evals import runner

    def no_space(folder, record):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "append_result", no_space)
    out = tmp_path / "out"
    done = run_cli("eval", str(TINY), "--approve", "--provider", "scripted", "--out", str(out),
                   "-j", "2")
    assert done.returncode == 1
    assert done.stderr.count(f"stopped: {out} cannot be written (No space left on device)") == 1
    assert "Traceback" not in done.stderr


def test_without_the_sandbox_trials_run_unconfined_and_say_so_once(tmp_path, monkeypatch):
    from miniagent.subcommands import eval_command
    monkeypatch.setattr(eval_command, "unavailable", lambda policy: "no Landlock here")
    out = tmp_path / "out"
    done = run_cli("eval", str(TINY), "--approve", "--provider", "scripted", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("miniagent eval: trials run unconfined (--sandbox off): "
                             "no Landlock here") == 1
    assert {record["sandbox"] for record in results(out)} == {"off"}


def test_the_agent_and_the_check_run_under_the_trials_sandbox(tmp_path, monkeypatch):
    from miniagent.evals import trial
    from miniagent.evals.tasks import find_suite
    task = find_suite(str(TINY)).tasks[0]
    plan = trial.Plan("tiny", tmp_path, [], True, sandbox="workspace")
    command = trial.agent_command(task, plan, tmp_path / "work", tmp_path / "s.jsonl")
    assert command[command.index("--sandbox") + 1] == "workspace"
    monkeypatch.setattr(trial, "launcher_argv", lambda policy: ("confined", *policy.writable))
    launcher = trial.check_launcher(plan, tmp_path / "work", tmp_path)
    assert launcher[0] == "confined" and str(tmp_path / "work") in launcher
    assert str(tmp_path) in launcher  # the trial's home and $PYTHON are inside its roots
    assert trial.check_launcher(trial.Plan("tiny", tmp_path, [], True), tmp_path, tmp_path) == ()
