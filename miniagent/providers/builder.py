"""Assembling a streamed reply: what both real providers share on the way back.

A server streams a reply as many small pieces: a few characters of text, a fragment of
a tool call's JSON arguments, a usage count. `MessageBuilder` collects them into one
assistant message and announces each step in pi's event protocol
(providers/__init__.py):

    >>> from miniagent import Model
    >>> from miniagent.core.messages import text_block
    >>> builder = MessageBuilder(Model(id="gpt-4.1", provider="openai", api="openai-completions"))
    >>> builder.start()["type"]
    'start'
    >>> i, event = builder.open(text_block(""))
    >>> event["type"]
    'text_start'
    >>> builder.append(i, "Hel")["type"], builder.append(i, "lo")["delta"]
    ('text_delta', 'lo')
    >>> builder.close(i)["content"]  # text_end carries the whole text
    'Hello'
    >>> builder.done("stop")["message"]["content"]  # done carries the message
    [{'type': 'text', 'text': 'Hello'}]

Blocks are opened with the constructors of messages.py (`text_block("")`,
`thinking_block("", signature)`, `tool_call_block(id, name, {})`), so a block has one
shape wherever it is made. What comes from the server is cleaned where it enters: a
lone UTF-16 surrogate (a JSON "\\ud83d" escape without its partner) is removed from
every delta, from the final arguments and from the errorMessage, since it cannot be
printed or saved (messages.clean_text). The stop reason goes through `with_tool_use`
(providers/__init__.py): a reply with tool calls that stopped normally is "toolUse".

Linear time (docs/decisions.md D2). A block's text is kept as a list of pieces and joined
once, when the block closes: appending to a string stored in a dict copies the whole
string every time, which turns a 1 MB tool call sent in 4-byte pieces into ~125 GB of
copying. So during streaming the deltas are the live view; the partial message's text
is complete at each `*_end` (and when a stream fails). Tool-call arguments are JSON
fragments that mean nothing on their own, so for live display they are parsed into the
partial message now and then: each time their length has doubled, which costs at most
twice the final size in total, the same trick a growing Python list uses. The final
arguments are parsed once, strictly, when the block closes. Text that is not a valid
JSON object then (cut off, garbled) gives no arguments at all, `{}`, rather than the
repaired guess shown while streaming: a cut-off `rm -rf /tmp/x` must not run. The text
is kept in the call's `invalidArguments`, and the loop answers the call with an error
that quotes it, so the model learns what went wrong and sends the call again.

Left out: the wire formats (openai.py, anthropic.py read the bytes and call this) and
the call around it: sending, checking the reply is a stream, and turning every failure
into the final message (guard.py).
"""

import json
import secrets
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .jsonpartial import parse_arguments, parse_partial
from .verdict import record
from ..core.messages import (ABORTED_TEXT, INVALID_ARGUMENTS, Block, assistant_message, clean_text,
                             clean_value, compute_cost, set_counts)
from ..models.usage import estimate_tokens_of
from ..http.errors import Verdict
from ..core.provider import with_tool_use

Event = Dict[str, Any]
DEFAULT_MAX_TOKENS = 32_000  # output cap when the caller names none (and the model allows more)
# Block type -> the prefix of its events (text_start, thinking_delta, toolcall_end...).
EVENT_PREFIX = {"text": "text", "thinking": "thinking", "toolCall": "toolcall"}
MAX_INVALID_KEPT = 2000  # characters of invalid tool-call arguments kept to quote back


class ProviderError(Exception):
    """The server's reply itself says the call failed (an in-band error, a refusal, a
    stream cut short). Its text becomes the message's errorMessage."""


class _OpenBlock:
    """Bookkeeping for a block still streaming: its pieces and, for a tool call, when
    the partial arguments were last parsed."""

    def __init__(self) -> None:
        self.pieces: List[str] = []
        self.length = 0
        self.parsed_at = 0


