"""The message model: the one data structure every other module shares.

A coding agent is a loop around a *stateless* model: it remembers nothing between
calls, so the agent keeps the whole conversation as a list of messages and sends it
again on every turn. This module defines what those messages look like.

There are three roles, shaped exactly as in pi's session format (so that a miniagent
session file can be read by pi and vice versa), and four kinds of content block:

    user        {"role": "user", "content": [text|image blocks], "timestamp": ms}
    assistant   {"role": "assistant", "content": [text|thinking|toolCall blocks],
                 "api", "provider", "model", "usage", "stopReason",
                 "errorMessage"?, "timestamp"}
    toolResult  {"role": "toolResult", "toolCallId", "toolName",
                 "content": [text|image blocks], "details"?, "isError", "timestamp"}

    text        {"type": "text", "text"}
    thinking    {"type": "thinking", "thinking", "thinkingSignature"?, "redacted"?}
    toolCall    {"type": "toolCall", "id", "name", "arguments": {...}}
    image       {"type": "image", "data": base64 without a data: prefix, "mimeType"}

Messages are plain JSON-ready dicts, built by the small functions below: they go to
disk (JSONL sessions) and over the wire as they are, so their keys stay camelCase. A
provider's opaque fields (thinkingSignature, a call's extraContent) are sent back to
that provider unchanged.

A worked example, one tool round trip:

    user       "What is in app.py?"
    assistant  [toolCall read {"path": "app.py"}]        stopReason "toolUse"
    toolResult [text "print('hi')\\n"]                     isError False
    assistant  [text "It prints hi."]                     stopReason "stop"

Left out on purpose: app-level message kinds (pi's bashExecution, custom, summaries:
the harness's); validation of incoming dicts (we trust our own constructors; a loader
of files must check what it reads); a server's counts and text made safe where they
enter (assembly.py); usage read back and summed (models/usage.py).
"""

import time
from typing import Any, Dict, List, Optional, TypedDict

Block = Dict[str, Any]  # one of the four blocks above
Message = Dict[str, Any]  # one of the three roles above

# A toolCall's key for the text received when it was not a JSON object (arguments {}).
INVALID_ARGUMENTS = "invalidArguments"
# The errorMessage of every message that ends because the user aborted (Ctrl-C).
ABORTED_TEXT = "Request was aborted"

# Why the model stopped. "stop", "length" and "toolUse" are normal endings; "error" and
# "aborted" mean the message is a record of a failure and is never replayed to a model.
STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")


class Usage(TypedDict):
    input: int  # input tokens NOT read from the cache
    output: int
    cacheRead: int
    cacheWrite: int
    totalTokens: int  # always input + output + cacheRead + cacheWrite
    cost: Dict[str, float]  # USD: the same four keys and "total"


# --- Constructors ----------------------------------------------------------------------


def now_ms() -> int:
    return int(time.time() * 1000)


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: Optional[str] = None,
                   redacted: bool = False) -> Block:
    block: Block = {"type": "thinking", "thinking": thinking}
    if signature is not None:
        block["thinkingSignature"] = signature
    if redacted:
        block["redacted"] = True
    return block


def tool_call_block(call_id: str, name: str, arguments: Dict[str, Any]) -> Block:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def image_block(data: str, mime_type: str) -> Block:
    return {"type": "image", "data": data, "mimeType": mime_type}


def empty_usage() -> Usage:
    """All counts zero; providers fill them in as the stream reports them."""
    return {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                     "total": 0.0}}


def user_message(text: str, images: Optional[List[Block]] = None) -> Message:
    """A user turn: one text block followed by any images."""
    return {"role": "user", "content": [text_block(text), *(images or [])],
            "timestamp": now_ms()}


def assistant_message(api: str, provider: str, model: str,
                      content: Optional[List[Block]] = None,
                      stop_reason: str = "stop",
                      error_message: Optional[str] = None) -> Message:
    """An assistant message; providers start with an empty one and fill it while streaming."""
    message: Message = {
        "role": "assistant", "content": list(content or []), "api": api,
        "provider": provider, "model": model, "usage": empty_usage(),
        "stopReason": stop_reason, "timestamp": now_ms()}
    if error_message is not None:
        message["errorMessage"] = error_message
    return message


def tool_result_message(call_id: str, tool_name: str, content: List[Block],
                        is_error: bool = False, details: Any = None) -> Message:
    message: Message = {
        "role": "toolResult", "toolCallId": call_id, "toolName": tool_name,
        "content": content, "isError": is_error, "timestamp": now_ms()}
    if details is not None:
        message["details"] = details
    return message


def tool_calls(message: Message) -> List[Block]:
    """The toolCall blocks of an assistant message, in the order the model wrote them."""
    return [b for b in message.get("content", []) if b.get("type") == "toolCall"]


def text_of(message: Message) -> str:
    """The text blocks of a message, one per line; pi's bare-string content as it is."""
    content = message.get("content", [])
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


def is_failed(message: Message) -> bool:
    """True for an assistant message that records an error or an abort."""
    return message.get("role") == "assistant" and message.get("stopReason") in ("error", "aborted")
