"""`miniagent export FILE`: a session file as one web page you can open, send or archive.

A session file (session/tree.py) is a tree of JSON lines: good for a program, hard to read.
This module turns it into ONE self-contained HTML file: the styles and the few lines of
script sit inside it (export_style.py), nothing is fetched (no fonts, no scripts, no
images from anywhere; the page's Content-Security-Policy makes the browser refuse any that
slipped in), so it opens offline, years later, and leaks nothing when opened.

What the page shows, top to bottom:

    the header       session id, project folder, start, totals (prompts, replies, tool
                     calls per tool, tokens and cost per model: the numbers of session/stats.py)
    the tree         every entry in order: user prompts, the model's thinking (folded),
                     answers rendered from Markdown (markdown.py), tool calls with their
                     arguments, edits as diffs, the system prompt and tools (folded; see
                     export_details.py), tool results (folded),
                     each reply's usage and cost, model and thinking changes, and a
                     marked band where a compaction or a branch summary happened
    branches         where the conversation forked (session.branch), one foldable
                     section per branch, the one holding the session's leaf open

The most important rule is **escape everything**. A session holds text from the model,
from files the tools read and from commands they ran: any of it can be `<script>`. Every
piece of it goes through `escape()` before it touches the page, and no text from the file
ever lands inside a script or a style.

`export_markdown` writes the same conversation as a plain transcript (the REPL's
`/export FILE.md`), fencing code with more backticks than the text itself holds.

Left out: Markdown in user prompts (shown as typed), embedded images (a placeholder
names them), and search in the page.
"""

import html
import json
import re
from typing import Any, Callable, Dict, List, Optional

from .export_details import edit_diff, run_status, system_message
from .export_file import write_output, write_text
from ..errors import ExportError, SessionError
from ..files.redaction import redact_json
from .export_style import PAGE, SCRIPT, SCRIPT_HASH, STYLE
from ..models.usage import cost_figure
from ..files.text import one_line, to_json
from ..core.messages import text_of
from ..core.assembly import token_count
from ..session.tree import Session, TreeNode
from ..session.store import STORE, LoadedSession
from ..session.stats import TOKEN_FIELDS, file_stats
from ..modes.terminal import for_terminal
from .markdown import markdown_html

FOLD_ARGUMENT_LINES = 12  # longer tool-call arguments (a whole file to write), diffs, folded
TITLE_WIDTH = 80  # characters of a folded result's first line shown as its title


# --- Reading and writing ----------------------------------------------------------------


def load_session(path: str, warn: Optional[Callable[[str], None]] = None) -> LoadedSession:
    """Read a session (ours or pi's v1-v3, migrated in memory; torn lines skipped, and
    each skip passed to `warn`). Raises ExportError."""
    try:
        loaded = STORE.load(path)
    except SessionError as error:
        raise ExportError(str(error)) from None
    for line in loaded.warnings if warn else []:
        warn(line)
    return loaded


def export_html(session_path: str, out_path: Optional[str] = None,
                warn: Optional[Callable[[str], None]] = None) -> str:
    """Write the session's page (default: beside it, FILE.html); returns the path."""
    loaded = load_session(session_path, warn)
    return write_output(render_html(loaded.header, loaded.entries), out_path, session_path, ".html")


# --- The page -----------------------------------------------------------------------------


def escape(value: Any) -> str:
    """Any value as text that is safe inside HTML, attributes included.

    Example: '<img src=x onerror="alert(1)">' -> '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    """
    # The terminal's rule (terminal.for_terminal): control characters are shown as
    # symbols, bidirectional controls as U+FFFD (one in a name could make "$0.0120" read
    # "0210.0$"), a lone surrogate, which no file can hold, as U+FFFD too.
    return html.escape(for_terminal(str(value)), quote=True)


