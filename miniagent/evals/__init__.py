"""Evals: does a change to the agent make it solve more tasks? A number, not an impression.

One run of the agent on one task says little: models are not deterministic, and a
prompt that helps one task may hurt another. An eval runs the agent on a suite of
tasks, several trials each, checks every result with a command the agent never saw,
and reports pass rates a second run can be compared with:

    miniagent eval basic --model gpt-4o-mini --trials 3 --out before
    (edit the system prompt, the model, the compaction settings...)
    miniagent eval basic --model gpt-4o-mini --trials 3 --out after
    miniagent eval report after --against before

Reading order:

    tasks.py        a task is a folder (TASK.md, repo/, check/, reference.json); a suite
                    is a folder of tasks
    trial.py        one trial: a fresh copy, a private home, the agent as a child
                    process, then the check; its record
    check_python.py the checks' $PYTHON: the copy last on the module path
    results.py      results.jsonl: one line per trial, appended; folders merged
    runner.py       the (task, trial) list, shards, resuming, the workers, progress
    report.py       pass@1, pass@k and the summary table; two runs side by side
    report_html.py  the same as one HTML page, each trial linked to its session
    basic/          the starter suite: 8 small tasks, each with a reference that solves it

The command line is subcommands/eval_command.py.

Left out: benchmarks that need containers (SWE-bench): a suite here is plain folders,
its checks need only the standard library, and the agent runs as you.
"""
