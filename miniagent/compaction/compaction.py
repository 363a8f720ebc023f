"""Compaction: trading old detail for room, so a long session outlives the window.

A model reads at most `context_window` tokens per request, and a coding session grows
with every file it reads. When the conversation nearly fills the window, compaction
replaces its older part with a structured summary and keeps the recent part word for
word. Nothing is deleted: the session file gains a `compaction` entry naming the first
kept entry, and the context the model sees is rebuilt as

    [summary of everything before the cut] + [entries from firstKeptEntryId on]

The steps, each a function below:

  1. **When** (`should_compact`, in estimate.py, which every run loads; this file is
     loaded only when a compaction is due): the context's tokens exceed the window
     minus a reserve (room for the reply and for the summary call). The tokens are the
     last usable reply's reported usage plus an estimate (characters / 4) for what
     came after.
  2. **Where to cut** (`find_cut_point`): walk back from the newest message until about
     `keep` tokens are collected; cut there, but never between a tool call and its
     result. A cut inside a turn (after the user's request, among its tool calls) is a
     *split turn*: the turn's start gets a summary of its own.
  3. **What to summarize** (`prepare_compaction`): everything from the start of the
     previous compaction's kept part up to the cut. So with two compactions in a row,
     every message is either summarized or kept: none falls between (D13 in docs/decisions.md;
     pi summarizes only what came after the previous compaction entry, and loses what
     that compaction had kept once the next one cuts past it).
  4. **Summarize** (`compact`, with summarize.py): one model call, or two at once for
     a split turn; a previous summary is updated rather than rewritten.

The reserve and the kept tail scale with small windows (a 4,096-token local model
cannot spare pi's fixed 16,384): reserve = min(16,384, window / 4), kept tail =
min(20,000, window / 2), unless settings say otherwise:

    window     reserve   kept tail   compacts above
    4,096       1,024      2,048          3,072
    32,768      8,192     16,384         24,576
    200,000    16,384     20,000        183,616

Branch summaries (for /tree: leaving one branch of the conversation for another) use
the same summarizer on the entries being left: see branch_summary.py.

Left out: extensions that supply their own summary (pi's `fromHook`), a real tokenizer.
"""

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ..core.messages import Message, Usage, empty_usage
from ..models.usage import add_usages
from ..session.rebuild import compaction_summary, context_message
from .estimate import CompactionSettings, estimate_context_tokens, estimate_tokens
from .summarize import (HISTORY_PROMPT, TURN_PREFIX_PROMPT, UPDATE_PROMPT, FileOps,
                        ask_summarizer, format_file_lists, summarizer_input, without_file_lists)

HISTORY_SHARE = 0.8  # of the reserve, for the summary's max_tokens
PREFIX_SHARE = 0.5  # of the reserve, for a split turn's prefix summary
NO_PRIOR_HISTORY = "Nothing happened before this turn."
SPLIT_TURN_HEADER = ("\n\n---\n\n**The turn in progress (its start, summarised; the rest is "
                     "kept):**\n\n")


# --- 2. The cut point ------------------------------------------------------------------------

@dataclass
class CutPoint:
    first_kept_index: int
    """The first entry kept as it is."""
    turn_start_index: Optional[int]
    """For a split turn, the entry where the cut turn began (its user message)."""
    is_split_turn: bool


_CUTTABLE_ROLES = ("user", "assistant", "bashExecution", "custom", "branchSummary",
                   "compactionSummary")


def entry_role(entry: Dict[str, Any]) -> Optional[str]:
    return entry["message"].get("role") if entry.get("type") == "message" else None


def _is_cut_point(entry: Dict[str, Any]) -> bool:
    """A tool result is never the first kept entry: it would lose its tool call."""
    return entry_role(entry) in _CUTTABLE_ROLES or entry.get("type") in ("branch_summary",
                                                                     "custom_message")


