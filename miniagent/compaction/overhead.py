"""The part of every request that compaction cannot shrink: the system prompt and the
tool definitions.

Compaction makes room by summarizing the conversation (compaction.py). The system prompt
and every tool's name, description and JSON schema are sent whole with each request,
however short the conversation. On a small window (llama.cpp started with `-c 4096`)
they alone may not fit: then every request fails, and compacting finds nothing to
summarize. So the front ends ask once, at start-up, and say so before any request,
with the numbers and the fixes:

    the system prompt and tool definitions take about 5,100 tokens, more than this
    model's 4,096-token window: try --tools read, --no-tools, or a model with a bigger
    window (llama.cpp: -c 16384)

The size is the one guess every size uses (messages.estimate_tokens_of, 4 characters a
token, through the request's own estimate, providers/builder.py). It is a guess: a
prompt just under the line may still not fit with the reply's room beside it; the
check names only the case where nothing can ever fit.

Left out: asking again when /model or a tool change moves the numbers mid-session (the
failed request's error says it then).
"""

from typing import List, Optional

from ..providers.builder import estimate_input_tokens
from ..core.tools import Tool

SMALLEST_SUGGESTED_WINDOW = 16384


def overhead_tokens(system_prompt: str, tools: List[Tool]) -> int:
    """The estimated tokens of what every request carries before the conversation."""
    return estimate_input_tokens({"systemPrompt": system_prompt,
                                  "tools": [tool.spec() for tool in tools]})


def overhead_too_big(system_prompt: str, tools: List[Tool], context_window: int) -> Optional[str]:
    """The line to show when the prompt and tools alone exceed the window, else None."""
    tokens = overhead_tokens(system_prompt, tools)
    if tokens <= context_window:
        return None
    return (f"the system prompt and tool definitions take about {tokens:,} tokens, more "
            f"than this model's {context_window:,}-token window: try --tools read, "
            f"--no-tools, or a model with a bigger window (llama.cpp: -c "
            f"{suggested_window(tokens)})")


def suggested_window(tokens: int) -> int:
    """A window with room for the conversation too: a power of two, at least twice the
    prompt and tools. Example: 5,100 -> 16384; 20,000 -> 65536."""
    window = SMALLEST_SUGGESTED_WINDOW
    while window < 2 * tokens:
        window *= 2
    return window
