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

Linear time (D2): a block's text is kept as pieces, joined once when it closes (appending
to a string copies it: ~125 GB for a 1 MB tool call in 4-byte pieces). The deltas are the
live view; the text is whole at `*_end`.

A tool call's arguments are parsed once, at its end, by the `parse_arguments` seam
(plain: strict JSON). Text that is no JSON object gives `{}` and is kept in
`invalidArguments`, for the loop to quote back: a cut-off `rm -rf /tmp/x` never runs.

`run()` keeps the contract "a stream never raises": any failure ends as the final
`error` event ("aborted" if the abort event is set), with what arrived kept.

Left out: the wire formats (openai.py); the product's partial-JSON repair, live preview
of arguments, verdicts and key redaction (miniagent/providers/builder.py).
"""

import json
import re
import secrets
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .messages import ABORTED_TEXT, INVALID_ARGUMENTS, Block, Usage, assistant_message
from .provider import with_tool_use

Event = Dict[str, Any]
DEFAULT_MAX_TOKENS = 32_000  # output cap when the caller names none (and the model allows more)
EVENT_PREFIX = {"text": "text", "thinking": "thinking", "toolCall": "toolcall"}  # text_start...
MAX_INVALID_KEPT = 2000  # characters of invalid tool-call arguments kept to quote back


# --- What a server sends, counted and made safe where it enters -----------------------

MAX_TOKEN_COUNT = 10 ** 9  # no request holds a billion tokens: above is garbage


def token_count(value: Any) -> int:
    """A server's usage number as a count, 0 meaning "unknown": a whole number from 0 to
    MAX_TOKEN_COUNT. Examples: 12 -> 12; 12.0 -> 12; "12", -4, True, None, NaN -> 0"""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            isinstance(value, float) and not value.is_integer():  # also NaN and infinity
        return 0
    return int(value) if 0 <= value <= MAX_TOKEN_COUNT else 0


def set_counts(usage: Usage, counts: Dict[str, Any]) -> Usage:
    """Overwrite the counts given (None: not reported, keep the old one) through
    token_count and recompute totalTokens; returns usage."""
    for key, value in counts.items():
        if value is not None:
            usage[key] = token_count(value)
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    return usage


def compute_cost(usage: Usage, cost_per_million: Dict[str, float]) -> Usage:
    """Fill usage["cost"] from USD-per-million prices (1000 input at $3/M: 0.003)."""
    cost = usage["cost"]
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        cost[key] = cost_per_million.get(key, 0.0) * usage[key] / 1_000_000
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return usage


# A lone UTF-16 surrogate (JSON's "\ud83d" without its partner) cannot be encoded as
# UTF-8: it would crash printing and saving. Server text is cleaned where it enters.
SURROGATES = re.compile(r"[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Remove lone surrogates. Example: "ok \\ud83d" -> "ok " (an emoji is kept)."""
    return SURROGATES.sub("", text)


def clean_value(value):
    """clean_text applied to every string inside decoded JSON (tool-call arguments)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_value(item) for key, item in value.items()}
    return value


class ProviderError(Exception):
    """A failure written for the reader (an HTTP status, a cut stream): the errorMessage."""


def parse_json(text: str) -> Any:
    """The plain argument parser: strict JSON, None when the text is not JSON; "" (sent for
    a tool without parameters) is {}. Example: '{"path": "a.p' -> None"""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class MessageBuilder:
    """Builds one assistant message from stream pieces and returns the events."""

    def __init__(self, model, parse_arguments: Callable[[str], Any] = parse_json) -> None:
        self.model = model
        self.message = assistant_message(model.api, model.provider, model.id)
        self.parse_arguments = parse_arguments
        self._open: Dict[int, List[str]] = {}  # content index -> pieces of a block still streaming

    def set_response_id(self, value: Any) -> None:
        """The server's id of this reply (pi records it as responseId); the first one kept."""
        if isinstance(value, str) and value and "responseId" not in self.message:
            self.message["responseId"] = clean_text(value)

    def start(self) -> Event:
        return {"type": "start", "partial": self.message}

    def open(self, block: Block) -> Tuple[int, Event]:
        """Add a new, empty block (from messages.py) -> its content index and *_start."""
        self.message["content"].append(block)
        index = len(self.message["content"]) - 1
        self._open[index] = []
        return index, self._event("start", index)

    def is_open(self, index: int) -> bool:
        return index in self._open

    def append(self, index: int, delta: str) -> Event:
        """Add streamed text or argument JSON (clean_text drops a lone surrogate)."""
        delta = clean_text(delta)
        self._open[index].append(delta)
        return {**self._event("delta", index), "delta": delta}

    def received(self, index: int) -> str:
        """The text an open block has received so far (joined now, and kept joined)."""
        pieces = self._open[index]
        pieces[:] = ["".join(pieces)]
        return pieces[0]

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
        joined = "".join(self._open.pop(index))
        block = self.message["content"][index]
        if block["type"] != "toolCall":
            block[block["type"]] += joined
            return
        arguments = self.parse_arguments(joined)
        # A tool takes an object: anything else gives none, and the text is kept to quote back.
        block["arguments"] = clean_value(arguments) if isinstance(arguments, dict) else {}
        if not isinstance(arguments, dict):
            block[INVALID_ARGUMENTS] = clean_text(joined[:MAX_INVALID_KEPT])
        block["name"] = clean_text(block["name"])
        # Some servers send "" or no id at all (Gemini, local servers).
        block["id"] = clean_text(block["id"]) or f"call_{secrets.token_hex(12)}"

    def set_usage(self, **counts: Optional[int]) -> None:
        """Overwrite the counts given (not None); recompute the total and the cost."""
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
        """fail() for an exception caught by run(): our own errors are written for the
        reader already; an unexpected one (a bug, an odd server) names its type."""
        text = str(exc) if isinstance(exc, ProviderError) else f"{type(exc).__name__}: {exc}"
        return self.fail(text, aborted)

    def _event(self, phase: str, index: int) -> Event:
        prefix = EVENT_PREFIX[self.message["content"][index]["type"]]
        return {"type": f"{prefix}_{phase}", "contentIndex": index, "partial": self.message}


# A parser reads the body's chunks, yields events, and returns the stop reason.
Parser = Callable[[Iterable[bytes], MessageBuilder], Iterator[Event]]


def run(builder: MessageBuilder, abort: threading.Event,
        open_body: Callable[[], Iterable[bytes]], parse: Parser) -> Iterator[Event]:
    """One model call that never raises. open_body() sends the request and returns the
    body's chunks, or raises (an HTTP error is a lone `error` event, without `start`);
    parse() turns the chunks into events."""
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


def max_output_tokens(model, options) -> int:
    """The caller's cap, else the model's limit up to DEFAULT_MAX_TOKENS."""
    return options.max_tokens or min(model.max_tokens, DEFAULT_MAX_TOKENS)

