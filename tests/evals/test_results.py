"""results.jsonl: one line per trial, appended whole, read back past torn lines, merged."""

import json

from miniagent.evals.results import (RESULTS_FILE, append_result, done_trials, merge_results,
                                     read_results)


def record(task, trial, passed=True, failure=None, suite="basic", **fields):
    return dict({"suite": suite, "task": task, "trial": trial, "passed": passed,
                 "stop_reason": "stop", "failure": failure, "cost": 0.001}, **fields)


def test_each_appended_record_is_one_line_read_back_in_order(tmp_path):
    folder = tmp_path / "out"  # made on demand
    append_result(str(folder), record("fix-typo", 1))
    append_result(str(folder), record("fix-typo", 2, passed=False, note="é"))
    lines = (folder / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["trial"] for line in lines] == [1, 2]
    assert read_results(str(folder)) == [record("fix-typo", 1),
                                         record("fix-typo", 2, passed=False, note="é")]


def test_a_folder_without_results_has_none(tmp_path):
    assert read_results(str(tmp_path)) == []
    assert done_trials(str(tmp_path)) == set()


def test_a_torn_last_line_is_skipped_with_a_warning_and_the_next_record_starts_clean(tmp_path, capsys):
    append_result(str(tmp_path), record("a", 1))
    with open(tmp_path / RESULTS_FILE, "a") as file:
        file.write('{"suite": "basic", "task": "a", "tri')  # a crash in the middle of a line
    append_result(str(tmp_path), record("a", 2))
    assert [found["trial"] for found in read_results(str(tmp_path))] == [1, 2]
    assert capsys.readouterr().err == (f"miniagent eval: {tmp_path / RESULTS_FILE}:2: "
                                       f"skipped a malformed line\n")


def test_lines_that_are_no_record_are_skipped_and_blank_lines_ignored(tmp_path, capsys):
    lines = ["[1, 2]", '{"task": "a", "trial": "1", "passed": true}',
             '{"task": "a", "trial": 1}', "", json.dumps(record("a", 1))]
    (tmp_path / RESULTS_FILE).write_text("\n".join(lines) + "\n")
    assert read_results(str(tmp_path)) == [record("a", 1)]
    warnings = capsys.readouterr().err.splitlines()
    assert [line.split(":")[-2] for line in warnings] == ["1", "2", "3"]


def test_a_resumed_run_skips_the_trials_done_and_retries_the_failures_outside_the_agent(tmp_path):
    folder = str(tmp_path)
    append_result(folder, record("a", 1, passed=False))  # the agent failed: a result
    append_result(folder, record("a", 2, passed=False, failure="setup exited with status 1"))
    append_result(folder, record("b", 1, passed=False, failure="the agent process crashed"))
    append_result(folder, record("b", 1))  # retried: the later line wins
    assert done_trials(folder) == {("a", 1), ("b", 1)}


def test_merged_folders_are_sorted_and_each_record_names_its_folder(tmp_path):
    first, second = str(tmp_path / "shard-1"), str(tmp_path / "shard-2")
    append_result(first, record("b", 1))
    append_result(second, record("a", 2))
    append_result(first, record("a", 1))
    merged = merge_results([first, second])
    assert [(found["task"], found["trial"], found["folder"]) for found in merged] == [
        ("a", 1, first), ("a", 2, second), ("b", 1, first)]


def test_a_trial_in_two_folders_is_taken_from_the_later_with_one_warning(tmp_path, capsys):
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    for task in ("x", "y"):
        append_result(first, record(task, 1, passed=False))
        append_result(second, record(task, 1, passed=True))
    append_result(first, record("x", 1, passed=False, suite="other"))  # another suite's x
    merged = merge_results([first, second])
    assert [(found["suite"], found["task"], found["passed"]) for found in merged] == [
        ("basic", "x", True), ("basic", "y", True), ("other", "x", False)]
    assert capsys.readouterr().err == (f"miniagent eval: 2 trials (x trial 1, ...) in both "
                                       f"{first} and {second}: kept from {second}\n")


def test_within_one_folder_the_later_line_wins_without_a_warning(tmp_path, capsys):
    append_result(str(tmp_path), record("x", 1, passed=False, failure="copy failed"))
    append_result(str(tmp_path), record("x", 1, passed=True))
    assert [found["passed"] for found in merge_results([str(tmp_path)])] == [True]
    assert capsys.readouterr().err == ""