def render_html(header: Dict[str, Any], entries: List[dict]) -> str:
    """The whole page for a session's header and entries (version 3, as loaded)."""
    # The REPL's /export renders from memory, where the API key is still in the text.
    header, entries = redact_json(header), [redact_json(entry) for entry in entries]
    session = Session(header, list(entries), None, str(header.get("cwd") or ""), persist=False)
    leaf_ids = {entry["id"] for entry in session.get_branch()}
    body: List[str] = []
    roots = session.get_tree()
    if not roots:
        body.append('<p class="empty">This session has no entries yet: only its header.</p>')
    elif len(roots) == 1:
        render_chain(roots[0], leaf_ids, body)
    else:
        render_fork(roots, leaf_ids, body)
    title = f"Session {header.get('id', '')}"
    return PAGE.format(title=escape(title), style=STYLE, script=SCRIPT, script_hash=SCRIPT_HASH,
                       header=render_header(header, entries), body="\n".join(body))


def render_header(header: Dict[str, Any], entries: List[dict]) -> str:
    stats = file_stats("", entries)
    calls = sum(stats.tool_calls.values())
    rows = [("project", header.get("cwd")), ("started", header.get("timestamp")),
            ("format", f"version {header.get('version', 1)}"),
            ("parent", header.get("parentSession") or header.get("branchedFrom"))]
    meta = "".join(f"<dt>{name}</dt><dd>{escape(value)}</dd>" for name, value in rows if value)
    totals = (f"prompts {stats.user_prompts} · replies {stats.assistant_turns} · "
              f"tool calls {calls} · tool errors {stats.tool_errors}")
    tools = " · ".join(f"{escape(name)} {count}" for name, count in
                       sorted(stats.tool_calls.items(), key=lambda item: (-item[1], item[0])))
    models = "".join(f"<li>{escape(model)} · replies {row['turns']} · {usage_text(row)}</li>"
                     for model, row in stats.models.items())
    return (f"<h1>{escape('Session ' + str(header.get('id', '')))}</h1><dl>{meta}</dl>"
            f'<p class="totals">{totals}</p>'
            + (f'<p class="tools">{tools}</p>' if tools else "")
            + (f'<ul class="models">{models}</ul>' if models else ""))


def render_chain(node: TreeNode, leaf_ids: set, out: List[str]) -> None:
    """One line of conversation, entry after entry, until it ends or forks. A loop, not
    recursion per entry: a real session is a chain thousands of entries long."""
    while True:
        out.append(render_entry(node.entry, node.label))
        # A label entry is shown on the entry it marks; one left as a leaf is no branch.
        children = [child for child in node.children
                    if child.children or child.entry["type"] != "label"]
        if len(children) != 1:
            break
        node = children[0]
    if children:
        render_fork(children, leaf_ids, out)


def render_fork(children: List[TreeNode], leaf_ids: set, out: List[str]) -> None:
    """Where the conversation went several ways: one foldable section per branch."""
    out.append('<div class="fork">')
    for index, child in enumerate(children, 1):
        current = child.entry["id"] in leaf_ids
        label = f"Branch {index} of {len(children)}"
        label += " (where the session ended)" if current else ""
        out.append(f'<details class="branch"{" open" if current else ""}><summary>'
                   f'{label}: {escape(first_words(child))}</summary>')
        render_chain(child, leaf_ids, out)
        out.append("</details>")
    out.append("</div>")


def first_words(node: TreeNode) -> str:
    """What a branch is about: its first user prompt before it forks again, else the kind
    of entry it stops at (a branch may hold only a summary)."""
    while True:
        message = node.entry.get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            return one_line(message_text(message), TITLE_WIDTH)
        if len(node.children) != 1:
            return node.entry["type"].replace("_", " ")
        node = node.children[0]


def render_entry(entry: Dict[str, Any], label: Optional[str]) -> str:
    kind = entry["type"]
    tag = f' <span class="label">{escape(label)}</span>' if label else ""
    when = f'<time title="{escape(entry.get("timestamp", ""))}">{escape(clock(entry))}</time>'
    if kind == "message":
        return render_message(entry["message"], when + tag)
    if kind == "compaction":
        return band("compaction", f"Compacted here · {token_count(entry.get('tokensBefore')):,} tokens "
                    f"before", entry.get("summary"), when + tag)
    if kind == "branch_summary":
        return band("branch-summary", "Summary of the branch left behind", entry.get("summary"),
                    when + tag)
    if kind == "custom_message":
        return render_message({"role": "custom", "content": entry.get("content"),
                               "customType": entry.get("customType")}, when + tag)
    if kind == "label":
        return ""  # shown on the entry it marks
    return f'<p class="setting">{escape(setting_text(entry))}{tag}</p>'


