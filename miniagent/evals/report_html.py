"""`miniagent eval report ... --html FILE`: a run's results as one page, every trial a link.

A pass rate is where reading an eval starts, not where it ends: the next question is
always "what did the agent do in the trial that failed?". So the page holds the
summary (report.py's own cells, the ones the terminal shows) and then every trial as a
row whose task and trial link to that trial's session, exported as a web page by the
export's own code (subcommands/export.py):

    report.html                           the summary, the comparison, the trials
    OUT/sessions/TASK/trial-N.html        one session page per trial, written beside its
                                          session file the first time a report needs it
    OUT/sessions/TASK/trial-N.log         the agent's stderr and the check's output

Links are relative to the page's own folder (os.path.relpath), so the page, the results
folders and the session pages can be copied or archived together and still link.

Like the session pages, the page is self-contained and inert: the export's stylesheet
inlined (export_style.py) plus a few lines for tables, no script at all, and a
Content-Security-Policy that lets it load nothing. Every text from a results file goes
through the export's `escape`: a task name or a failure line is somebody else's text.

Left out: charts, sorting or filtering in the page (that would need a script).
"""

import os
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote

from ..errors import ExportError
from ..subcommands.export import escape, export_html
from ..subcommands.export_file import write_text
from ..subcommands.export_style import STYLE
from .report import (Summary, Table, comparison_table, costs_table, dollars, run_name,
                     summary_notes, summary_table)
