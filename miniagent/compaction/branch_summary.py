"""Branch summaries: what the user leaves behind when moving to another branch.

A session is a tree: going back to an earlier entry and typing something else starts
a new branch, and the old one stays in the file. When /tree moves the leaf from one
branch to another, the model would otherwise forget everything the abandoned branch
found out. So the entries being left are summarized (the same summarizer as
compaction's, with a prompt for branches), and the summary is appended as a
`branch_summary` entry where the conversation continues:

    root - a - b - c (old leaf)            collect_entries_to_summarize -> [b, c]
             \
              d (target)  + branch_summary "On the other branch: ..."

The newest messages of the branch are summarized, as many as fit in the window; tool
results are left out (the calls say what was done), and the files the branch touched
are listed at the end, as after a compaction.

Left out: summaries an extension supplies (pi's `fromHook`).
"""

import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from .compaction import entry_role
from .estimate import CompactionSettings, estimate_tokens
from ..core.messages import Message
from ..session.rebuild import compaction_summary, context_message
from .summarize import (BRANCH_PROMPT, FileOps, ask_summarizer, format_file_lists,
                        summarizer_input)

BRANCH_MAX_TOKENS = 2_048  # a branch summary is short: it is a note, not a checkpoint
NO_BRANCH_CONTENT = "Nothing on that branch needed a summary."


def collect_entries_to_summarize(all_entries_by_id: Dict[str, Dict[str, Any]],
                                 old_leaf_id: Optional[str],
                                 target_id: str) -> List[Dict[str, Any]]:
    """The entries being left when the leaf moves from old_leaf_id to target_id: from
    the old leaf up to (not including) the deepest entry both share, oldest first.

    Example: root -> a -> b (old leaf), root -> c (target): [a, b].
    """
    on_target_path = set()
    current: Optional[str] = target_id
    while current is not None and current not in on_target_path:
        on_target_path.add(current)
        current = all_entries_by_id.get(current, {}).get("parentId")
    leaving: List[Dict[str, Any]] = []
    seen = set()
    current = old_leaf_id
    while current is not None and current not in on_target_path and current not in seen:
        entry = all_entries_by_id.get(current)
        if entry is None:
            break
        seen.add(current)
        leaving.append(entry)
        current = entry.get("parentId")
    return list(reversed(leaving))


@dataclass
class BranchPreparation:
    messages: List[Message]
    file_ops: FileOps
    total_tokens: int
    context_window: int

    @property
    def details(self) -> Dict[str, List[str]]:
        """The file lists to store with the branch_summary entry."""
        return self.file_ops.details()


def prepare_branch_summary(entries_to_summarize: List[Dict[str, Any]], context_window: int,
                           settings: CompactionSettings) -> BranchPreparation:
    """The newest messages of the branch that fit the window (tool results left out: the
    calls say what was done), and the files the whole branch touched."""
    reserve, _ = settings.for_window(context_window)
    budget = context_window - reserve
    file_ops = FileOps()
    for entry in entries_to_summarize:
        if entry.get("type") == "branch_summary" and not entry.get("fromHook"):
            file_ops.seed(entry.get("details"))
    picked: List[Message] = []
    total = 0
    for entry in reversed(entries_to_summarize):
        message = None if entry_role(entry) == "toolResult" else _message(entry)
        if message is None:
            continue
        file_ops.add_messages([message])
        tokens = estimate_tokens(message)
        if total + tokens > budget:
            # an earlier summary is dense: take it if most of the room is still free
            if entry.get("type") in ("compaction", "branch_summary") and total < 0.9 * budget:
                picked.append(message)
                total += tokens
            break
        picked.append(message)
        total += tokens
    return BranchPreparation(list(reversed(picked)), file_ops, total, context_window)


def _message(entry: Dict[str, Any]) -> Optional[Message]:
    """An entry as a message; on a branch, a compaction counts as its summary."""
    if entry.get("type") == "compaction":
        return compaction_summary(entry)
    return context_message(entry)


def summarize_branch(preparation: BranchPreparation, model, stream_fn,
                     api_key: Optional[str] = None, abort: Optional[threading.Event] = None,
                     custom_instructions: Optional[str] = None,
                     replace_instructions: bool = False) -> str:
    """The summary text for a branch_summary entry; raises CompactionError on failure.
    replace_instructions: custom_instructions replace the prompt instead of adding focus."""
    if not preparation.messages:
        return NO_BRANCH_CONTENT
    max_tokens = min(BRANCH_MAX_TOKENS, model.max_tokens)
    prompt = custom_instructions if replace_instructions and custom_instructions else BRANCH_PROMPT
    focus = None if replace_instructions else custom_instructions
    text = summarizer_input(preparation.messages, prompt,
                            preparation.context_window - max_tokens, custom_instructions=focus)
    summary, _usage = ask_summarizer(model, stream_fn, text, max_tokens, "off", api_key,
                                     abort or threading.Event(), "Summarising the branch")
    return summary + format_file_lists(preparation.details)
