"""pass@k, the summary table and the comparison of two runs, as `eval report` prints them."""

import pytest

from miniagent.evals.report import (format_comparison, format_summary, pass_at_k, run_name,
                                    summarize)


def record(task, trial, passed, stop_reason="stop", failure=None, **fields):
    base = {"suite": "basic", "task": task, "trial": trial, "passed": passed,
            "stop_reason": stop_reason, "failure": failure, "turns": 3, "input_tokens": 1000,
            "output_tokens": 200, "cached_tokens": 500, "cost": 0.01, "seconds": 2.5,
            "model": "gpt-4o-mini", "provider": "openai", "version": "0.1.0"}
    return dict(base, **fields)


def run(outcomes):
    """{"task": "YYN"} -> one record per letter: Y passed, N failed (the agent stopped)."""
    return [record(task, trial, letter == "Y", "stop" if letter == "Y" else "max_turns")
            for task, letters in outcomes.items() for trial, letter in enumerate(letters, 1)]


# --- pass@k -------------------------------------------------------------------------------


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(3, 1, 3) == 1.0  # every pick of 3 holds the one pass
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)  # 1 - C(7,5)/C(10,5)
    assert pass_at_k(4, 0, 2) == 0.0


@pytest.mark.parametrize("n, c, k", [(3, 1, 4), (3, 1, 0), (3, 4, 1), (3, -1, 1)])
def test_pass_at_k_refuses_impossible_counts(n, c, k):
    with pytest.raises(ValueError, match=f"n={n}, c={c}, k={k}"):
        pass_at_k(n, c, k)


# --- The summary --------------------------------------------------------------------------


def test_each_task_and_the_overall_row_add_up_the_trials():
    summary = summarize(run({"b-task": "YNN", "a-task": "YYY"}))
    assert summary.k == 3  # the most trials any task has
    assert [task.name for task in summary.tasks] == ["a-task", "b-task"]
    a_task, b_task = summary.tasks
    assert (b_task.passed, b_task.trials, b_task.pass_at_1, b_task.pass_at_k) == (1, 3, 1 / 3, 1.0)
    overall = summary.overall
    assert (overall.passed, overall.trials) == (4, 6)
    assert overall.pass_at_1 == pytest.approx((1 + 1 / 3) / 2)  # a mean over tasks
    assert (overall.turns, overall.input_tokens, overall.cached_tokens) == (18, 6000, 3000)
    assert overall.cost_per_solved() == pytest.approx(0.06 / 4)
    assert b_task.tokens_per_solved() == 3600


def test_a_task_with_fewer_trials_than_k_gets_pass_at_n_and_a_footnote():
    summary = summarize(run({"long": "NNNNY", "short": "NY"}), k=3)
    short = summary.tasks[1]
    assert (short.k, short.pass_at_k) == (2, 1.0)
    assert summary.tasks[0].pass_at_k == pytest.approx(pass_at_k(5, 1, 3))
    text = format_summary(summary)
    assert "short       1/2    0.50   1.00*      6" in text
    assert "long        1/5    0.20   0.60      15" in text  # the figures stay in line
    assert "* fewer than 3 trials: pass@n there, n = the task's trials" in text


def test_k_below_one_is_refused():
    with pytest.raises(ValueError, match="k must be at least 1"):
        summarize(run({"a": "Y"}), k=0)


def test_the_table_shows_each_task_the_overall_row_and_what_ran():
    records = run({"fix-typo": "YYN", "add-function": "NNN"})
    records.append(record("add-function", 4, False, "error", failure="setup exited with status 2",
                          cost=0.0, turns=0))
    lines = format_summary(summarize(records)).split("\n")
    assert lines[:4] == [
        "task          trials  pass@1  pass@4  turns  tokens in/out     cost  cost/solved",
        "add-function     0/4    0.00   0.00       9      4,000/800  $0.0300            -",
        "fix-typo         2/3    0.67   1.00*      9      3,000/600  $0.0300      $0.0150",
        "overall          2/7    0.33   0.50      18    7,000/1,400  $0.0600      $0.0300",
    ]
    assert lines[4:] == [
        "* fewer than 4 trials: pass@n there, n = the task's trials",
        "stop reasons: max_turns 4, stop 2, error 1",
        "failures outside the agent: 1 (the first: add-function trial 4: setup exited with status 2)",
        "suite basic · model gpt-4o-mini · provider openai · miniagent 0.1.0",
    ]


def test_a_big_run_stays_readable_in_100_columns():
    names = ["answer-question", "change-config-value", "create-file-from-spec",
             "implement-from-docstring", "two-step-refactor"]
    records = run({name: "YN" * 10 for name in names})  # 20 trials of a real model each
    for one in records:
        one.update(input_tokens=95_000, output_tokens=6_000, cost=0.35, turns=25)
    assert max(len(line) for line in format_summary(summarize(records)).split("\n")) <= 100


def test_shards_of_two_suites_keep_their_tasks_apart():
    records = [record("x", 1, True), record("x", 1, False, suite="other")]
    summary = summarize(records)
    assert [task.name for task in summary.tasks] == ["basic/x", "other/x"]
    assert "suite basic, other" in format_summary(summary)


def test_with_one_trial_per_task_pass_at_k_is_not_repeated():
    lines = format_summary(summarize(run({"a": "Y", "b": "N"}))).split("\n")
    assert lines[0] == "task     trials  pass@1  turns  tokens in/out     cost  cost/solved"
    assert lines[2] == "b           0/1    0.00      3      1,000/200  $0.0100            -"


def test_no_records_is_one_line_saying_so():
    assert format_summary(summarize([])) == "no trials in these results"


# --- The comparison -----------------------------------------------------------------------


def test_two_runs_side_by_side_mark_the_differences():
    new = summarize(run({"fix-typo": "YYY", "rename": "NNN", "only-new": "Y"}))
    old = summarize(run({"fix-typo": "YYN", "rename": "YNN", "only-old": "YY"}))
    text = format_comparison(new, old, run_name(["runs/new-1", "runs/new-2"]), "runs/old")
    assert text.split("\n") == [
        "A = runs/new-1 + runs/new-2",
        "B = runs/old",
        "",
        "task      A passed  A pass@1  B passed  B pass@1  A - B",
        "fix-typo       3/3      1.00       2/3      0.67  +0.33",
        "only-new       1/1      1.00         -         -      -",
        "only-old         -         -       2/2      1.00      -",
        "rename         0/3      0.00       1/3      0.33  -0.33",
        "overall        4/7      0.67       5/8      0.67      =",
        "",
        "                         A        B",
        "solved                 4/7      5/8",
        "tokens per solved    2,100    1,920",
        "cost per solved    $0.0175  $0.0160",
        "cost               $0.0700  $0.0800",
    ]


def test_a_run_that_solved_nothing_has_no_cost_per_solved_task():
    text = format_comparison(summarize(run({"a": "N"})), summarize(run({"a": "Y"})), "A", "B")
    assert "a             0/1      0.00       1/1      1.00  -1.00" in text
    assert "cost per solved          -  $0.0100" in text
