"""When to compact: the context's tokens counted, the trigger, and an overflow told.

Every run needs these after each reply, so they live apart from the compaction itself
(compaction.py: the cut point and the summary call), which is loaded only when one is
due: a run that never fills its window never loads the summarizer (the start-up budget).

    tokens  = the last usable reply's reported usage + characters / 4 for what followed
    compact when tokens > window - reserve      reserve = min(16,384, window / 4)

Left out: a real tokenizer (a guess errs early, which costs one summary too soon).
"""

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ..core.messages import Message, tool_calls
from ..models.usage import clean_usage, estimate_tokens_of
from ..providers.verdict import verdict_of

RESERVE_CAP = 16_384
KEEP_CAP = 20_000


@dataclass
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: Optional[int] = None
    """Tokens kept free for the reply and the summary; None: min(16,384, window / 4)."""
    keep_recent_tokens: Optional[int] = None
    """Tokens of the newest conversation kept as they are; None: min(20,000, window / 2)."""

    def for_window(self, context_window: int) -> Tuple[int, int]:
        """(reserve, keep) for a window. Example: 4096 -> (1024, 2048)."""
        reserve = self.reserve_tokens if self.reserve_tokens is not None \
            else min(RESERVE_CAP, context_window // 4)
        keep = self.keep_recent_tokens if self.keep_recent_tokens is not None \
            else min(KEEP_CAP, context_window // 2)
        return reserve, keep


# --- 1. Counting tokens and the trigger ---------------------------------------------------

def estimate_tokens(message: Dict[str, Any]) -> int:
    """A cheap, tokenizer-free guess: the one rule of messages.estimate_tokens_of
    (characters / 4, rounded up, and a flat price per image).

    Example: an assistant message with text "Reading it." and a call read {"path": "a.py"}
        -> ceil((11 + len("read") + len('{"path":"a.py"}')) / 4) = 8
    """
    chars, images = text_and_images(message)
    return estimate_tokens_of(chars, images)


def text_and_images(message: Dict[str, Any]) -> Tuple[int, int]:
    """The characters of a message's text and the number of its images that count."""
    role = message.get("role")
    if role in ("compactionSummary", "branchSummary"):
        return len(message.get("summary", "")), 0
    if role == "bashExecution":
        return len(message.get("command", "")) + len(message.get("output", "")), 0
    if role not in ("user", "assistant", "toolResult", "custom"):
        return 0, 0
    content = message.get("content", [])
    if isinstance(content, str):
        return len(content), 0
    if role == "assistant":
        return sum(len(b.get("text", "")) + len(b.get("thinking", "")) for b in content) + \
            sum(len(c["name"]) + len(json.dumps(c.get("arguments", {}), separators=(",", ":"),
                                                ensure_ascii=False))
                for c in tool_calls(message)), 0
    chars = sum(len(b.get("text", "")) for b in content if b.get("type") == "text")
    if role == "user":  # images a user pastes are not counted, as in pi
        return chars, 0
    return chars, sum(1 for b in content if b.get("type") == "image")


def context_tokens(usage: Dict[str, Any]) -> int:
    """What a reply's usage says the context held. Example: {1000, 500, 200, 100} -> 1800."""
    return usage.get("totalTokens") or sum(
        usage.get(key, 0) for key in ("input", "output", "cacheRead", "cacheWrite"))


def last_usable_index(messages: List[Message]) -> Optional[int]:
    """The last reply whose usage measures the current context: not an error or abort
    (they report nothing useful), and newer than every compaction summary in the list
    (a reply kept by a compaction measured the longer context before it)."""
    summarized_at = max((m.get("timestamp", 0) for m in messages
                         if m.get("role") == "compactionSummary"), default=None)
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "assistant" or message.get("stopReason") in ("error", "aborted"):
            continue
        if summarized_at is None or message.get("timestamp", 0) > summarized_at:
            return index
    return None


def last_usable_usage(messages: List[Message]) -> Optional[Dict[str, Any]]:
    index = last_usable_index(messages)
    return None if index is None else clean_usage(messages[index].get("usage"))


def estimate_context_tokens(messages: List[Message]) -> int:
    """The reported usage of the last usable reply plus estimates for what followed it;
    all estimates when no reply qualifies."""
    index = last_usable_index(messages)
    if index is None:
        return sum(estimate_tokens(m) for m in messages)
    return context_tokens(clean_usage(messages[index].get("usage"))) + \
        sum(estimate_tokens(m) for m in messages[index + 1:])


def should_compact(tokens: int, context_window: int, settings: CompactionSettings) -> bool:
    """Example: 95,000 tokens, window 100,000, reserve 10,000 -> True; 89,000 -> False."""
    reserve, _ = settings.for_window(context_window)
    return settings.enabled and tokens > context_window - reserve


def is_context_overflow(message: Dict[str, Any], context_window: Optional[int] = None) -> bool:
    """Did this reply fail because the request was larger than the window (its verdict
    says so: the server's words were read where the failure was first seen, in
    http/classify.py)? Also true for a "silent" overflow: a normal stop whose input
    alone exceeds the window."""
    if message.get("stopReason") == "error":
        return verdict_of(message).overflow
    if context_window and message.get("stopReason") == "stop":
        usage = clean_usage(message.get("usage"))  # a session file's may be anything
        return usage.get("input", 0) + usage.get("cacheRead", 0) > context_window
    return False
