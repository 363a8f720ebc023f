"""Usage arithmetic: token counts and dollars, summed, read back, and guessed.

Every assistant message carries a `usage` (core/messages.py: the Usage shape, and
set_counts / compute_cost, which fill it in as a reply streams). What the product does
with usage beyond one reply lives here: two requests' usage summed (compaction's two
summary calls), a usage read back from a session file whatever it holds (stats, the
run limits, export), and the one guess of a size in tokens when no server has counted
it (request sizing, when to compact, fitting the summarizer's input).

Left out: a tokenizer. About 4 characters a token and a flat price per image are
close enough for every decision made here.
"""

from typing import Any

from ..core.messages import Usage, empty_usage
from ..core.assembly import set_counts, token_count

COUNT_KEYS = ("input", "output", "cacheRead", "cacheWrite")
INFINITY = float("inf")


def clean_usage(value: Any) -> Usage:
    """A usage read back from a session file, whatever it holds (a string, a list,
    null), as a well-formed Usage: counts through token_count, cost figures finite and
    non-negative, totalTokens as recorded when it is a count (else their sum).

    Example: clean_usage("lots") -> empty_usage();  clean_usage({"input": "12",
    "output": 3}) -> input 0, output 3, totalTokens 3
    """
    usage = value if isinstance(value, dict) else {}
    clean = set_counts(empty_usage(), {key: usage.get(key) for key in COUNT_KEYS})
    clean["totalTokens"] = token_count(usage.get("totalTokens")) or clean["totalTokens"]
    cost = usage.get("cost") if isinstance(usage.get("cost"), dict) else {}
    for key in clean["cost"]:
        clean["cost"][key] = cost_figure(cost.get(key))
    return clean


def cost_figure(value: Any) -> float:
    """A dollar figure read back from a file: finite and non-negative, else 0.0.

    Examples: 0.25 -> 0.25;  -1 -> 0.0;  "0.25" -> 0.0;  float("nan") -> 0.0
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < INFINITY:
        return float(value)
    return 0.0


def add_usages(first: Usage, second: Usage) -> Usage:
    """Two requests' usage as one (a compaction's two summary calls): all figures summed."""
    total = set_counts(empty_usage(), {key: first[key] + second[key] for key in COUNT_KEYS})
    total["cost"] = {key: first["cost"][key] + second["cost"][key] for key in first["cost"]}
    return total


# --- Guessing a size in tokens ---------------------------------------------------------
# One rule for every guess (request sizing, when to compact, fitting the summarizer's
# input): no tokenizer, about 4 characters a token, and a flat price per image.

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1200  # a rough price of one image in the input


def estimate_tokens_of(chars: int, images: int = 0) -> int:
    """The guess for `chars` characters of text and `images` images, rounded up.
    Example: estimate_tokens_of(10, images=1) -> 3 + 1200 = 1203."""
    return -(-chars // CHARS_PER_TOKEN) + images * IMAGE_TOKENS


def chars_for_tokens(tokens: int) -> int:
    """The other way round: how many characters fit in `tokens`. Example: 100 -> 400."""
    return tokens * CHARS_PER_TOKEN

