"""coerce: the scalar coercions of argument validation (AJV's
coerceTypes), checked on read's schema as the model meets them and rule by rule."""

import pytest

from miniagent.core.coerce import coerce
from miniagent.core.tools import Tool, ToolError, text_result, validate_arguments

# read's parameters, as the model meets them
READ_PARAMETERS = {"type": "object", "required": ["path"], "properties": {
    "path": {"type": "string"}, "offset": {"type": "number"}, "limit": {"type": "number"}}}


def read_tool():
    return Tool("read", "Read a file.", READ_PARAMETERS, lambda *args: text_result(""))


@pytest.mark.parametrize("sent, received", [
    ({"path": "a", "offset": "5"}, {"path": "a", "offset": 5}),
    ({"path": "a", "offset": True}, {"path": "a", "offset": 1}),
    ({"path": "a", "offset": None}, {"path": "a", "offset": 0}),
    ({"path": 1}, {"path": "1"}),
], ids=["numeric_string_as_number", "true_as_one", "null_as_zero", "number_as_string"])
def test_validation_coerces_what_pi_coerces(sent, received):
    assert validate_arguments(read_tool(), sent) == received


def test_only_the_uncoercible_argument_is_reported():
    # pi's verified example: path 1 becomes "1", offset "x" has no number to become.
    with pytest.raises(ToolError) as info:
        validate_arguments(read_tool(), {"path": 1, "offset": "x"})
    assert "  - offset: must be number" in str(info.value)
    assert "path:" not in str(info.value)


def test_arrays_are_never_coerced_to_strings():
    with pytest.raises(ToolError, match="  - path: must be string"):
        validate_arguments(read_tool(), {"path": ["a"]})


def test_the_tool_gets_the_coerced_copy_and_the_raw_arguments_stay_as_sent():
    sent = {"path": "a", "offset": "5"}
    assert validate_arguments(read_tool(), sent)["offset"] == 5
    assert sent == {"path": "a", "offset": "5"}  # events and the session keep this


@pytest.mark.parametrize("value, expected, result", [
    ("0.5", "number", 0.5),
    ("5", "integer", 5),
    (5.0, "integer", 5),
    (0.5, "string", "0.5"),
    (5.0, "string", "5"),
    (True, "string", "true"),
    (None, "string", ""),
    ("true", "boolean", True),
    ("false", "boolean", False),
    (1, "boolean", True),
    (None, "boolean", False),
    ("", "null", None),
    (0, "null", None),
])
def test_coerce_converts_unambiguous_scalars(value, expected, result):
    ok, coerced = coerce(value, expected)
    assert ok and coerced == result and type(coerced) is type(result)


@pytest.mark.parametrize("value, expected", [
    ("5.5", "integer"),
    ("nan", "number"),
    ("inf", "number"),
    ("yes", "boolean"),
    (2, "boolean"),
    ("[1]", "array"),
    ("a", "array"),
    ('{"a": 1}', "object"),
    ({"a": 1}, "string"),
])
def test_coerce_refuses_what_has_no_single_meaning(value, expected):
    assert coerce(value, expected) == (False, value)
