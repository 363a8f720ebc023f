"""Assembling a streamed reply: the pieces a server sends, built into one message.

A server streams a reply as many small pieces: a few characters of text, a fragment of
a tool call's JSON arguments, a usage count. `MessageBuilder` collects them into one
assistant message and announces each step in the event protocol of provider.py:

    >>> from miniagent.core.provider import Model
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

Linear time (docs/decisions.md D2). A block's text is kept as a list of pieces and joined
once, when it closes: appending to a string stored in a dict copies the whole string
each time, so a 1 MB tool call sent in 4-byte pieces would copy ~125 GB. The deltas are
the live view; the message's text is complete at each `*_end`.

A tool call's arguments are parsed once, when the block closes, by `parse_arguments`
(a seam): the plain parser is strict JSON. Text that is not a JSON object (cut off,
garbled) gives no arguments, `{}`, and is kept in the call's `invalidArguments`; the
loop answers such a call with an error quoting it, so the model sends it again. A
cut-off `rm -rf /tmp/x` must never run. A second seam, `parse_partial`, may read
half-received arguments for a live preview (plain: none); it runs each time the text
has doubled, which costs at most twice the final size in all.

`run()` is the call around the builder that keeps the contract "a stream never raises":
whatever fails, sending, reading or parsing, ends as the final `error` event, stopReason
"aborted" if the abort event is set and "error" otherwise, with what arrived kept.

Left out: the wire formats (openai.py reads the bytes and calls this); the product's
partial-JSON repair, verdicts and key redaction (miniagent/providers/builder.py).
"""

import json
import secrets
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .messages import (ABORTED_TEXT, INVALID_ARGUMENTS, Block, assistant_message, clean_text,
                       clean_value, compute_cost, set_counts)
from .provider import with_tool_use

Event = Dict[str, Any]
DEFAULT_MAX_TOKENS = 32_000  # output cap when the caller names none (and the model allows more)
# Block type -> the prefix of its events (text_start, thinking_delta, toolcall_end...).
EVENT_PREFIX = {"text": "text", "thinking": "thinking", "toolCall": "toolcall"}
MAX_INVALID_KEPT = 2000  # characters of invalid tool-call arguments kept to quote back


class ProviderError(Exception):
    """The call failed for a reason written for the reader (an HTTP status, an in-band
    error, a stream cut short). Its text becomes the message's errorMessage."""


def parse_json(text: str) -> Any:
    """The plain argument parser: strict JSON, None when the text is not JSON; an empty
    text means no arguments (servers send "" for a tool without parameters).

    Examples: '{"path": "a.py"}' -> {"path": "a.py"};  "" -> {};  '{"path": "a.p' -> None
    """
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class _OpenBlock:
    """A block still streaming: its pieces, and when its arguments were last previewed."""

    def __init__(self) -> None:
        self.pieces: List[str] = []
        self.length = 0
        self.parsed_at = 0


