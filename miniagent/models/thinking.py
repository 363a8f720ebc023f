"""Thinking levels: how hard a model may think, and which levels a model has.

A reasoning model can be asked to think before it answers; the level is a knob from
"off" to "max" that each provider turns into its own field (a reasoning effort, a
token budget). Not every model has every level: a model that does not reason has only
"off", and "xhigh" and "max" exist only where the model's entry maps them
(`thinkingLevelMap` in models.json, as pi writes it; a level mapped to null is one the
model lacks).

A level the model lacks is clamped, as pi does: to the nearest level above it that the
model has, else the nearest below. What is clamped is what runs and what the session
records.

    supported_levels(gpt_5)        -> ["off", "minimal", "low", "medium", "high"]
    clamp_level(gpt_5, "max")      -> "high"
    clamp_level(llama_3, "high")   -> "off"       (llama 3 does not reason)

Left out: per-model default levels (settings.json's defaultThinkingLevel is one level
for every model).
"""

from typing import Any, List

LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
EXTRA_LEVELS = ("xhigh", "max")  # only where the model's thinkingLevelMap names them


def supported_levels(model: Any) -> List[str]:
    """The levels this model has, weakest first."""
    if not model.reasoning:
        return ["off"]
    mapped = model.thinking_level_map
    return [level for level in LEVELS if mapped.get(level, "") is not None
            and (level not in EXTRA_LEVELS or level in mapped)]


def clamp_level(model: Any, level: str) -> str:
    """`level` if the model has it, else the nearest level above, else below."""
    available = supported_levels(model)
    if level in available:
        return level
    if level not in LEVELS:
        return available[0]
    at = LEVELS.index(level)
    for candidate in LEVELS[at:] + LEVELS[:at][::-1]:
        if candidate in available:
            return candidate
    return available[0]


def next_level(model: Any, level: str) -> str:
    """The level after `level` among the model's, wrapping round (rpc's cycle)."""
    available = supported_levels(model)
    at = available.index(level) if level in available else -1
    return available[(at + 1) % len(available)]