class MessageBuilder:
    """Builds one assistant message from stream pieces and returns pi's events."""

    def __init__(self, model) -> None:
        self.model = model
        self.message = assistant_message(model.api, model.provider, model.id)
        self._open: Dict[int, _OpenBlock] = {}  # content index -> a block still streaming

    def set_response_id(self, value: Any) -> None:
        """The server's id of this reply (pi records it as responseId); the first one kept."""
        if isinstance(value, str) and value and "responseId" not in self.message:
            self.message["responseId"] = clean_text(value)

    def start(self) -> Event:
        return {"type": "start", "partial": self.message}

    def open(self, block: Block) -> Tuple[int, Event]:
        """Add a new, empty block (made by a messages.py constructor) and return its
        content index with the *_start event."""
        self.message["content"].append(block)
        index = len(self.message["content"]) - 1
        self._open[index] = _OpenBlock()
        return index, self._event("start", index)

    def is_open(self, index: int) -> bool:
        return index in self._open

    def append(self, index: int, delta: str) -> Event:
        """Add streamed text (or a JSON fragment of a tool call's arguments)."""
        delta = clean_text(delta)
        state = self._open[index]
        state.pieces.append(delta)
        state.length += len(delta)
        block = self.message["content"][index]
        if block["type"] == "toolCall" and state.length >= 2 * state.parsed_at:
            self._show_partial_arguments(block, state)
        return {**self._event("delta", index), "delta": delta}

    def _show_partial_arguments(self, block: Dict[str, Any], state: _OpenBlock) -> None:
        joined = "".join(state.pieces)
        state.pieces, state.parsed_at = [joined], max(state.length, 1)
        shown = parse_partial(joined)
        if isinstance(shown, dict):
            block["arguments"] = clean_value(shown)

    def close(self, index: int) -> Event:
        """Finish a block: join its pieces (parse a tool call's arguments) -> *_end."""
        self._materialize(index)
        block = self.message["content"][index]
        if block["type"] == "toolCall":
            return {**self._event("end", index), "toolCall": block}
        return {**self._event("end", index), "content": block[block["type"]]}

    def close_all(self) -> List[Event]:
        return [self.close(index) for index in sorted(self._open)]

    def _materialize(self, index: int) -> None:
        state = self._open.pop(index)
        block = self.message["content"][index]
        joined = "".join(state.pieces)
        if block["type"] == "toolCall":
            arguments = parse_arguments(joined)
            # Invalid JSON (None) is never guessed at (module docstring); a model may
            # also send a list or a bare value, and a tool takes an object. The text is
            # kept so the loop can tell the model what was wrong with it.
            block["arguments"] = clean_value(arguments) if isinstance(arguments, dict) else {}
            if not isinstance(arguments, dict):
                block[INVALID_ARGUMENTS] = clean_text(joined[:MAX_INVALID_KEPT])
            block["name"] = clean_text(block["name"])
            # Some servers send "" or no id at all (Gemini, local servers).
            block["id"] = clean_text(block["id"]) or f"call_{secrets.token_hex(12)}"
        else:
            block[block["type"]] += joined

    def set_usage(self, **counts: Optional[int]) -> None:
        """Overwrite the usage counts that are given and not None; recompute the total
        and the cost. Example: set_usage(input=10, cacheRead=5) keeps output as it was."""
        compute_cost(set_counts(self.message["usage"], counts), self.model.cost)

    def done(self, stop_reason: str) -> Event:
        """The final event of a reply that arrived whole (tool calls make it "toolUse")."""
        self.message["stopReason"] = with_tool_use(stop_reason, self.message["content"])
        return {"type": "done", "reason": self.message["stopReason"], "message": self.message}

    def fail(self, error_message: str, aborted: bool, verdict: Optional[Verdict] = None) -> Event:
        """The final event of a failed call; blocks still open keep what they got. The
        failure's verdict (None: judged from its words) is kept beside the message
        (verdict.py)."""
        for index in list(self._open):
            self._materialize(index)
        reason = "aborted" if aborted else "error"
        self.message["stopReason"] = reason
        self.message["errorMessage"] = ABORTED_TEXT if aborted else clean_text(error_message)
        if not aborted:
            record(self.message, verdict)
        return {"type": "error", "reason": reason, "error": self.message}

    def _event(self, phase: str, index: int) -> Event:
        prefix = EVENT_PREFIX[self.message["content"][index]["type"]]
        return {"type": f"{prefix}_{phase}", "contentIndex": index, "partial": self.message}


# A parser reads the body's chunks, yields events, and returns the stop reason.
Parser = Callable[[Iterable[bytes], MessageBuilder], Iterator[Event]]


MIN_OUTPUT_TOKENS = 1024  # below this a reply is hardly worth asking for


def max_output_tokens(model, options, context: Optional[Dict[str, Any]] = None) -> int:
    """The caller's cap, else the model's limit up to DEFAULT_MAX_TOKENS; and never more
    than the window leaves after the input, since a server may refuse a request whose
    input plus max output exceed the window (vLLM does).

    Example: window 8192, input about 6,000 tokens, model limit 16384 -> 2192.
    """
    wanted = options.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS)
    if context is None:
        return wanted
    room = model.context_window - estimate_input_tokens(context)
    return max(min(wanted, room), min(wanted, MIN_OUTPUT_TOKENS))


def estimate_input_tokens(context: Dict[str, Any]) -> int:
    """The one guess (messages.estimate_tokens_of) over the text and images the request
    will carry."""
    chars = len(context.get("systemPrompt") or "")
    chars += sum(len(tool["description"]) + len(json.dumps(tool["parameters"]))
                 for tool in context.get("tools") or [])
    images = 0
    for message in context.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
            continue
        for block in content or []:
            kind = block.get("type")
            if kind == "image":
                images += 1
            elif kind == "toolCall":
                chars += len(block.get("name", "")) + len(json.dumps(block.get("arguments")))
            else:
                chars += len(block.get("text") or block.get("thinking") or "")
    return estimate_tokens_of(chars, images)


def error_text(error: Any) -> str:
    """An error object sent inside a stream, as one line. Both APIs use the same shape.

    Examples: {"type": "overloaded_error", "message": "Overloaded"} -> "Overloaded (overloaded_error)"
              "plain text" -> "plain text"
    """
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error))
        kind = error.get("type") or error.get("code")
        return f"{message} ({kind})" if kind and str(kind) not in message else message
    return str(error)