from .results import warn

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{style}</style></head>
<body><header><h1>{title}</h1></header><main>
{body}
</main></body></html>
"""

TABLE_STYLE = """
h2{font-size:1.1rem;margin:1.5rem 0 .3rem}table{border-collapse:collapse;margin:.4rem 0}
th,td{padding:.15rem .6rem;border-bottom:1px solid var(--line);text-align:left}
th{color:var(--muted);font-weight:600}.number{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:600}.passed{color:#1a7f37}.failed{color:var(--err)}a{color:var(--accent)}
.notes{color:var(--muted);font-size:.9rem;margin:.2rem 0}
"""

Run = Tuple[Summary, List[Dict[str, Any]]]


def write_html(path: str, summary: Summary, records: List[Dict[str, Any]],
               against: Optional[Run] = None) -> None:
    """Write the report page to `path`: the summary (with `against`: both summaries and
    the comparison first), then every trial linking to its session page. Raises
    ExportError when the page cannot be written."""
    runs = [(summary, records)] + ([against] if against else [])
    names = [run_name(folders_of(run_records)) for _, run_records in runs]
    page_folder = os.path.dirname(os.path.abspath(path))
    body = []
    if against:
        body.append(comparison_section(summary, against[0], names))
    for (run_summary, run_records), name in zip(runs, names):
        body.append(summary_section(run_summary, name))
    for (run_summary, run_records), name in zip(runs, names):
        body.append(f"<h2>Trials of {escape(name)}</h2>{trials_table(run_records, page_folder)}")
    title = f"Eval report: {names[0]}" + (f" against {names[1]}" if against else "")
    write_text(path, PAGE.format(title=escape(title), style=STYLE + TABLE_STYLE,
                                 body="\n".join(body)))


def folders_of(records: List[Dict[str, Any]]) -> List[str]:
    """The folders the records came from (merge_results' "folder"), in order, once each."""
    folders = [str(record["folder"]) for record in records if record.get("folder")]
    return list(dict.fromkeys(folders)) or ["these results"]


def comparison_section(a: Summary, b: Summary, names: List[str]) -> str:
    legend = f'<p class="notes">A = {escape(names[0])}<br>B = {escape(names[1])}</p>'
    return (f"<h2>Comparison</h2>{legend}{html_table(comparison_table(a, b), total=True)}"
            f"{html_table(costs_table(a, b))}")


def summary_section(summary: Summary, name: str) -> str:
    if not summary.tasks:
        return f'<h2>Summary of {escape(name)}</h2><p class="notes">no trials in these results</p>'
    notes = "".join(f'<p class="notes">{escape(line)}</p>' for line in summary_notes(summary))
    table = html_table(summary_table(summary), total=True)
    return f"<h2>Summary of {escape(name)}</h2>{table}{notes}"


def html_table(table: Table, total: bool = False) -> str:
    """A table of text cells: the first column a name, the others figures (right-aligned);
    with `total`, the last row (overall) in bold."""
    header, rows = table
    head = f"<th>{escape(header[0])}</th>" + "".join(f'<th class="number">{escape(cell)}</th>'
                                                  for cell in header[1:])
    lines = [f"<table><tr>{head}</tr>"]
    for index, row in enumerate(rows):
        marked = ' class="total"' if total and index == len(rows) - 1 else ""
        cells = f"<td>{escape(row[0])}</td>" + "".join(f'<td class="number">{escape(cell)}</td>'
                                                       for cell in row[1:])
        lines.append(f"<tr{marked}>{cells}</tr>")
    return "".join(lines) + "</table>"


# --- The trials -----------------------------------------------------------------------------


TRIAL_COLUMNS = ["task", "trial", "passed", "stop reason", "turns", "cost", "seconds", "log"]
FIGURES = {"trial", "turns", "cost", "seconds"}  # right-aligned


def trials_table(records: List[Dict[str, Any]], page_folder: str) -> str:
    """One row per trial, in task and trial order; task and trial link to its session."""
    lines = [f"<table><tr>{cells('th', TRIAL_COLUMNS)}</tr>"]
    for record in sorted(records, key=lambda record: (record["task"], record["trial"])):
        lines.append(f"<tr>{cells('td', trial_cells(record, page_folder))}</tr>")
    return "".join(lines) + "</table>"


def trial_cells(record: Dict[str, Any], page_folder: str) -> List[str]:
    """The row's cells as HTML, in TRIAL_COLUMNS' order."""
    session = file_of(record, "session")
    page = relative(session_page(session) if session else None, page_folder)
    log = relative(file_of(record, "log"), page_folder)
    return [link(page, record["task"]), link(page, record["trial"]), verdict(record),
            escape(record.get("stop_reason") or "-"), escape(record.get("turns", "-")),
            escape(dollars(number_or_none(record.get("cost")))),
            escape(seconds(record.get("seconds"))), link(log, "log") if log else ""]


def cells(tag: str, inner: List[str]) -> str:
    """Example: cells("td", ["a", "1", ...]) -> '<td>a</td><td class="number">1</td>...'"""
    parts = []
    for column, content in zip(TRIAL_COLUMNS, inner):
        kind = ' class="number"' if column in FIGURES else ""
        parts.append(f"<{tag}{kind}>{content}</{tag}>")
    return "".join(parts)


def verdict(record: Dict[str, Any]) -> str:
    if record["passed"]:
        return '<span class="passed">yes</span>'
    failure = f": {record['failure']}" if record.get("failure") else ""  # outside the agent
    return f'<span class="failed">{escape("no" + failure)}</span>'


def file_of(record: Dict[str, Any], key: str) -> Optional[str]:
    """The file the record names under `key` ("session", "log"), inside the record's
    folder; None when it names none, the file is missing, or the path leads out of the
    folder (a results file may come from anyone: its paths are not followed elsewhere)."""
    named = record.get(key)
    if not isinstance(named, str) or os.path.isabs(named):
        return None
    folder = str(record.get("folder") or ".")
    found = os.path.join(folder, named)
    return found if os.path.isfile(found) and is_inside(found, folder) else None


def is_inside(path: str, folder: str) -> bool:
    """Whether `path` really is inside `folder`, once every symbolic link on the way is
    followed: `sessions -> /home/you` in a results folder leads out of it as `..` does.

    Example: ("run/sessions/t/trial-1.jsonl", "run") -> True;  ("run/../x", "run") -> False
    """
    real_folder = os.path.realpath(folder)
    return os.path.commonpath([os.path.realpath(path), real_folder]) == real_folder


def relative(path: Optional[str], page_folder: str) -> Optional[str]:
    """A link from the page to `path`: relative, so the folders can move together.

    Example: ("/r/a/sessions/t/trial-1.html", "/r") -> "a/sessions/t/trial-1.html"
    """
    return quote(os.path.relpath(os.path.abspath(path), page_folder)) if path else None


def session_page(session: str) -> Optional[str]:
    """The session's page beside it (trial-N.html), exported by the export's own code the
    first time; None (with a warning) when the session cannot be exported."""
    page = os.path.splitext(session)[0] + ".html"
    if os.path.isfile(page) and is_inside(page, os.path.dirname(session)):
        return page
    try:
        # Beside the session, or in the current folder where that one cannot be written
        # (export_file.py): the path it returns is where the page really is.
        return export_html(session)
    except ExportError as error:
        warn(str(error))
        return None


def link(href: Optional[str], text: Any) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>' if href else escape(text)


def number_or_none(value: Any) -> Optional[float]:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def seconds(value: Any) -> str:
    """Example: 4.213 -> "4.2"; a missing figure -> "-"."""
    figure = number_or_none(value)
    return "-" if figure is None else f"{figure:.1f}"
