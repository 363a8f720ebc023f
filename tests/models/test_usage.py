"""models/usage.py: usage read back from files, summed, and the one token guess."""

import math

import pytest

from miniagent.core.assembly import compute_cost, set_counts
from miniagent.core.messages import empty_usage
from miniagent.models.usage import (add_usages, chars_for_tokens, clean_usage, cost_figure,
                                    estimate_tokens_of)


def test_the_token_guess_is_four_characters_a_token_and_a_flat_price_per_image():
    assert estimate_tokens_of(10, images=1) == 3 + 1200
    assert estimate_tokens_of(0) == 0
    assert chars_for_tokens(100) == 400


@pytest.mark.parametrize("value, figure", [
    (0.25, 0.25), (-1, 0.0), ("0.25", 0.0), (math.nan, 0.0), (math.inf, 0.0), (False, 0.0)])
def test_a_cost_figure_is_finite_and_not_negative(value, figure):
    assert cost_figure(value) == figure


def test_a_usage_read_back_from_a_file_is_made_well_formed():
    assert clean_usage("lots") == empty_usage()
    usage = clean_usage({"input": "12", "output": 3, "cost": {"total": -2, "input": 0.5}})
    assert (usage["input"], usage["output"], usage["totalTokens"]) == (0, 3, 3)
    assert usage["cost"] == {"input": 0.5, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                             "total": 0.0}
    assert clean_usage({"input": 1, "totalTokens": 50})["totalTokens"] == 50  # as recorded


def test_usages_priced_per_million_tokens_add_up():
    first = compute_cost(set_counts(empty_usage(), {"input": 1000}), {"input": 3.0})
    assert first["cost"]["input"] == pytest.approx(0.003)
    second = compute_cost(set_counts(empty_usage(), {"input": 1000, "output": 500}),
                          {"input": 3.0, "output": 15.0})
    total = add_usages(first, second)
    assert (total["input"], total["output"], total["totalTokens"]) == (2000, 500, 2500)
    assert total["cost"]["total"] == pytest.approx(0.003 + 0.003 + 0.0075)
