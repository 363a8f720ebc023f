"""The message model: the one data structure every other module shares.

A coding agent is a loop around a *stateless* model. The model remembers nothing
between calls, so the agent keeps the whole conversation as a list of messages and
sends it again on every turn. This module defines what those messages look like.

There are three roles, shaped exactly as in pi's session format (so that a miniagent
session file can be read by pi and vice versa):

    user        {"role": "user", "content": [text|image blocks], "timestamp": ms}
    assistant   {"role": "assistant", "content": [text|thinking|toolCall blocks],
                 "api", "provider", "model", "usage", "stopReason",
                 "errorMessage"?, "timestamp"}
    toolResult  {"role": "toolResult", "toolCallId", "toolName",
                 "content": [text|image blocks], "details"?, "isError", "timestamp"}

Messages are plain JSON-ready dicts, not classes: they go to disk (JSONL sessions)
and over the wire (provider requests) as they are. Their keys stay camelCase for that
reason; Python names stay snake_case. The TypedDicts below only document the shapes;
the small constructor functions build them.

A worked example, one tool round trip:

    user       "What is in app.py?"
    assistant  [toolCall read {"path": "app.py"}]        stopReason "toolUse"
    toolResult [text "print('hi')\\n"]                     isError False
    assistant  [text "It prints hi."]                     stopReason "stop"

Left out on purpose: app-level message kinds (pi's bashExecution, custom, summaries)
live with the harness that creates them; validation of incoming dicts (we trust our
own constructors; a loader of files on disk must check what it reads).
"""

import re
import time
from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

# --- Content blocks -----------------------------------------------------------------


class TextContent(TypedDict):
    type: Literal["text"]
    text: str


class ThinkingContent(TypedDict, total=False):
    type: Literal["thinking"]
    thinking: str
    # Anthropic: the cryptographic signature that must be replayed unchanged.
    # OpenAI-compatible: the name of the delta field the reasoning came from.
    thinkingSignature: str
    # Anthropic redacted thinking: the opaque payload sits in thinkingSignature.
    redacted: bool


class ToolCall(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: Dict[str, Any]
    # Optional "extraContent": opaque data a server attached to the call (Gemini's
    # thought signatures), sent back unchanged to the same model only.
    # Optional INVALID_ARGUMENTS: the argument text as received when it was not a JSON
    # object; arguments is then {} and the loop answers the call with an error.


INVALID_ARGUMENTS = "invalidArguments"
# The errorMessage of every message that ends because the user aborted (Ctrl-C): the
# same words whether the provider, the scripted model or the loop noticed first.
ABORTED_TEXT = "Request was aborted"


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str  # base64, no data: prefix
    mimeType: str


Block = Union[TextContent, ThinkingContent, ToolCall, ImageContent]

# --- Usage and stop reasons ----------------------------------------------------------

# Why the model stopped. "stop", "length" and "toolUse" are normal endings; "error" and
# "aborted" mean the message is a record of a failure and is never replayed to a model.
STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")
StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]


class Cost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float


class Usage(TypedDict):
    input: int  # input tokens NOT read from the cache
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int  # always input + output + cacheRead + cacheWrite
    cost: Cost  # USD


# --- Messages ------------------------------------------------------------------------


class UserMessage(TypedDict):
    role: Literal["user"]
    content: List[Block]
    timestamp: int


class AssistantMessage(TypedDict, total=False):
    role: Literal["assistant"]
    content: List[Block]
    api: str
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    errorMessage: str
    timestamp: int


class ToolResultMessage(TypedDict, total=False):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: List[Block]
    details: Any
    isError: bool
    timestamp: int


Message = Union[UserMessage, AssistantMessage, ToolResultMessage]


# --- Constructors ----------------------------------------------------------------------


def now_ms() -> int:
    """Unix time in milliseconds, the timestamp unit of every message."""
    return int(time.time() * 1000)


def text_block(text: str) -> TextContent:
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: Optional[str] = None,
                   redacted: bool = False) -> ThinkingContent:
    block: ThinkingContent = {"type": "thinking", "thinking": thinking}
    if signature is not None:
        block["thinkingSignature"] = signature
    if redacted:
        block["redacted"] = True
    return block


def tool_call_block(call_id: str, name: str, arguments: Dict[str, Any]) -> ToolCall:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def image_block(data: str, mime_type: str) -> ImageContent:
    return {"type": "image", "data": data, "mimeType": mime_type}


