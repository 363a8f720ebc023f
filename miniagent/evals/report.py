"""The numbers of an eval run: pass@1, pass@k, and what solving a task cost.

One trial of a task either passes its check or not. A model is random, so one trial
says little; several trials of each task say more, and two numbers sum them up:

    pass@1    the chance that one trial solves the task: c / n (c of n trials passed)
    pass@k    the chance that at least one of k trials solves it

pass@k is not "did one of the first k pass": that depends on the order the trials ran
in. The unbiased estimator counts every way of picking k of the n trials, and asks how
many of those picks hold no passing trial at all (there are C(n-c, k) of them):

    pass@k = 1 - C(n-c, k) / C(n, k)      pass_at_k(5, 2, 1) -> 0.4
                                          pass_at_k(10, 3, 5) -> 0.9166...
                                          pass_at_k(3, 1, 3) -> 1.0 (every pick holds it)

A run's overall pass@1 and pass@k are the means over its tasks, so each task weighs the
same however many trials it had. Beside them stand the costs: turns, tokens and dollars
in total, and per solved task (a cheap model that solves half the tasks may cost more
per solved task than a dear one that solves them all).

`summarize` turns records (results.py) into a Summary; `format_summary` prints it as a
table, and `format_comparison` prints two runs side by side (`eval report A --against
B`). The cells come from `summary_table` and `comparison_table`, which the HTML page
(report_html.py) shows too, so the page and the terminal never disagree.

Left out: confidence intervals, and weighting tasks by difficulty.
"""

from collections import Counter
from dataclasses import dataclass, field
from math import comb
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..session.stats import number

RUN_LABELS = {"suite": "suite", "model": "model", "provider": "provider", "version": "miniagent",
              "sandbox": "sandbox"}
Table = Tuple[List[str], List[List[str]]]  # a header row, then the rows, every cell text


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials, drawn from n of which c passed, passes.
    Raises ValueError unless 0 <= c <= n and 1 <= k <= n."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (got n={n}, c={c}, k={k})")
    if n - c < k:  # fewer failures than picks: every pick of k holds a pass
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass
class TaskResult:
    """One task's trials added up (or, named "overall", every task's)."""
    name: str
    trials: int = 0
    passed: int = 0
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float = 0.0
    pass_at_1: float = 0.0
    pass_at_k: float = 0.0
    k: int = 0  # the k of pass_at_k: the summary's, or the task's trials when it had fewer

    def cost_per_solved(self) -> Optional[float]:
        return self.cost / self.passed if self.passed else None

    def tokens_per_solved(self) -> Optional[float]:
        """Input and output tokens per solved task: the table's "tokens in/out" (the
        cache reads, which the usage counts apart from the input, are not in it)."""
        return (self.input_tokens + self.output_tokens) / self.passed if self.passed else None


@dataclass
class Summary:
    k: int
    tasks: List[TaskResult]  # sorted by name
    overall: TaskResult
    stop_reasons: Dict[str, int] = field(default_factory=dict)
    failures: List[str] = field(default_factory=list)  # "TASK trial N: why", outside the agent
    runs: Dict[str, List[str]] = field(default_factory=dict)  # "model" -> the names recorded


def summarize(records: List[Dict[str, Any]], k: Optional[int] = None) -> Summary:
    """The records' figures per task and overall. k defaults to the most trials any task
    has; a task with fewer trials than k gets pass@n instead (its `k` says so). Raises
    ValueError when k < 1."""
    several_suites = len({record.get("suite") for record in records}) > 1
    tasks: Dict[str, TaskResult] = {}
    for record in records:
        name = f"{record.get('suite')}/{record['task']}" if several_suites else record["task"]
        add_trial(tasks.setdefault(name, TaskResult(name)), record)
    if k is None:
        k = max((task.trials for task in tasks.values()), default=1)
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k})")
    rows = [score(tasks[name], k) for name in sorted(tasks)]
    reasons = Counter(str(record.get("stop_reason") or "not recorded") for record in records)
    failures = [f"{record['task']} trial {record['trial']}: {record['failure']}"
                for record in records if record.get("failure")]
    runs = {key: sorted({str(record[key]) for record in records if record.get(key)})
            for key in RUN_LABELS}
    return Summary(k, rows, add_overall(rows, k), dict(reasons.most_common()), failures, runs)


def add_trial(task: TaskResult, record: Dict[str, Any]) -> None:
    task.trials += 1
    task.passed += record["passed"] is True
    task.turns += int(number(record.get("turns")))
    task.input_tokens += int(number(record.get("input_tokens")))
    task.output_tokens += int(number(record.get("output_tokens")))
    task.cached_tokens += int(number(record.get("cached_tokens")))
    task.cost += number(record.get("cost"))


def score(task: TaskResult, k: int) -> TaskResult:
    task.k = min(k, task.trials)
    task.pass_at_1 = task.passed / task.trials
    task.pass_at_k = pass_at_k(task.trials, task.passed, task.k)
    return task


def add_overall(tasks: List[TaskResult], k: int) -> TaskResult:
    """Sums of the counts; means of the pass rates (each task weighs the same)."""
    overall = TaskResult("overall", k=k)
    for task in tasks:
        for name in ("trials", "passed", "turns", "input_tokens", "output_tokens",
                     "cached_tokens", "cost"):
            setattr(overall, name, getattr(overall, name) + getattr(task, name))
    if tasks:
        overall.pass_at_1 = sum(task.pass_at_1 for task in tasks) / len(tasks)
        overall.pass_at_k = sum(task.pass_at_k for task in tasks) / len(tasks)
    return overall


