"""The export's close-ups: an edit as a diff, the system prompt and tools, a `!` run's end.

export.py lays out the conversation; this module renders three things whose raw form
reads badly on a page:

    an edit call       its {oldText, newText} pairs as a unified diff (difflib), one
                       hunk per edit, "-" lines red and "+" lines green, instead of JSON
    a system message   pi 1.6's `role: "system"` entry: the prompt's `sections` and the
                       tools it added or removed, folded (a session without one shows none)
    a `!command` run   its exit status, or "cancelled" when the user stopped it (pi
                       records no exit code then)

Each takes the page's `escape` and returns HTML made only of our tags around escaped
text, as everything on the page is (export.py's rule).

Left out: diffs of write calls (the whole file is the argument), and syntax colour.
"""

import difflib
import json
from typing import Any, Callable, Dict, List, Optional

from ..tools.hardening.edit_args import prepare_arguments

Escape = Callable[[Any], str]


def edit_diff(arguments: Any, escape: Escape, fold_over: int) -> Optional[str]:
    """An edit call as a diff block, folded when longer than `fold_over` lines; None if
    its arguments hold no {oldText, newText}."""
    arguments = prepare_arguments(arguments)
    edits = arguments.get("edits") if isinstance(arguments, dict) else None
    pairs = [e for e in edits or [] if isinstance(e, dict)
             and isinstance(e.get("oldText"), str) and isinstance(e.get("newText"), str)]
    if not pairs:
        return None
    path = str(arguments.get("path", ""))
    lines: List[str] = []
    for pair in pairs:
        hunk = difflib.unified_diff(pair["oldText"].split("\n"), pair["newText"].split("\n"),
                                    f"a/{path}", f"b/{path}", lineterm="")
        lines.extend(list(hunk)[0 if not lines else 2:])  # the file names once, at the top
    shown = "\n".join(_diff_line(line, escape) for line in lines)
    head = (f'<span class="tool">edit</span> {escape(path)} · {len(pairs)} '
            f'edit{"s" if len(pairs) > 1 else ""}')
    diff = f'<pre class="diff">{shown}</pre>'
    if len(lines) <= fold_over:
        return f'<div class="call">{head}{diff}</div>'
    return (f'<div class="call"><details><summary>{head} · {len(lines)} lines of diff</summary>'
            f'{diff}</details></div>')


def _diff_line(line: str, escape: Escape) -> str:
    kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1]) if not line.startswith(
        ("+++", "---")) else "file"
    return f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line)


def system_message(message: Dict[str, Any], escape: Escape) -> str:
    """pi 1.6's system entry: each prompt section folded by name, then the tools."""
    sections = message.get("sections") if isinstance(message.get("sections"), dict) else {}
    parts = [f'<details class="result"><summary>{escape(name)}'
             f'{" (removed)" if text is None else ""}</summary>'
             f'<pre>{escape(text if isinstance(text, str) else "")}</pre></details>'
             for name, text in sections.items()]
    content = message.get("content")
    if isinstance(content, str) and content:  # a checkpoint may carry the prompt whole
        parts.append(f"<pre>{escape(content)}</pre>")
    parts.extend(_tools(message, escape))
    title = "System prompt and tools" if "toolsAdded" in message or "toolsRemoved" in message \
        else "System prompt"
    return (f'<div class="msg other"><details class="system"><summary>{title}: '
            f'{len(sections)} section{"" if len(sections) == 1 else "s"}</summary>'
            f'{"".join(parts)}</details></div>')


def _tools(message: Dict[str, Any], escape: Escape) -> List[str]:
    """One folded line per tool added (its description and parameters inside), one
    plain line naming those removed."""
    added = [t for t in message.get("toolsAdded") or [] if isinstance(t, dict)]
    removed = [t for t in message.get("toolsRemoved") or [] if isinstance(t, dict)]
    parts = [f'<details class="result"><summary>tool + {escape(tool.get("name"))}</summary>'
             f'<pre>{escape(tool.get("description") or "")}\n\n'
             f'{escape(json.dumps(tool.get("parameters", {}), indent=2, ensure_ascii=False))}'
             f"</pre></details>" for tool in added]
    if removed:
        names = ", ".join(str(tool.get("name")) for tool in removed)
        parts.append(f'<p class="setting">tools removed: {escape(names)}</p>')
    return parts


def run_status(message: Dict[str, Any]) -> str:
    """How a user's `!command` ended: "exit 0", or "cancelled" when it was stopped."""
    if message.get("cancelled") or message.get("exitCode") is None:
        return "cancelled"
    return f"exit {message.get('exitCode')}"
