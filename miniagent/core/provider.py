"""The provider contract: one function, `stream()`, hides every LLM API.

A provider turns (model, context, options) into a stream of events ending in one
assistant message; each wire protocol is a module with the same generator:

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
HTTP error, a malformed chunk, a dropped connection or an abort ends it with an `error`
event and an errorMessage; its stopReason is "aborted" exactly when `options.abort` is set.

`Model` is what a provider is told about the model: its id, its protocol (`api`), its
server and the facts the agent plans with (window, output limit, prices).

Left out: which APIs exist beyond the core's two (the scripted model and OpenAI Chat
Completions; the product adds Anthropic and the hardening, miniagent/providers/), and
where models come from (a registry: miniagent/models/).
"""

import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional

from .messages import assistant_message

StreamEvent = Dict[str, Any]
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384


@dataclass
class Model:
    """One model as the providers see it."""

    id: str  # the name the server knows it by, e.g. "gpt-4.1" or "qwen2.5-coder:7b"
    provider: str  # who serves it: "openai", "anthropic", "ollama", "scripted"...
    api: str  # the wire protocol: "openai-completions", "anthropic-messages", "scripted"
    base_url: str = ""  # OpenAI style includes the version path (.../v1), Anthropic's not
    name: str = ""  # a human name for listings
    context_window: int = DEFAULT_CONTEXT_WINDOW  # tokens read in one request, output too
    max_tokens: int = DEFAULT_MAX_TOKENS  # tokens it may write in one reply
    reasoning: bool = False  # can it think (reasoning effort, thinking budget)?
    input: List[str] = field(default_factory=lambda: ["text"])  # "image" too if it sees
    cost: Dict[str, float] = field(default_factory=lambda: {  # USD per million tokens
        "input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0})
    compat: Dict[str, Any] = field(default_factory=dict)  # overrides of detected quirks
    headers: Dict[str, str] = field(default_factory=dict)  # sent with every request
    # pi's thinkingLevelMap: "xhigh" or "max" listed = the model has it, null = lacks it
    thinking_level_map: Dict[str, Any] = field(default_factory=dict)
    default: bool = False  # the model its provider uses when none is named
    script: Optional[Any] = None  # the scripted provider's turns (api "scripted" only)


@dataclass
class StreamOptions:
    """Per-call settings a provider needs besides the model and the context."""

    abort: threading.Event = field(default_factory=threading.Event)  # set: stop, as "aborted"
    api_key: Optional[str] = None  # the endpoint's secret; never printed or stored
    thinking: str = "off"  # reasoning level: off, minimal, low, medium, high
    max_tokens: Optional[int] = None  # output cap; None: min(model.max_tokens, 32000)
    temperature: Optional[float] = None
    session_id: Optional[str] = None  # a prompt-cache key where the API takes one


def stream(model: Model, context: Dict[str, Any],
           options: StreamOptions) -> Iterator[StreamEvent]:
    """The core's two protocols, picked by `model.api`; imported lazily so that the
    scripted demo runs without loading the HTTP library."""
    if model.api == "scripted":
        from . import scripted
        return scripted.stream(model, context, options)
    if model.api == "openai-completions":
        from . import openai
        return openai.stream(model, context, options)
    return unknown_api(model)


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


def unknown_api(model: Model) -> Iterator[StreamEvent]:
    """A stream that ends at once: no module speaks this model's protocol."""
    message = assistant_message(model.api, model.provider, model.id, stop_reason="error",
                                error_message=f"Unknown API '{model.api}' for model {model.id}")
    yield {"type": "error", "reason": "error", "error": message}