def setting_text(entry: Dict[str, Any]) -> str:
    kind = entry["type"]
    if kind == "model_change":
        return f"model: {entry.get('provider')}/{entry.get('modelId')}"
    if kind == "thinking_level_change":
        return f"thinking: {entry.get('thinkingLevel')}"
    if kind == "session_info":
        return f"named: {entry.get('name')}"
    if kind == "custom":
        return f"extension state: {entry.get('customType')}"
    return kind.replace("_", " ")


def clock(entry: Dict[str, Any]) -> str:
    """Example: "2025-12-08T22:41:05.306Z" -> "22:41:05"."""
    stamp = str(entry.get("timestamp", ""))
    return stamp[11:19] if re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", stamp) else stamp


def band(kind: str, title: str, summary: Any, when: str) -> str:
    """A compaction or branch summary: a marked band with the summary folded inside."""
    return (f'<div class="band {kind}"><div class="who">{escape(title)} {when}</div>'
            f'<details><summary>the summary the model got</summary>'
            f'<div class="text">{escape(summary or "")}</div></details></div>')


def render_message(message: Dict[str, Any], when: str) -> str:
    role = message.get("role")
    if role == "assistant":
        return render_reply(message, when)
    if role == "toolResult":  # folded, its first line as the title
        error = message.get("isError")
        lines = message_text(message).strip().split("\n")
        # A failure's cause is at its end ("exited with code 1"), a success's gist at its start.
        head = f"{message.get('toolName')} {'error' if error else 'result'}: "
        head += one_line(lines[-1] if error else lines[0], TITLE_WIDTH) or "(no output)"
        return fold("result error" if error else "result", head, content_html(message))
    if role == "bashExecution":  # pi's `!command`, typed by the user
        head = f"! {message.get('command')} · {run_status(message)}"
        return fold("result", head, f"<pre>{escape(message.get('output', ''))}</pre>")
    if role == "system":  # pi 1.6's prompt and tools, as the model was told them
        return system_message(message, escape)
    who = {"user": "You", "custom": f"Extension message ({message.get('customType')})"}
    name = who.get(role, str(role))
    return (f'<div class="msg {"user" if role == "user" else "other"}">'
            f'<div class="who">{escape(name)} {when}</div>{content_html(message, pre=False)}</div>')


def render_reply(message: Dict[str, Any], when: str) -> str:
    model = f"{message.get('provider')}/{message.get('model')}"
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
    parts = [f'<div class="msg assistant"><div class="who">Assistant · {escape(model)} {when}'
             f' <span class="usage">{usage_text(usage_row(usage))}</span></div>']
    for block in blocks_of(message):
        parts.append(render_block(block))
    if message.get("stopReason") in ("error", "aborted"):
        parts.append(f'<p class="error">{escape(message.get("stopReason"))}: '
                     f'{escape(message.get("errorMessage") or "")}</p>')
    parts.append("</div>")
    return "".join(parts)


