"""Thinking levels as pi 1.6 clamps them: the nearest level above that the model has,
else below; "off" for a model that does not reason."""

from miniagent.core.provider import Model
from miniagent.models.thinking import clamp_level, next_level, supported_levels


def model(reasoning=True, levels=None):
    return Model("m", "p", "openai-completions", reasoning=reasoning,
                 thinking_level_map=levels or {})


def test_a_model_that_does_not_reason_has_only_off():
    plain = model(reasoning=False)
    assert supported_levels(plain) == ["off"]
    assert clamp_level(plain, "high") == "off" and next_level(plain, "off") == "off"


def test_xhigh_and_max_exist_only_where_the_map_names_them():
    assert supported_levels(model()) == ["off", "minimal", "low", "medium", "high"]
    assert clamp_level(model(), "max") == "high"  # nothing above: the nearest below
    both = model(levels={"xhigh": "xhigh", "max": "max"})
    assert supported_levels(both)[-2:] == ["xhigh", "max"]
    assert clamp_level(both, "max") == "max"


def test_a_level_mapped_to_null_is_one_the_model_lacks():
    no_minimal = model(levels={"minimal": None, "xhigh": "xhigh", "max": None})
    assert supported_levels(no_minimal) == ["off", "low", "medium", "high", "xhigh"]
    assert clamp_level(no_minimal, "minimal") == "low"  # up first
    assert clamp_level(no_minimal, "max") == "xhigh"  # then down
    assert clamp_level(no_minimal, "ultra") == "off"  # not a level at all
    assert next_level(no_minimal, "xhigh") == "off"  # cycling wraps round
