"""The provider layer: one function, `stream()`, hides every LLM API.

Each wire protocol lives in its own module and exposes the same generator:

    stream(model, context, options) -> Iterator[StreamEvent]

`context` is plain data: {"systemPrompt": str, "messages": [Message], "tools": [{"name",
"description", "parameters"}]}. The events follow pi's protocol (all plain dicts):

    {"type": "start", "partial": msg}
    {"type": "text_start" | "thinking_start" | "toolcall_start", "contentIndex", "partial"}
    {"type": "text_delta" | "thinking_delta" | "toolcall_delta", "contentIndex", "delta", "partial"}
    {"type": "text_end" | "thinking_end", "contentIndex", "content", "partial"}
    {"type": "toolcall_end", "contentIndex", "toolCall", "partial"}
    {"type": "done", "reason": "stop" | "length" | "toolUse", "message": msg}
    {"type": "error", "reason": "error" | "aborted", "error": msg}

`partial` is the assistant message being built, the same dict mutated in place.

The contract that keeps the rest of the agent simple: **a stream never raises.** An
HTTP error, a malformed chunk, a dropped connection or an abort ends the stream with an
`error` event whose message has stopReason "error" or "aborted" and an errorMessage.
Whether it is "aborted" is decided only by whether `options.abort` is set. What an
"error" means for what comes next (retry, wait, compaction) is kept beside the message,
not in it: `verdict.verdict_of(message)`.

This module only dispatches on `model.api`; it deliberately knows nothing about HTTP.

Left out: other APIs (OpenAI's Responses API, Gemini's own, Bedrock, Vertex). Every
server here speaks one of the two protocols, and most speak Chat Completions.
"""

import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

from ..messages import assistant_message

StreamEvent = Dict[str, Any]


@dataclass
class StreamOptions:
    """Per-call settings a provider needs besides the model and the context."""

    abort: threading.Event = field(default_factory=threading.Event)
    """Set by Agent.abort(); the provider stops reading and ends the stream as aborted."""
    api_key: Optional[str] = None
    """Secret for the endpoint; never printed or stored."""
    thinking: str = "off"
    """Reasoning level: off, minimal, low, medium, high."""
    max_tokens: Optional[int] = None
    """Output token cap; None means min(model.max_tokens, 32000)."""
    temperature: Optional[float] = None
    session_id: Optional[str] = None
    """Sent as a prompt-cache key where the API supports one."""


def stream(model, context: Dict[str, Any], options: StreamOptions) -> Iterator[StreamEvent]:
    """Dispatch to the module that speaks `model.api`; imported lazily so that the
    scripted demo runs without loading the HTTP providers."""
    if model.api == "scripted":
        from . import scripted
        return scripted.stream(model, context, options)
    if model.api == "openai-completions":
        from . import openai
        return openai.stream(model, context, options)
    if model.api == "anthropic-messages":
        from . import anthropic
        return anthropic.stream(model, context, options)
    return _unknown_api(model)


def with_tool_use(stop_reason: str, content: List[Dict[str, Any]]) -> str:
    """The stop reason a finished reply reports: a normal stop becomes "toolUse" when
    the reply holds tool calls, whatever the server called it (Gemini says "stop",
    Anthropic may say "end_turn"): the calls are what the loop must act on. Every
    provider ends its `done` event through here.

    Examples: ("stop", [text, toolCall]) -> "toolUse";  ("stop", [text]) -> "stop";
              ("length", [toolCall]) -> "length" (its arguments may be cut off)
    """
    if stop_reason == "stop" and any(block.get("type") == "toolCall" for block in content):
        return "toolUse"
    return stop_reason


def _unknown_api(model) -> Iterator[StreamEvent]:
    message = assistant_message(model.api, model.provider, model.id, stop_reason="error",
                                error_message=f"Unknown API '{model.api}' for model {model.id}")
    yield {"type": "error", "reason": "error", "error": message}
