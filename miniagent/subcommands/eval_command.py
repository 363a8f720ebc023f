"""`miniagent eval`: run a suite of tasks, and report on the results.

    miniagent eval SUITE [--trials N] [-j WORKERS] [--out DIR] [--shard I/N]
                         [--with-home] [--approve] [--provider P --model M ...]
    miniagent eval report DIR... [--against DIR...] [--html FILE]

SUITE is `basic` (shipped in the package) or a folder of tasks (evals/tasks.py). Each
trial runs the agent in a fresh copy of the task's files (evals/trial.py), the trials
spread over WORKERS threads (evals/runner.py); results.jsonl and each trial's session
file land in DIR (default: a new ./eval-results/SUITE-TIMESTAMP/; an existing DIR is
resumed), and the summary table (evals/report.py) is printed at the end.

With `--provider scripted` each task's reference.json plays the model: the suite runs
offline, and every task should pass (a test of the suite, not of a model).

A suite outside the package is code from elsewhere: its setup and check commands run
as shell commands. It runs only in a folder you trust: asked once on a terminal and
recorded in trust.json (as for a project), or for one run with `--approve`. The
trials' agent and check run under `--sandbox workspace` where the kernel can enforce
it, else unconfined with one line saying why; each record names the mode.

Exit status: 0 the suite ran (whatever the pass rate), 1 a trial failed for a reason
outside the agent (a setup, a copy, a crash), 2 a usage problem (nothing ran, or the
agent could not start: a missing key), 130 (or 128 + the signal) stopped by Ctrl-C: the
finished trials are kept.

Left out: the figures themselves (evals/report.py).
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Tuple

from ..cli import add_model_flags, parse_positive_int
from ..errors import ConfigError, ExportError
from ..evals.report import format_comparison, format_summary, run_name, summarize
from ..evals.report_html import write_html
from ..evals.results import merge_results
from ..evals.runner import run_pairs, shard_of, trial_pairs
from ..evals.tasks import Suite, TaskError, find_suite
from ..evals.trial import CANNOT_START, Children, Plan
from ..files.home import miniagent_home
from ..modes.output import ArgumentParser, say, usage_error
from ..modes.terminal import for_terminal
from ..project.trust import is_trusted, record_trust
from ..sandbox import policy_for, unavailable
from ..tools.hardening.reaper import catch_stop_signals

MODEL_FLAGS = ("provider", "model", "base_url", "api_key", "thinking")


def main(argv: List[str]) -> int:
    if argv[:1] == ["report"]:
        return report_command(argv[1:])
    return run_command(argv)


def run_command(argv: List[str]) -> int:
    args = run_parser().parse_args(argv)
    try:
        suite = find_suite(args.suite)
        scripted = args.provider == "scripted"
        if scripted:
            check_references(suite)
        if not suite.builtin and not approved(suite.folder, args.approve):
            return usage_error(f"the suite {suite.folder} runs its tasks' setup and check "
                               f"commands: pass --approve to run it, or run it once on a "
                               f"terminal to be asked")
    except ConfigError as error:
        return usage_error(str(error))
    out = Path(args.out or default_out(suite.name)).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return usage_error(f"{out}: the results folder cannot be made ({error.strerror})")
    pairs = shard_of(trial_pairs(suite, args.trials), args.shard)
    plan = Plan(suite.name, out, model_flags(args), scripted, args.with_home, trial_sandbox())
    shard = f", shard {args.shard[0]}/{args.shard[1]}" if args.shard else ""
    say(f"miniagent eval: {suite.name}, {len(suite.tasks)} tasks x {args.trials} "
        f"trial{'s' if args.trials != 1 else ''}{shard}: {len(pairs)} trials, results in {out}")
    children = Children()
    received = catch_stop_signals(lambda signum: children.stop_all())
    try:
        records = run_pairs(pairs, plan, args.jobs, children, lambda line: say(for_terminal(line)))
    except OSError as error:  # the folder's results.jsonl, read for what is done already
        return usage_error(f"{out / 'results.jsonl'}: cannot be read ({error.strerror})")
    if any((record["failure"] or "").startswith(CANNOT_START) for record in records):
        return 2  # the agent's flags or keys are wrong: nothing was measured
    if received:
        kept = f"{len(records)} finished trial{'s' if len(records) != 1 else ''}"
        say(f"miniagent eval: stopped; {kept} kept in {out / 'results.jsonl'}")
        return 128 + received[0]
    if children.stopping.is_set():  # stopped by an error, which runner.py has told
        return 1
    print(for_terminal(format_summary(summarize(merge_results([str(out)])))))  # retried: once
    return 1 if any(record["failure"] for record in records) else 0


def trial_sandbox() -> str:
    """The trials' --sandbox: workspace where the kernel can enforce it, else off, said
    in one line (a trial measures the agent; it should not reach the rest of the machine)."""
    problem = unavailable(policy_for("workspace", tempfile.gettempdir()))
    if problem:
        say(f"miniagent eval: trials run unconfined (--sandbox off): {problem}")
        return "off"
    return "workspace"


def run_parser() -> ArgumentParser:
    parser = ArgumentParser(prog="miniagent eval",
                            description="Run the agent on a suite of tasks and check the results.")
    parser.add_argument("suite", metavar="SUITE", help="basic (built in) or a suite's folder")
    parser.add_argument("--trials", type=parse_positive_int, default=1, metavar="N",
                        help="trials per task (default 1)")
    parser.add_argument("-j", "--jobs", type=parse_positive_int, default=1, metavar="WORKERS",
                        help="trials run at the same time (default 1)")
    parser.add_argument("--out", metavar="DIR",
                        help="the results folder (default: ./eval-results/SUITE-TIME); "
                             "an existing one is resumed")
    parser.add_argument("--shard", type=parse_shard, metavar="I/N",
                        help="run only the I-th of N slices of the trials (1-based)")
    parser.add_argument("--with-home", action="store_true",
                        help="run with your miniagent home (settings, extensions, AGENTS.md), "
                             "not a private one holding only models.json")
    parser.add_argument("--approve", action="store_true",
                        help="run a suite from outside the package without asking (not recorded)")
    add_model_flags(parser)
    return parser


def report_command(argv: List[str]) -> int:
    parser = ArgumentParser(prog="miniagent eval report",
                            description="Merge result folders (shards) into one summary, "
                                        "or compare two runs.")
    parser.add_argument("folders", nargs="+", metavar="DIR", help="results folders (merged)")
    parser.add_argument("--against", nargs="+", metavar="DIR",
                        help="the run to compare with (its folders, merged)")
    parser.add_argument("--html", metavar="FILE", help="also write the report as one HTML page")
    args = parser.parse_args(argv)
    missing = [folder for folder in args.folders + (args.against or [])
               if not os.path.isfile(os.path.join(folder, "results.jsonl"))]
    if missing:
        return usage_error(f"{missing[0]}: no results.jsonl (not an eval results folder)")
    records = merge_results(args.folders)
    summary = summarize(records)
    against = None
    if args.against:
        other = merge_results(args.against)
        against = (summarize(other), other)
        print(for_terminal(format_comparison(summary, against[0], run_name(args.folders),
                                             run_name(args.against))))
    else:  # task names and failures come from files: shown, never obeyed
        print(for_terminal(format_summary(summary)))
    if args.html:
        try:
            write_html(args.html, summary, records, against)
        except ExportError as error:
            say(f"miniagent eval report: {error}")
            return 1
        print(args.html)
    return 0


def approved(folder: Path, approve_flag: bool) -> bool:
    """May this suite's commands run? --approve, a recorded trust, or the user's yes."""
    home = miniagent_home()
    if approve_flag or is_trusted(str(folder), home):
        return True
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    from ..modes.interactive.screen import ask_once
    answer = ask_once(f"The suite {folder} runs shell commands of its own (each task's "
                      f"setup and check).\nTrust {folder} and run it (recorded in "
                      f"{home / 'trust.json'})? [y/N] ")
    trusted = (answer or "").lower() in ("y", "yes")
    if answer is not None:
        record_trust(str(folder), trusted, home)
    return trusted


def check_references(suite: Suite) -> None:
    """With the scripted model, every task needs the reference it replays."""
    missing = [task for task in suite.tasks if not task.reference.is_file()]
    if missing:
        raise TaskError(f"{missing[0].reference}: missing (--provider scripted replays "
                        f"each task's reference.json)")


def model_flags(args) -> List[str]:
    """The model flags given to eval, as the agent's command line takes them."""
    flags = []
    for name in MODEL_FLAGS:
        value = getattr(args, name)
        if value is not None:
            flags += ["--" + name.replace("_", "-"), value]
    return flags


def default_out(suite: str) -> str:
    return os.path.join("eval-results", f"{suite}-{time.strftime('%Y%m%d-%H%M%S')}")


def parse_shard(value: str) -> Tuple[int, int]:
    """'2/4' -> (2, 4): the I-th of N slices, 1 <= I <= N."""
    index, slash, count = value.partition("/")
    try:
        shard: Optional[Tuple[int, int]] = (int(index), int(count))
    except ValueError:
        shard = None
    if not slash or shard is None or not 1 <= shard[0] <= shard[1]:
        raise argparse.ArgumentTypeError(f"must be I/N with 1 <= I <= N (got {value!r})")
    return shard
