"""Summaries: how old conversation becomes text a model can summarize, and back.

compaction.py decides *what* to summarize; this module does the summarizing. A
summarizer is the same model, asked in a fresh request with no tools:

    system   "you write summaries, you do not continue the conversation"
    user     <conversation>
             [User]: fix the failing test
             [Assistant tool calls]: read(path="test_app.py")
             [Tool result]: def test_add(): ...
             </conversation>
             <previous-summary> ... </previous-summary>     (when there is one)
             the prompt: the headings the summary must fill in

The conversation is serialised as plain text, not sent as messages: a model that is
shown a conversation as messages tends to carry it on instead of describing it. Tool
results are cut to 2,000 characters (the summary needs what happened, not every line
of a file); user and assistant text is kept whole; the model's thinking is left out.

The summary ends with the files the work touched, collected from the tool calls rather
than trusted to the model, and carried from one compaction to the next:

    <read-files>
    README.md
    </read-files>

    <modified-files>
    app.py
    </modified-files>

When the conversation to summarize is larger than the summarizer's own window, its
oldest part is left out, and a note at the top of <conversation> says so.

Left out: token counting with a real tokenizer. The input is fitted with the one guess
every size uses (messages.estimate_tokens_of: 4 characters a token); text denser than
that may still not fit, and the summary call then fails with the server's one line.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from ..errors import CompactionError
from ..session.convert import convert_to_llm
from ..core.messages import Message, Usage, text_of, tool_calls, user_message
from ..models.usage import chars_for_tokens, clean_usage
from ..files.text import one_line
from ..core.provider import StreamOptions
from ..project.wrappers import defuse_closing_tags

TOOL_RESULT_LIMIT = 2000  # characters of a tool result the summarizer sees


# --- The prompts (our words; the headings are the structure every summary shares) ----------

SYSTEM_PROMPT = (
    "You write summaries of conversations between a user and an AI coding assistant. Read "
    "the conversation you are given and write the structured summary asked for, in exactly "
    "the requested format.\n\n"
    "Do not reply to the conversation, do not answer its questions and do not carry on its "
    "work. Write only the summary.")

_SECTIONS = """## Goal
[What the user wants to achieve; several goals as a list]

## Constraints & Preferences
- [Requirements, limits and preferences the user stated, or "(none)"]