# --- The cells, shared by the text and the page -------------------------------------------


def summary_table(summary: Summary) -> Table:
    """Example row: ["fix-typo", "2/3", "0.67", "1.00", "9", "3,600/930", "$0.0036", "$0.0018"]."""
    header = ["task", "trials", "pass@1", f"pass@{summary.k}", "turns", "tokens in/out",
              "cost", "cost/solved"]
    # pass@n where a task had fewer trials than k: marked "*" (and footnoted); the other
    # cells get a space, so the figures stay in line.
    unmarked = " " if any(task.k < summary.k for task in summary.tasks) else ""
    rows = []
    for task in summary.tasks + [summary.overall]:
        short = "*" if task.k < summary.k else unmarked
        rows.append([task.name, f"{task.passed}/{task.trials}", rate(task.pass_at_1),
                     rate(task.pass_at_k) + short, f"{task.turns:,}",
                     f"{task.input_tokens:,}/{task.output_tokens:,}", dollars(task.cost),
                     dollars(task.cost_per_solved())])
    if summary.k == 1:  # one trial each: pass@k would repeat pass@1
        for row in [header] + rows:
            del row[3]
    return header, rows


def summary_notes(summary: Summary) -> List[str]:
    """The lines under the table: the footnote, stop reasons, failures, what ran."""
    notes = []
    if any(task.k < summary.k for task in summary.tasks):
        notes.append(f"* fewer than {summary.k} trials: pass@n there, n = the task's trials")
    reasons = ", ".join(f"{reason} {count}" for reason, count in summary.stop_reasons.items())
    notes.append(f"stop reasons: {reasons or 'none'}")
    if summary.failures:
        notes.append(f"failures outside the agent: {len(summary.failures)} "
                     f"(the first: {summary.failures[0]})")
    ran = [f"{RUN_LABELS[key]} {', '.join(values)}" for key, values in summary.runs.items()
           if values]
    notes.append(" · ".join(ran) or "no model recorded")
    return notes


def comparison_table(a: Summary, b: Summary) -> Table:
    """Every task of either run, then overall: A's and B's passed/n and pass@1, and
    A - B ("+0.33", "-1.00", "=", or "-" when a run lacks the task)."""
    header = ["task", "A passed", "A pass@1", "B passed", "B pass@1", "A - B"]
    tasks_a = {task.name: task for task in a.tasks}
    tasks_b = {task.name: task for task in b.tasks}
    rows = []
    for name in sorted(set(tasks_a) | set(tasks_b)):
        rows.append(compared(name, tasks_a.get(name), tasks_b.get(name)))
    rows.append(compared("overall", a.overall, b.overall))
    return header, rows


def compared(name: str, a: Optional[TaskResult], b: Optional[TaskResult]) -> List[str]:
    cells = [name]
    for task in (a, b):
        cells += [f"{task.passed}/{task.trials}", rate(task.pass_at_1)] if task else ["-", "-"]
    cells.append(difference(a.pass_at_1, b.pass_at_1) if a and b else "-")
    return cells


def difference(a: float, b: float) -> str:
    """Example: (1.0, 0.6667) -> "+0.33";  (0.5, 0.5) -> "="."""
    shown = f"{a - b:+.2f}"
    return "=" if shown in ("+0.00", "-0.00") else shown


def costs_table(a: Summary, b: Summary) -> Table:
    """What each run spent, in total and per solved task."""
    labels = ["solved", "tokens per solved", "cost per solved", "cost"]
    return ["", "A", "B"], [[label, x, y] for label, x, y in zip(labels, spent(a), spent(b))]


def spent(summary: Summary) -> List[str]:
    overall = summary.overall
    return [f"{overall.passed}/{overall.trials}", tokens(overall.tokens_per_solved()),
            dollars(overall.cost_per_solved()), dollars(overall.cost)]


def rate(value: float) -> str:
    return f"{value:.2f}"


def dollars(value: Optional[float]) -> str:
    return "-" if value is None else f"${value:.4f}"


def tokens(value: Optional[float]) -> str:
    return "-" if value is None else f"{round(value):,}"


# --- Text ----------------------------------------------------------------------------------


def format_summary(summary: Summary) -> str:
    """The table printed on stdout, then its notes (no final newline: print adds it)."""
    if not summary.tasks:
        return "no trials in these results"
    return "\n".join([aligned(summary_table(summary))] + summary_notes(summary))


def format_comparison(a: Summary, b: Summary, a_name: str, b_name: str) -> str:
    """Two runs side by side: which run is which, the pass rates, then the costs."""
    return "\n".join([f"A = {a_name}", f"B = {b_name}", "", aligned(comparison_table(a, b)),
                      "", aligned(costs_table(a, b))])


def aligned(table: Table) -> str:
    """The table as lines: the first column to the left, the numbers to the right.

    Example: (["task", "n"], [["ab", "10"]]) -> "task   n\\nab    10"
    """
    header, rows = table
    widths = [max(len(row[column]) for row in [header] + rows) for column in range(len(header))]
    lines = []
    for row in [header] + rows:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width)
                                             for cell, width in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def run_name(folders: Sequence[str]) -> str:
    """What a run is called in a comparison: the folder(s) it was read from.

    Example: ["runs/1", "runs/2"] -> "runs/1 + runs/2"
    """
    return " + ".join(folders)