class MessageBuilder:
    """Builds one assistant message from stream pieces and returns the events."""

    def __init__(self, model, parse_arguments: Callable[[str], Any] = parse_json,
                 parse_partial: Optional[Callable[[str], Any]] = None) -> None:
        self.model = model
        self.message = assistant_message(model.api, model.provider, model.id)
        self.parse_arguments, self.parse_partial = parse_arguments, parse_partial
        self._open: Dict[int, _OpenBlock] = {}  # content index -> a block still streaming

    def set_response_id(self, value: Any) -> None:
        """The server's id of this reply (pi records it as responseId); the first one kept."""
        if isinstance(value, str) and value and "responseId" not in self.message:
            self.message["responseId"] = clean_text(value)

    def start(self) -> Event:
        return {"type": "start", "partial": self.message}

    def open(self, block: Block) -> Tuple[int, Event]:
        """Add a new, empty block (made by a messages.py constructor, so a block has one
        shape wherever it is made) -> its content index and the *_start event."""
        self.message["content"].append(block)
        index = len(self.message["content"]) - 1
        self._open[index] = _OpenBlock()
        return index, self._event("start", index)

    def is_open(self, index: int) -> bool:
        return index in self._open

    def append(self, index: int, delta: str) -> Event:
        """Add streamed text (or a JSON fragment of a tool call's arguments). A lone
        UTF-16 surrogate cannot be printed or saved: clean_text drops it here."""
        delta = clean_text(delta)
        state = self._open[index]
        state.pieces.append(delta)
        state.length += len(delta)
        block = self.message["content"][index]
        if block["type"] == "toolCall" and self.parse_partial and state.length >= 2 * state.parsed_at:
            joined = "".join(state.pieces)
            state.pieces, state.parsed_at = [joined], max(state.length, 1)
            shown = self.parse_partial(joined)
            if isinstance(shown, dict):
                block["arguments"] = clean_value(shown)
        return {**self._event("delta", index), "delta": delta}

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
        joined = "".join(self._open.pop(index).pieces)
        block = self.message["content"][index]
        if block["type"] != "toolCall":
            block[block["type"]] += joined
            return
        arguments = self.parse_arguments(joined)
        # A tool takes an object: a list, a bare value or invalid JSON (None) gives none,
        # and the text is kept so the loop can tell the model what was wrong with it.
        block["arguments"] = clean_value(arguments) if isinstance(arguments, dict) else {}
        if not isinstance(arguments, dict):
            block[INVALID_ARGUMENTS] = clean_text(joined[:MAX_INVALID_KEPT])
        block["name"] = clean_text(block["name"])
        # Some servers send "" or no id at all (Gemini, local servers).
        block["id"] = clean_text(block["id"]) or f"call_{secrets.token_hex(12)}"

    def set_usage(self, **counts: Optional[int]) -> None:
        """Overwrite the usage counts that are given and not None; recompute the total
        and the cost. Example: set_usage(input=10, cacheRead=5) keeps output as it was."""
        compute_cost(set_counts(self.message["usage"], counts), self.model.cost)

    def done(self, stop_reason: str) -> Event:
        """The final event of a reply that arrived whole (tool calls make it "toolUse")."""
        self.message["stopReason"] = with_tool_use(stop_reason, self.message["content"])
        return {"type": "done", "reason": self.message["stopReason"], "message": self.message}

    def fail(self, error_message: str, aborted: bool) -> Event:
        """The final event of a failed call; blocks still open keep what they got."""
        for index in list(self._open):
            self._materialize(index)
        reason = "aborted" if aborted else "error"
        self.message["stopReason"] = reason
        self.message["errorMessage"] = ABORTED_TEXT if aborted else clean_text(error_message)
        return {"type": "error", "reason": reason, "error": self.message}

    def fail_with(self, exc: Exception, aborted: bool) -> Event:
        """fail() for an exception caught by run(), described in one line."""
        return self.fail(describe(exc), aborted)

    def _event(self, phase: str, index: int) -> Event:
        prefix = EVENT_PREFIX[self.message["content"][index]["type"]]
        return {"type": f"{prefix}_{phase}", "contentIndex": index, "partial": self.message}


# A parser reads the body's chunks, yields events, and returns the stop reason.
Parser = Callable[[Iterable[bytes], MessageBuilder], Iterator[Event]]


def run(builder: MessageBuilder, abort: threading.Event,
        open_body: Callable[[], Iterable[bytes]], parse: Parser) -> Iterator[Event]:
    """One model call that never raises. open_body() sends the request and returns the
    body's chunks (it raises when there is no 2xx reply, so an HTTP error is a lone
    `error` event: `start` comes once the server accepted the call); parse() turns the
    chunks into events."""
    chunks = None
    try:
        chunks = open_body()
        yield builder.start()
        stop_reason = yield from parse(chunks, builder)
        if abort.is_set():
            raise ProviderError("aborted")
        yield from builder.close_all()
        yield builder.done(stop_reason)
    except Exception as exc:  # the never-raise contract: every failure is data
        yield builder.fail_with(exc, abort.is_set())
    finally:
        close = getattr(chunks, "close", None)  # a generator over the response: release it
        if close is not None:
            close()


def describe(exc: Exception) -> str:
    """One line for errorMessage. Our own errors are written for the reader already; an
    unexpected one (a bug, a shape no server should send) names its type."""
    if isinstance(exc, ProviderError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def max_output_tokens(model, options) -> int:
    """The caller's cap, else the model's limit up to DEFAULT_MAX_TOKENS."""
    return options.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS)


def error_text(error: Any) -> str:
    """An error object sent inside a stream, as one line.

    Examples: {"type": "overloaded_error", "message": "Overloaded"} -> "Overloaded (overloaded_error)"
              "plain text" -> "plain text"
    """
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error))
        kind = error.get("type") or error.get("code")
        return f"{message} ({kind})" if kind and str(kind) not in message else message
    return str(error)
