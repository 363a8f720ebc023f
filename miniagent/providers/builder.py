"""The product's stream assembly: the core's MessageBuilder with the hardened pieces.

The core assembles a streamed reply (core/assembly.py) with strict JSON for a tool
call's arguments and no live preview. Here the product passes its own pieces through
the builder's seams and adds what a failure needs beyond its text:

  * `parse_arguments` and `parse_partial` (jsonpartial.py): a literal newline inside a
    string, which some models send, is accepted; half-received arguments are shown
    while they stream ("writing src/ma..."). The final arguments are still never
    repaired: a guess must not run. The preview runs each time the text has doubled,
    so all the previews together parse at most twice the final size (linear, D2).
  * a failure's verdict (http/classify.py decided it, or its words are judged) is kept
    beside the message (verdict.py), and the API key is redacted from its errorMessage
    (a 401 body may quote the key back: files/redaction.py).

And two helpers both protocols use: an in-band error worded as one line (the core only
shows its JSON), and the output cap a request asks for, within the window: a server may
refuse a request whose input plus maximum output exceed its window (vLLM does).

Left out: the assembly itself (core/assembly.py), the wire formats (core/openai.py,
anthropic.py) and the hardened HTTP call (guard.py).
"""

import json
from typing import Any, Dict, Optional

from ..core import assembly
from ..core.assembly import clean_value
from ..models.usage import estimate_tokens_of
from ..files.redaction import redact
from ..http.errors import Failure, Verdict
from .jsonpartial import parse_arguments, parse_partial
from .verdict import record

MIN_OUTPUT_TOKENS = 1024  # below this a reply is hardly worth asking for


class MessageBuilder(assembly.MessageBuilder):
    """The core's builder with jsonpartial's parsers, verdicts and redaction."""

    def __init__(self, model, secret: Optional[str] = None) -> None:
        super().__init__(model, parse_arguments=parse_arguments)
        self.secret = secret  # the API key, never shown in an errorMessage
        self._lengths: Dict[int, int] = {}  # content index -> characters received
        self._previewed: Dict[int, int] = {}  # content index -> the length last previewed

    def append(self, index: int, delta: str):
        """The core's append, then a live preview of a tool call's arguments each time
        their text has doubled."""
        event = super().append(index, delta)
        block = self.message["content"][index]
        if block["type"] == "toolCall":
            length = self._lengths[index] = self._lengths.get(index, 0) + len(event["delta"])
            if length >= 2 * self._previewed.get(index, 0):
                self._previewed[index] = max(length, 1)
                shown = parse_partial(self.received(index))
                if isinstance(shown, dict):
                    block["arguments"] = clean_value(shown)
        return event

    def fail(self, error_message: str, aborted: bool, verdict: Optional[Verdict] = None):
        """The core's fail() with the API key redacted, then the verdict kept beside the
        message (None: judged from its words)."""
        event = super().fail(redact(error_message, self.secret), aborted)
        if not aborted:
            record(self.message, verdict)
        return event

    def fail_with(self, exc: Exception, aborted: bool):
        """A Failure carries the verdict decided where it was raised; its text is ours."""
        if isinstance(exc, Failure):
            return self.fail(str(exc), aborted, exc.verdict)
        return super().fail_with(exc, aborted)


def error_text(error: Any) -> str:
    """An error object sent inside a stream, as one line (the core shows its JSON).

    Examples: {"type": "overloaded_error", "message": "Overloaded"} -> "Overloaded (overloaded_error)"
              "plain text" -> "plain text"
    """
    if isinstance(error, dict):
        message = str(error.get("message") or json.dumps(error))
        kind = error.get("type") or error.get("code")
        return f"{message} ({kind})" if kind and str(kind) not in message else message
    return str(error)


def max_output_tokens(model, options, context: Optional[Dict[str, Any]] = None) -> int:
    """The core's cap (assembly.max_output_tokens), and never more than the window
    leaves after the input.

    Example: window 8192, input about 6,000 tokens, model limit 16384 -> 2192.
    """
    wanted = assembly.max_output_tokens(model, options)
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