## Progress
### Done
- [x] [Work that is finished]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What to do next, in order]
"""

HISTORY_PROMPT = (
    "The text in <conversation> is a conversation to summarise. Write a structured "
    "checkpoint of it: another model will read only this summary and must be able to carry "
    "on the work from it.\n\nUse exactly this format:\n\n" + _SECTIONS +
    "\n## Critical Context\n- [Data, examples and facts needed to continue, or \"(none)\"]\n\n"
    "Keep every section short. Copy file paths, function names and error messages exactly.")

UPDATE_PROMPT = (
    "The text in <conversation> is NEW conversation that happened after the summary in "
    "<previous-summary>. Update that summary with it.\n\n"
    "- Keep everything the previous summary says, unless the new messages make it obsolete.\n"
    "- Add the new progress, decisions and context.\n"
    "- Move items from In Progress to Done when the new messages finish them.\n"
    "- Rewrite Next Steps to match what is left to do.\n"
    "- Copy file paths, function names and error messages exactly.\n\n"
    "Use exactly this format:\n\n" + _SECTIONS +
    "\n## Critical Context\n- [Data, examples and facts needed to continue, or \"(none)\"]\n\n"
    "Keep every section short.")

TURN_PREFIX_PROMPT = (
    "The text in <conversation> is the START of one turn that was too long to keep. The "
    "rest of the turn (the most recent work) is kept word for word and follows this "
    "summary. Summarise the start so that the kept rest makes sense:\n\n"
    "## Original Request\n[What the user asked for in this turn]\n\n"
    "## Early Progress\n- [What was decided and done in this start]\n\n"
    "## Context for Suffix\n- [What is needed to understand the kept rest of the turn]\n\n"
    "Be brief: write only what the kept part needs.")

BRANCH_PROMPT = (
    "The text in <conversation> is a branch of a conversation that the user is leaving to "
    "continue elsewhere. Write a structured summary of it, to be read when the conversation "
    "comes back to this branch's starting point.\n\nUse exactly this format:\n\n" + _SECTIONS +
    "\nKeep every section short. Copy file paths, function names and error messages exactly.")


# --- Serialisation -------------------------------------------------------------------------

def serialize_conversation(messages: List[Message]) -> str:
    """Wire messages as labelled text, one paragraph per part.

    Example: [user "hi", assistant [text "Reading.", toolCall read {"path": "a.py"}]]
        -> '[User]: hi\\n\\n[Assistant]: Reading.\\n\\n[Assistant tool calls]: read(path="a.py")'
    """
    return "\n\n".join(part for message in messages for part in _parts(message))


def _parts(message: Message) -> List[str]:
    role = message.get("role")
    content = message.get("content", [])
    if role == "user":
        text = content if isinstance(content, str) else "".join(
            b["text"] for b in content if b.get("type") == "text")
        return [f"[User]: {text}"] if text else []
    if role == "assistant":
        # Thinking is left out, as pi 1.6 leaves it: it is the provider's summary of the
        # reasoning, often not in the model's own context, and can outweigh the rest.
        parts = []
        said = "\n".join(b["text"] for b in content if b.get("type") == "text")
        calls = "; ".join(_call_text(call) for call in tool_calls(message))
        for label, text in (("Assistant", said), ("Assistant tool calls", calls)):
            if text:
                parts.append(f"[{label}]: {text}")
        return parts
    if role == "toolResult":
        text = "".join(b["text"] for b in content if b.get("type") == "text")
        return [f"[Tool result]: {cut_tool_result(text)}"] if text else []
    return []


def _call_text(call: Dict[str, Any]) -> str:
    arguments = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}"
                          for key, value in call.get("arguments", {}).items())
    return f"{call['name']}({arguments})"


def cut_tool_result(text: str) -> str:
    """Example: 5,000 characters -> the first 2,000, then
    "\\n\\n[... 3000 more characters not shown]"."""
    if len(text) <= TOOL_RESULT_LIMIT:
        return text
    hidden = len(text) - TOOL_RESULT_LIMIT
    return f"{text[:TOOL_RESULT_LIMIT]}\n\n[... {hidden} more characters not shown]"


# --- File tracking ---------------------------------------------------------------------------

@dataclass
class FileOps:
    """The paths the work touched, from read / write / edit tool calls, as the model
    wrote them. A file both read and modified counts as modified."""

    read: Set[str] = field(default_factory=set)
    modified: Set[str] = field(default_factory=set)

    def seed(self, details: Optional[Dict[str, Any]]) -> None:
        """Carry forward the lists of an earlier summary (its entry's `details`)."""
        details = details or {}
        self.read.update(p for p in details.get("readFiles", []) if isinstance(p, str))
        self.modified.update(p for p in details.get("modifiedFiles", []) if isinstance(p, str))

    def add_messages(self, messages: List[Message]) -> None:
        for message in messages:
            if message.get("role") != "assistant":
                continue
            for call in tool_calls(message):
                path = call.get("arguments", {}).get("path")
                if not isinstance(path, str):
                    continue
                if call["name"] == "read":
                    self.read.add(path)
                elif call["name"] in ("write", "edit"):
                    self.modified.add(path)

    def details(self) -> Dict[str, List[str]]:
        """Example: read {a, b}, modified {b} -> {"readFiles": ["a"], "modifiedFiles": ["b"]}"""
        return {"readFiles": sorted(self.read - self.modified),
                "modifiedFiles": sorted(self.modified)}


def format_file_lists(details: Dict[str, List[str]]) -> str:
    """The lists as they end a summary; nothing when both are empty."""
    sections = [f"<{tag}>\n" + "\n".join(details[key]) + f"\n</{tag}>"
                for tag, key in (("read-files", "readFiles"), ("modified-files", "modifiedFiles"))
                if details.get(key)]
    return "\n\n" + "\n\n".join(sections) if sections else ""


_FILE_LISTS = re.compile(r"\s*<(read-files|modified-files)>.*?</\1>", re.DOTALL)


def without_file_lists(summary: str) -> str:
    """A summary without its file lists: the lists travel in `details` and are written
    again at the end of the next summary, so the model need not copy them."""
    return _FILE_LISTS.sub("", summary).rstrip()


# --- The summarizer's input and the call ------------------------------------------------------

def summarizer_input(messages: List[Message], prompt: str, room_tokens: int,
                     previous_summary: Optional[str] = None,
                     custom_instructions: Optional[str] = None) -> str:
    """The one user message a summarizer gets, fitted into `room_tokens`.

    If the serialised conversation does not fit, its oldest part is left out (the
    newest matters most for carrying on), and a note says how much is missing.
    """
    tail = ""
    if previous_summary:
        previous = defuse_closing_tags(previous_summary)
        tail += f"<previous-summary>\n{previous}\n</previous-summary>\n\n"
    tail += prompt
    if custom_instructions:
        tail += f"\n\nPay particular attention to: {custom_instructions}"
    # Tool output is foreign text: it must not end the <conversation> (project/wrappers.py).
    conversation = defuse_closing_tags(serialize_conversation(convert_to_llm(messages)))
    room = chars_for_tokens(room_tokens) - len(SYSTEM_PROMPT) - len(tail) - 300  # 300: the note
    kept = keep_newest(conversation, room)
    if len(kept) < len(conversation):
        kept = (f"[Note: the oldest {len(conversation) - len(kept)} characters of this "
                f"conversation did not fit in the summariser's context window and were left "
                f"out; summarise what follows.]\n\n{kept}")
    return f"<conversation>\n{kept}\n</conversation>\n\n{tail}"


_PART_START = re.compile(r"\n\n(?=\[(User|Assistant|Assistant tool calls|"
                         r"Tool result)\]: )")


def keep_newest(conversation: str, room: int) -> str:
    """The end of a serialised conversation that fits in `room` characters, starting at
    a message's label when one is in reach (half a message would mislead).

    Example: keep_newest("[User]: aaaa\\n\\n[User]: bb", 12) -> "[User]: bb"
    """
    if len(conversation) <= room:
        return conversation
    tail = conversation[len(conversation) - room:] if room > 0 else ""
    boundary = _PART_START.search(tail)
    return tail[boundary.end():] if boundary else tail


def ask_summarizer(model, stream_fn, text: str, max_tokens: int, thinking: str,
                   api_key: Optional[str], abort, what: str) -> Tuple[str, Usage]:
    """One summarizer request through the provider contract (stream_fn never raises);
    returns the reply's text and usage (it is paid for: the session's totals count it),
    or raises CompactionError naming `what` failed."""
    context = {"systemPrompt": SYSTEM_PROMPT, "messages": [user_message(text)], "tools": []}
    options = StreamOptions(abort=abort, api_key=api_key, thinking=thinking,
                            max_tokens=max_tokens)
    final = None
    for event in stream_fn(model, context, options):
        if event["type"] == "done":
            final = event["message"]
        elif event["type"] == "error":
            final = event["error"]
    if abort.is_set() or (final or {}).get("stopReason") == "aborted":
        raise CompactionError("Compaction cancelled", aborted=True)
    if final is None:  # the contract says this cannot happen; say so rather than crash
        raise CompactionError(f"{what} failed: the model sent no reply")
    if final.get("stopReason") == "error":
        reason = one_line(final.get("errorMessage") or "unknown error")
        raise CompactionError(f"{what} failed: {reason}")
    summary = text_of(final).strip()
    if not summary:
        raise CompactionError(f"{what} failed: the model answered with no text")
    return summary, clean_usage(final.get("usage"))
