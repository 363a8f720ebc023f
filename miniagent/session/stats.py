"""`miniagent stats FILE...`: what a session cost, and what the agent did in it.

A session file is also a ledger. Every assistant reply records its model and its usage
(tokens and dollars), every tool call sits in a reply as a `toolCall` block, and every tool
result says whether it failed. Counting them needs no model and no guesswork:

    user prompts      user messages (pi's `!command` records, bashExecution, are not prompts)
    assistant turns   assistant messages, failed replies included: they were paid for
    tool calls        toolCall blocks in assistant messages, per tool name, counting those
                      of replies that later failed (what the model asked for); a user's
                      `!command` is not a bash call
    tool errors       tool results with isError true
    per model         turns, input / output / cache-read / cache-write tokens, cost in USD
                      (a compaction's summary calls, whose `usage` its entry keeps, as
                      the row "compaction summaries")
    main model        the model with the most assistant turns
    usage entries     pi 1.6's `usage` entries (model work outside the conversation, such
                      as warming the prompt cache): their tokens and cost join their
                      model's row, as no turn

    sub-agents        a tool result whose details (or a custom entry whose data) name a
                      `childSession`: that session file, in the folder named for this
                      one, is counted too; its models' rows join as "MODEL (sub-agents)",
                      so the totals hold what the children cost

Every entry of the file counts, on every branch: abandoned branches were paid for too.
Files of pi (versions 1 to 3) and of miniagent read the same way, and are only read,
one line at a time: a 100 MB session costs the memory of its longest line.

    $ miniagent stats ~/.miniagent/sessions/--home-u-proj--/*.jsonl
    /home/u/.miniagent/sessions/--home-u-proj--/2026-03-15T10-20-30-123Z_0f8e.jsonl
      user prompts     3
      assistant turns  12
      tool calls       11
        bash 6
        read 5
      tool errors      1
      models
        openai/gpt-4o-mini  12 turns  input 20417  output 1210  cache read 8960  cache write 0  $0.0051
      main model       openai/gpt-4o-mini

Left out: prices (the cost recorded in each reply is used as it is; a local server's is 0).
"""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Tuple

from ..models.usage import COUNT_KEYS, cost_figure
from ..core.assembly import token_count
from ..errors import SessionError
from .store import STORE

TOKEN_FIELDS = COUNT_KEYS
SUMMARIES = "compaction summaries"  # the row of the summary calls (no model is recorded)
CHILDREN = " (sub-agents)"  # ends the rows of what sub-agents' sessions used


@dataclass
class FileStats:
    path: str  # "total" for the sum over files
    user_prompts: int = 0
    assistant_turns: int = 0
    tool_calls: Dict[str, int] = field(default_factory=dict)
    tool_errors: int = 0
    usage_entries: int = 0
    subagent_sessions: int = 0
    # "provider/model" -> {"turns", "input", "output", "cacheRead", "cacheWrite", "cost"}
    models: Dict[str, Dict[str, float]] = field(default_factory=dict)

    @property
    def main_model(self) -> str:
        """The model with the most assistant turns (the first seen on a tie), or ""."""
        models = [name for name in self.models
                  if name != SUMMARIES and not name.endswith(CHILDREN)]
        return max(models, key=lambda name: self.models[name]["turns"]) if models else ""


def compute_stats(paths: List[str]) -> Tuple[List[FileStats], FileStats, List[str]]:
    """Stats per readable file, their total, and one error line per unreadable file."""
    files, errors = [], []
    for path in paths:
        try:
            files.append(file_stats(path, STORE.stream(path).entries))  # one entry at a time
        except SessionError as error:
            errors.append(str(error))
    return files, add_up(files), errors


def file_stats(path: str, entries: Iterable[dict]) -> FileStats:
    stats = FileStats(path)
    children: List[str] = []
    for entry in entries:
        children += child_link(entry)
        if entry["type"] == "message":
            count_message(stats, entry["message"])
        elif entry["type"] == "compaction" and "usage" in entry:  # the summary was paid for
            add_usage(stats, SUMMARIES, entry["usage"])
        elif entry["type"] == "usage":
            stats.usage_entries += 1
            add_usage(stats, f"{entry.get('provider')}/{entry.get('model')}", entry.get("usage"),
                      turn=False)
    for child in children:
        add_child(stats, child)
    return stats


def child_link(entry: Dict[str, Any]) -> List[str]:
    """The sub-agent session an entry links to ([] or [link]): a tool result's
    details.childSession, or a custom entry's data.childSession."""
    holder = entry.get("message", {}).get("details") if entry["type"] == "message" else (
        entry.get("data") if entry["type"] == "custom" else None)
    link = holder.get("childSession") if isinstance(holder, dict) else None
    return [link] if isinstance(link, str) and link else []


def add_child(stats: FileStats, link: str) -> None:
    """Count a sub-agent's session into its parent's: only a file inside the folder
    named for the parent (a file from elsewhere may name any path: never followed)."""
    if not stats.path:
        return
    folder = os.path.realpath(os.path.splitext(stats.path)[0])
    child = os.path.realpath(os.path.join(os.path.dirname(stats.path), link))
    if os.path.dirname(child) != folder or not os.path.isfile(child):
        return
    try:
        counted = file_stats(child, STORE.stream(child).entries)
    except SessionError:
        return  # an unreadable child: the parent's own figures still stand
    stats.subagent_sessions += 1 + counted.subagent_sessions
    for model, row in counted.models.items():
        name = model if model.endswith(CHILDREN) else model + CHILDREN
        into = stats.models.setdefault(name, new_row())
        for key, value in row.items():
            into[key] += value