def empty_usage() -> Usage:
    """All counts zero; providers fill them in as the stream reports them."""
    return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                     "total": 0.0}}


def user_message(text: str, images: Optional[List[ImageContent]] = None) -> UserMessage:
    """A user turn: one text block followed by any images.

    Example: user_message("hi") -> {"role": "user", "content": [{"type": "text",
    "text": "hi"}], "timestamp": 1767225600000}
    """
    content: List[Block] = [text_block(text)]
    content.extend(images or [])
    return {"role": "user", "content": content, "timestamp": now_ms()}


def assistant_message(api: str, provider: str, model: str,
                      content: Optional[List[Block]] = None,
                      stop_reason: StopReason = "stop",
                      error_message: Optional[str] = None) -> AssistantMessage:
    """An assistant message; providers start with an empty one and fill it while streaming."""
    message: AssistantMessage = {
        "role": "assistant", "content": list(content or []), "api": api,
        "provider": provider, "model": model, "usage": empty_usage(),
        "stopReason": stop_reason, "timestamp": now_ms()}
    if error_message is not None:
        message["errorMessage"] = error_message
    return message


def tool_result_message(call_id: str, tool_name: str, content: List[Block],
                        is_error: bool = False, details: Any = None) -> ToolResultMessage:
    message: ToolResultMessage = {
        "role": "toolResult", "toolCallId": call_id, "toolName": tool_name,
        "content": content, "isError": is_error, "timestamp": now_ms()}
    if details is not None:
        message["details"] = details
    return message


# --- Helpers ---------------------------------------------------------------------------


def tool_calls(message: Message) -> List[ToolCall]:
    """The toolCall blocks of an assistant message, in the order the model wrote them."""
    return [b for b in message.get("content", []) if b.get("type") == "toolCall"]


def text_of(message: Message) -> str:
    """The text blocks of a message, one per line: the final answer printed by -p, the
    text of a tool result sent to a server. Images and tool calls are left out."""
    content = message.get("content", [])
    if isinstance(content, str):  # pi allows a bare string as user content
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


# No request holds a billion tokens: a count above this is a server's garbage, not usage.
MAX_TOKEN_COUNT = 10 ** 9


def token_count(value: Any) -> int:
    """A usage number from a server as a token count, 0 meaning "unknown": only a
    whole number from 0 to MAX_TOKEN_COUNT counts. Examples: 12 -> 12; 12.0 -> 12;
    "12" -> 0 (the protocols send numbers); -4 -> 0; True -> 0; None -> 0"""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, float) and not value.is_integer():  # also NaN and infinity
        return 0
    return int(value) if 0 <= value <= MAX_TOKEN_COUNT else 0


def set_counts(usage: Usage, counts: Dict[str, Any]) -> Usage:
    """Overwrite the token counts that are given (None: not reported, keep the old
    one), each through token_count, and recompute totalTokens; returns usage."""
    for key, value in counts.items():
        if value is not None:
            usage[key] = token_count(value)
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    return usage


def compute_cost(usage: Usage, cost_per_million: Dict[str, float]) -> Usage:
    """Fill usage["cost"] from the model's USD-per-million-token prices; returns usage.
    Example: 1000 input tokens at $3/M -> cost.input 0.003."""
    cost = usage["cost"]
    for key in ("input", "output", "cacheRead", "cacheWrite"):
        cost[key] = cost_per_million.get(key, 0.0) * usage[key] / 1_000_000
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return usage


def is_failed(message: Message) -> bool:
    """True for an assistant message that records an error or an abort."""
    return message.get("role") == "assistant" and message.get("stopReason") in ("error", "aborted")


# A Python str can hold a lone UTF-16 surrogate (U+D800..U+DFFF): JSON's "\ud83d"
# escape without its partner decodes to one. It cannot be encoded as UTF-8, so a single
# one would crash printing, the JSON event stream and the session file. Text arriving
# from a server (and scripts) is cleaned once, where it enters.
SURROGATES = re.compile(r"[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Remove lone surrogates. Example: "ok \\ud83d" -> "ok " (a real pair such as an
    emoji is a single code point in Python and is kept)."""
    return SURROGATES.sub("", text)


def clean_value(value):
    """clean_text applied to every string inside decoded JSON (tool-call arguments).
    Example: {"path": "a\\udc80.txt", "n": 1} -> {"path": "a.txt", "n": 1}"""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean_value(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_value(item) for key, item in value.items()}
    return value


