"""From a session tree to what the model sees: one branch, compaction applied.

A session file holds every branch the conversation ever took; the model gets one of them.
`build_session_context` walks from a leaf entry up to the root, then reads that path
top-down, keeping the entries that are messages for the model:

    message             as it is (user, assistant, toolResult, and pi's bashExecution)
    custom_message      {"role": "custom", "customType", "content", "display", ...}
    branch_summary      {"role": "branchSummary", "summary", "fromId", "timestamp"}
    compaction          only the latest one on the path counts: its summary comes FIRST,
                        {"role": "compactionSummary", "summary", "tokensBefore", ...},
                        then the path from the entry it kept first, then what followed it

A worked example (C = a compaction whose firstKeptEntryId is u2):

    path      u1 a1 u2 a2 C u3 a3
    context   summary(C) u2 a2 u3 a3

Three of pi 1.6's parts change what the model gets without being messages for it:

    context_edit        {"targetId", "replacement"}: the latest edit of an entry on the
                        shown path wins; null leaves the entry out (a tool result left
                        out is then sent as `No result provided`, as pi sends it:
                        providers/history.py), {"content": ...} replaces only its content
                        (a string becomes one text block for assistant and toolResult)
    system messages     {"role": "system", "sections", "toolsAdded", ...}: the record of
                        what a session told its model;
                        NEVER sent: a shared file must not put system-role text in front
                        of our model, which gets our own prompt and tools
    usage               tokens spent outside the conversation: counted (stats.py), not sent

On the way it notes the settings in force at the leaf: the thinking level of the last
thinking_level_change ("off" without one) and the model of the last model_change or
assistant reply, whichever came later.

Failed replies stay in the list: the providers drop them when they send it
(providers/history.py). Turning summaries and custom messages into user messages for
the wire is convert.py's job; entry timestamps (ISO text) become the messages' epoch milliseconds here.

Left out: choosing where to compact (compaction/compaction.py) and writing (tree.py).
"""

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

# The default leaf: the last entry in file order (None means "before the first entry").
LAST = object()


@dataclass
class SessionContext:
    """What the model gets from a session: the messages, and the settings in force."""
    messages: List[Dict[str, Any]]
    thinking_level: str
    model: Optional[Dict[str, str]]  # {"provider", "modelId", "baseUrl"?} or None


def build_session_context(entries: List[dict], leaf_id: Any = LAST,
                          by_id: Optional[Dict[str, dict]] = None) -> SessionContext:
    """The messages on the path to `leaf_id` (unknown or default: the last entry;
    None: nothing), the latest compaction's summary first, and the thinking level and
    model in force there (assistant replies count as a model choice)."""
    if leaf_id is None or not entries:
        return SessionContext([], "off", None)
    by_id = by_id if by_id is not None else {entry["id"]: entry for entry in entries}
    leaf = by_id.get(leaf_id) if isinstance(leaf_id, str) else None
    path = path_to(leaf or entries[-1], by_id)
    thinking, model, compaction = "off", None, None
    for entry in path:
        kind = entry["type"]
        if kind == "thinking_level_change":
            thinking = entry.get("thinkingLevel") or "off"
        elif kind == "model_change":
            model = optional({"provider": entry.get("provider"), "modelId": entry.get("modelId")},
                             baseUrl=entry.get("baseUrl"))
        elif kind == "message" and entry["message"].get("role") == "assistant":
            model = model_of_reply(entry["message"], model)
        elif kind == "compaction":
            compaction = entry
    if compaction is None:
        shown = path
    else:
        at = next(i for i, entry in enumerate(path) if entry is compaction)
        kept_ids = [entry["id"] for entry in path[:at]]
        first = compaction.get("firstKeptEntryId")
        start = kept_ids.index(first) if first in kept_ids else at
        shown = path[start:at] + path[at + 1:]
    messages = [compaction_summary(compaction)] if compaction else []
    edits = {entry.get("targetId"): entry for entry in shown if entry["type"] == "context_edit"}
    for entry in shown:
        message = context_message(entry)
        if message is not None and entry["id"] in edits:
            message = edited(message, edits[entry["id"]]["replacement"])
        if message is not None:
            messages.append(message)
    return SessionContext(messages, thinking, model)


def edited(message: Dict[str, Any], replacement: Optional[dict]) -> Optional[Dict[str, Any]]:
    """A message as a context_edit leaves it: None (dropped), or a copy with new content.

    Example: toolResult "secret", replacement {"content": "[removed]"}
        -> the same toolResult with content [{"type": "text", "text": "[removed]"}]
    """
    if replacement is None:
        return None
    content = replacement["content"]
    if isinstance(content, str) and message.get("role") in ("assistant", "toolResult"):
        content = [{"type": "text", "text": content}]  # those roles hold block lists
    return {**message, "content": content}


def model_of_reply(message: Dict[str, Any], previous: Optional[dict]) -> Dict[str, str]:
    """The model a reply came from. A reply from the model last chosen keeps its baseUrl."""
    model = {"provider": message.get("provider"), "modelId": message.get("model")}
    if previous and previous.get("baseUrl") and previous["provider"] == model["provider"] \
            and previous["modelId"] == model["modelId"]:
        model["baseUrl"] = previous["baseUrl"]
    return model


def context_message(entry: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The message an entry contributes to the context, shaped as pi shapes it, or None."""
    kind = entry["type"]
    if kind == "message":
        # A system message is the record of what a model was told, not conversation:
        # it is never sent, summarized or counted as context.
        return None if entry["message"].get("role") == "system" else entry["message"]
    if kind == "custom_message":
        return optional({"role": "custom", "customType": entry.get("customType"),
                         "content": entry.get("content"), "display": entry.get("display", True)},
                        details=entry.get("details"), timestamp=iso_to_ms(entry["timestamp"]))
    if kind == "branch_summary" and entry.get("summary"):
        return {"role": "branchSummary", "summary": entry["summary"], "fromId": entry.get("fromId"),
                "timestamp": iso_to_ms(entry["timestamp"])}
    return None


def compaction_summary(entry: Dict[str, Any]) -> Dict[str, Any]:
    return {"role": "compactionSummary", "summary": entry.get("summary", ""),
            "tokensBefore": entry.get("tokensBefore", 0), "timestamp": iso_to_ms(entry["timestamp"])}


def path_to(leaf: Dict[str, Any], by_id: Dict[str, dict]) -> List[dict]:
    """Root -> leaf, following parentId; stops at a missing parent (or a loop)."""
    path, seen = [], set()
    entry = leaf
    while entry is not None and entry["id"] not in seen:
        seen.add(entry["id"])
        path.append(entry)
        entry = by_id.get(entry.get("parentId"))
    path.reverse()
    return path


def iso_to_ms(timestamp: Any) -> int:
    """Example: "1970-01-01T00:00:01.500Z" -> 1500 (0 when it is not a timestamp)."""
    try:
        moment = datetime.fromisoformat(str(timestamp).replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1000)


def optional(fields: Dict[str, Any], **extra: Any) -> Dict[str, Any]:
    """fields plus the extra ones that are not None (pi leaves absent fields out).

    Example: optional({"a": 1}, b=None, c=2) -> {"a": 1, "c": 2}
    """
    fields.update((key, value) for key, value in extra.items() if value is not None)
    return fields