def _starts_turn(entry: Dict[str, Any]) -> bool:
    return entry_role(entry) in ("user", "bashExecution") or \
        entry.get("type") in ("branch_summary", "custom_message")


def find_cut_point(entries: List[Dict[str, Any]], start: int, end: int,
                   keep_recent_tokens: int) -> CutPoint:
    """Where to cut entries[start:end] so that about keep_recent_tokens stay.

    Example (tokens per entry): user 10, assistant 10, toolResult 500, assistant 10,
    with keep 400: walking back, the budget is reached at the tool result (index 2),
    which cannot be cut at, so the cut moves to the next cut point, index 3: an
    assistant in the middle of the turn -> CutPoint(3, 0, True), a split turn.
    """
    cut_points = [i for i in range(start, end) if _is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start, None, False)
    cut = cut_points[0]  # the budget is never reached: keep everything
    collected = 0
    for index in range(end - 1, start - 1, -1):
        if entries[index].get("type") != "message":
            continue
        collected += estimate_tokens(entries[index]["message"])
        if collected >= keep_recent_tokens:
            later = [i for i in cut_points if i >= index]
            # none later (the newest entry is a tool result): its call is the cut, so the
            # pair stays together, rather than pi's choice of keeping everything
            cut = later[0] if later else max(i for i in cut_points if i < index)
            break
    # Split or not is decided at the message cut, before moving over settings entries.
    is_user = entry_role(entries[cut]) == "user"
    turn_start = None if is_user else _find_turn_start(entries, cut, start)
    # Entries that only set something (model, thinking level, label) go with what follows.
    while cut > start and entries[cut - 1].get("type") not in ("message", "compaction"):
        cut -= 1
    return CutPoint(cut, turn_start, turn_start is not None)


def _find_turn_start(entries: List[Dict[str, Any]], cut: int, start: int) -> Optional[int]:
    for index in range(cut, start - 1, -1):
        if _starts_turn(entries[index]):
            return index
    return None


# --- 3. Preparation ----------------------------------------------------------------------------

@dataclass
class Preparation:
    """Everything compact() needs, computed without a model call."""

    first_kept_entry_id: str
    messages_to_summarize: List[Message]
    turn_prefix_messages: List[Message]
    is_split_turn: bool
    tokens_before: int
    previous_summary: Optional[str]
    file_ops: FileOps
    context_window: int
    reserve_tokens: int


def _messages(entries: List[Dict[str, Any]]) -> List[Message]:
    """The messages entries contribute. An older compaction entry contributes none: its
    summary lives on inside the latest one."""
    found = (context_message(e) for e in entries)
    return [m for m in found if m is not None]


def _latest_compaction(entries: List[Dict[str, Any]]) -> Optional[int]:
    return next((i for i in range(len(entries) - 1, -1, -1)
                 if entries[i].get("type") == "compaction"), None)


def _window_start(entries: List[Dict[str, Any]], previous: Optional[int]) -> int:
    """Decision 13: the window starts where the previous compaction's kept part starts,
    so what it kept is now summarized or kept again, never dropped."""
    if previous is None:
        return 0
    kept_id = entries[previous].get("firstKeptEntryId")
    return next((i for i in range(previous) if entries[i].get("id") == kept_id), previous + 1)