def count_message(stats: FileStats, message: Dict[str, Any]) -> None:
    role = message.get("role")
    if role == "user":
        stats.user_prompts += 1
    elif role == "toolResult" and message.get("isError"):
        stats.tool_errors += 1
    elif role == "assistant":
        stats.assistant_turns += 1
        add_usage(stats, f"{message.get('provider')}/{message.get('model')}", message.get("usage"))
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                name = str(block.get("name"))
                stats.tool_calls[name] = stats.tool_calls.get(name, 0) + 1


def add_usage(stats: FileStats, model: str, usage: Any, turn: bool = True) -> None:
    """One turn of `model` (or, turn=False, work outside the conversation) with its
    usage. Missing or odd numbers count as 0, as clean_usage has them; only the figures
    we add up are read (a big session has tens of thousands of replies)."""
    usage = usage if isinstance(usage, dict) else {}
    cost = usage.get("cost")
    row = stats.models.get(model)
    if row is None:  # not setdefault: that would build a new row for every turn
        row = stats.models[model] = new_row()
    row["turns"] += 1 if turn else 0
    for key in TOKEN_FIELDS:
        row[key] += token_count(usage.get(key))
    row["cost"] += cost_figure(cost.get("total")) if isinstance(cost, dict) else 0.0


def session_totals(session: Any) -> Tuple[FileStats, Dict[str, float]]:
    """The figures of a running session (every entry: abandoned branches were paid for
    too) and its tokens and cost summed over all models, as /session and rpc's
    get_session_stats show them: {"input", "output", "cacheRead", "cacheWrite", "cost"}."""
    stats = file_stats(session.file_path or "", session.entries)
    return stats, sum_models(stats)


def sum_models(stats: FileStats) -> Dict[str, float]:
    """Tokens and cost of every model's row added up: {"input", ..., "cost"}."""
    totals = {key: 0 for key in TOKEN_FIELDS}
    totals["cost"] = 0.0
    for row in stats.models.values():
        for key in totals:
            totals[key] += row[key]
    return totals


def new_row() -> Dict[str, float]:
    return {"turns": 0, "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0}


def number(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def add_up(files: List[FileStats]) -> FileStats:
    total = FileStats("total")
    for stats in files:
        total.user_prompts += stats.user_prompts
        total.assistant_turns += stats.assistant_turns
        total.tool_errors += stats.tool_errors
        total.usage_entries += stats.usage_entries
        total.subagent_sessions += stats.subagent_sessions
        for name, count in stats.tool_calls.items():
            total.tool_calls[name] = total.tool_calls.get(name, 0) + count
        for model, row in stats.models.items():
            into = total.models.setdefault(model, new_row())
            for key, value in row.items():
                into[key] += value
    return total


# --- Output -------------------------------------------------------------------------------


def format_stats_text(files: List[FileStats], total: FileStats) -> str:
    """Each file's block, then a total block when there are several files (no final
    newline: print() adds it)."""
    blocks = [format_block(stats.path, stats) for stats in files]
    if len(files) > 1:
        blocks.append(format_block(f"total ({len(files)} files)", total))
    return "\n\n".join(blocks)


def format_block(title: str, stats: FileStats) -> str:
    lines = [title,
             f"  user prompts     {stats.user_prompts}",
             f"  assistant turns  {stats.assistant_turns}",
             f"  tool calls       {sum(stats.tool_calls.values())}"]
    # One tool per line, its count after its name ("bash 206"), most used first.
    for name, count in sorted(stats.tool_calls.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"    {name} {count}")
    lines.append(f"  tool errors      {stats.tool_errors}")
    if stats.usage_entries:
        lines.append(f"  usage entries    {stats.usage_entries}")
    if stats.subagent_sessions:
        lines.append(f"  sub-agents       {stats.subagent_sessions} sessions")
    if stats.models:
        lines.append("  models")
        for model, row in stats.models.items():
            lines.append(f"    {model}  {row['turns']} turns  input {row['input']}  output "
                         f"{row['output']}  cache read {row['cacheRead']}  cache write "
                         f"{row['cacheWrite']}  ${row['cost']:.4f}")
    lines.append(f"  main model       {stats.main_model or '(none)'}")
    return "\n".join(lines)


def stats_json(files: List[FileStats], total: FileStats, errors: List[str]) -> str:
    """`--json`: the same figures as one JSON document (camelCase keys, as the files)."""
    return json.dumps({"files": [stats_dict(stats) for stats in files],
                       "total": stats_dict(total), "errors": errors}, indent=2, ensure_ascii=False)


def stats_dict(stats: FileStats) -> Dict[str, Any]:
    return {"path": stats.path, "userPrompts": stats.user_prompts,
            "assistantTurns": stats.assistant_turns, "toolCalls": stats.tool_calls,
            "toolErrors": stats.tool_errors, "usageEntries": stats.usage_entries,
            "subagentSessions": stats.subagent_sessions,
            "models": stats.models, "mainModel": stats.main_model}