def render_block(block: Dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":  # answers are Markdown: rendered by our own safe subset
        return f'<div class="markdown">{markdown_html(str(block.get("text", "")), escape)}</div>'
    if kind == "thinking":
        thinking = escape(block.get("thinking", ""))
        return fold("thinking", "thinking", f'<div class="text">{thinking}</div>')
    if kind == "toolCall":
        diff = edit_diff(block.get("arguments"), escape, FOLD_ARGUMENT_LINES) if block.get("name") == "edit" else None
        return diff or render_call(str(block.get("name")), block.get("arguments"))
    return f'<p class="setting">[{escape(kind)} block]</p>'


def render_call(name: str, arguments: Any) -> str:
    """A tool call: its name, then one line per argument (strings as written, the rest
    as JSON); a long one (a whole file to write) is folded under the first line."""
    arguments = arguments if isinstance(arguments, dict) else {"arguments": arguments}
    shown = {key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
             for key, value in arguments.items()}
    rows = "".join(f"<dt>{escape(key)}</dt><dd>{escape(value)}</dd>"
                   for key, value in shown.items())
    lines = sum(value.count("\n") + 1 for value in shown.values())
    if lines <= FOLD_ARGUMENT_LINES:
        return f'<div class="call"><span class="tool">{escape(name)}</span><dl>{rows}</dl></div>'
    return (f'<div class="call"><details><summary><span class="tool">{escape(name)}</span> '
            f'{lines} lines of arguments</summary><dl>{rows}</dl></details></div>')


def content_html(message: Dict[str, Any], pre: bool = True) -> str:
    """A message's text (in <pre> for tool output) and a note per image."""
    images = [block for block in blocks_of(message) if block.get("type") == "image"]
    text = message_text(message)
    shown = f"<pre>{escape(text)}</pre>" if pre else f'<div class="text">{escape(text)}</div>'
    return shown + "".join(f'<p class="setting">[image {escape(block.get("mimeType", ""))}]</p>'
                           for block in images)


def message_text(message: Dict[str, Any]) -> str:
    """text_of, for a file that may have been edited by hand: a page shows what it can."""
    try:
        return text_of(message)
    except (KeyError, TypeError, AttributeError):
        return ""


def blocks_of(message: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A message's content blocks that are objects (a bare string content has none)."""
    content = message.get("content")
    listed = content if isinstance(content, list) else []
    return [block for block in listed if isinstance(block, dict)]


def fold(kind: str, head: str, inner: str) -> str:
    return f'<details class="{kind}"><summary>{escape(head)}</summary>{inner}</details>'


def usage_row(usage: Dict[str, Any]) -> Dict[str, float]:
    """A reply's usage as read from a file: a figure that is no sane number (a string,
    a negative, NaN: Python's json reads that token) counts as 0, as in `stats`."""
    cost = usage.get("cost")
    row: Dict[str, float] = {key: token_count(usage.get(key)) for key in TOKEN_FIELDS}
    row["cost"] = cost_figure(cost.get("total")) if isinstance(cost, dict) else 0.0
    return row


def usage_text(row: Dict[str, float]) -> str:
    """Example: "2,775 in · 141 out · 0 cached · $0.0174"."""
    return (f"{int(row['input']):,} in · {int(row['output']):,} out · "
            f"{int(row['cacheRead']):,} cached · ${row['cost']:.4f}")


# --- The plain-text transcript ------------------------------------------------------------


def export_markdown(entries: List[dict], out_path: str) -> str:
    """Write the entries (say, a session's current branch) as a Markdown transcript;
    returns the path written. Raises ExportError."""
    parts = ["# Session transcript\n"]
    for entry in map(redact_json, entries):  # from memory: the key is still in them
        message = entry.get("message") if entry["type"] == "message" else None
        if isinstance(message, dict):
            parts.append(markdown_message(message))
        elif entry["type"] in ("compaction", "branch_summary"):
            kind = entry["type"].replace("_", " ")
            parts.append(f"---\n\n*{kind}:*\n\n{entry.get('summary', '')}\n")
    return write_text(out_path, "\n".join(parts))


def markdown_message(message: Dict[str, Any]) -> str:
    role = message.get("role")
    if role == "toolResult":
        error = " (error)" if message.get("isError") else ""
        return f"**{message.get('toolName')} result{error}:**\n\n{fenced(message_text(message))}"
    if role != "assistant":
        return f"## {'You' if role == 'user' else role}\n\n{message_text(message)}\n"
    lines = [f"## Assistant ({message.get('provider')}/{message.get('model')})\n"]
    for block in blocks_of(message):
        if block.get("type") == "text":
            lines.append(block.get("text", "") + "\n")
        elif block.get("type") == "thinking":  # a quote, line by line
            lines.append("".join(f"> {line}\n" for line in block.get("thinking", "").split("\n")))
        elif block.get("type") == "toolCall":
            arguments = to_json(block.get("arguments"), indent=2)
            lines.append(f"**{block.get('name')}**\n\n{fenced(arguments, 'json')}")
    if message.get("errorMessage"):
        lines.append(f"*{message.get('stopReason')}: {message['errorMessage']}*\n")
    return "\n".join(lines)


def fenced(text: str, language: str = "") -> str:
    """A code block whose fence is longer than any run of backticks inside the text."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}\n"