def prepare_compaction(branch_entries: List[Dict[str, Any]], settings: CompactionSettings,
                       context_window: int) -> Optional[Preparation]:
    """What to summarize and what to keep on a branch (root -> leaf); None when there is
    nothing to compact (see nothing_to_compact_message for the words)."""
    entries = branch_entries
    if not entries or entries[-1].get("type") == "compaction":
        return None
    reserve, keep = settings.for_window(context_window)
    previous = _latest_compaction(entries)
    start = _window_start(entries, previous)
    cut = find_cut_point(entries, start, len(entries), keep)
    first_kept = cut.first_kept_index
    kept_id = entries[first_kept].get("id") if first_kept < len(entries) else None
    history_end = cut.turn_start_index if cut.is_split_turn else first_kept
    to_summarize = _messages(entries[start:history_end])
    prefix = _messages(entries[cut.turn_start_index:first_kept]) if cut.is_split_turn else []
    if kept_id is None or not (to_summarize or prefix):
        return None

    previous_summary = None
    file_ops = FileOps()
    carried: List[Message] = []
    if previous is not None:
        entry = entries[previous]
        previous_summary = without_file_lists(entry["summary"])
        carried = [compaction_summary(entry)]
        if not entry.get("fromHook"):
            file_ops.seed(entry.get("details"))
    file_ops.add_messages(to_summarize + prefix)
    tokens_before = estimate_context_tokens(carried + _messages(entries[start:]))
    return Preparation(kept_id, to_summarize, prefix, cut.is_split_turn, tokens_before,
                       previous_summary, file_ops, context_window, reserve)


def nothing_to_compact_message(branch_entries: List[Dict[str, Any]]) -> str:
    """The words for a None from prepare_compaction, for /compact to show."""
    if branch_entries and branch_entries[-1].get("type") == "compaction":
        return "Already compacted: nothing was added since the last compaction."
    return "Nothing to compact yet: the whole conversation fits in the part that is kept."


# --- 4. Summarizing ---------------------------------------------------------------------------

@dataclass
class CompactionResult:
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Dict[str, List[str]] = field(default_factory=dict)
    """{"readFiles": [...], "modifiedFiles": [...]}, stored with the compaction entry."""
    usage: Usage = field(default_factory=empty_usage)
    """What the summary requests cost (both, for a split turn), stored with the entry
    as pi 1.6 stores it: session totals and `miniagent stats` count it."""


def compact(preparation: Preparation, model, stream_fn, api_key: Optional[str] = None,
            abort: Optional[threading.Event] = None, custom_instructions: Optional[str] = None,
            thinking: Optional[str] = None) -> CompactionResult:
    """Summarize a preparation; raises CompactionError (one line) when a call fails or
    is cancelled. thinking None: "high" for a reasoning model, else "off"."""
    prep = preparation
    abort = abort or threading.Event()
    window, reserve = prep.context_window, prep.reserve_tokens
    history_tokens = min(int(HISTORY_SHARE * reserve), model.max_tokens)
    prefix_tokens = min(int(PREFIX_SHARE * reserve), model.max_tokens)

    def history() -> Tuple[str, Usage]:
        if not prep.messages_to_summarize:  # only a split turn's start is new
            return prep.previous_summary or NO_PRIOR_HISTORY, empty_usage()
        prompt = UPDATE_PROMPT if prep.previous_summary else HISTORY_PROMPT
        text = summarizer_input(prep.messages_to_summarize, prompt, window - history_tokens,
                                prep.previous_summary, custom_instructions)
        level = thinking or ("high" if model.reasoning else "off")
        return ask_summarizer(model, stream_fn, text, history_tokens, level, api_key, abort,
                              "Summarising the conversation")

    def turn_prefix() -> Tuple[str, Usage]:
        text = summarizer_input(prep.turn_prefix_messages, TURN_PREFIX_PROMPT,
                                window - prefix_tokens)
        return ask_summarizer(model, stream_fn, text, prefix_tokens, "off", api_key, abort,
                              "Summarising the start of the current turn")

    if prep.is_split_turn:  # two independent requests: run them at the same time
        with ThreadPoolExecutor(max_workers=2) as pool:
            history_job, prefix_job = pool.submit(history), pool.submit(turn_prefix)
            (summary, usage), (prefix, prefix_usage) = history_job.result(), prefix_job.result()
        summary, usage = summary + SPLIT_TURN_HEADER + prefix, add_usages(usage, prefix_usage)
    else:
        summary, usage = history()
    details = prep.file_ops.details()
    return CompactionResult(summary + format_file_lists(details), prep.first_kept_entry_id,
                            prep.tokens_before, details, usage)

