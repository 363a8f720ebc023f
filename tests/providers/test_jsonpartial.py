"""Partial JSON for live display and the final argument parse."""

import json

import pytest

from miniagent.providers.jsonpartial import parse_arguments, parse_partial

EXAMPLES = [  # the examples pi's partial parser documents, plus the empty inputs
    (None, {}),
    ("", {}),
    ("   \n", {}),
    ('{"path": "src/ma', {"path": "src/ma"}),
    ('{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
    ('{"a": 1, "b', {"a": 1}),
    ('{"a": 12', {"a": 12}),
    ('{"a": tr', {"a": True}),
    ('{"a": nu', {"a": None}),
    ('{"pa', {}),
    ('{"a": 1.', {}),
    ('{"a": -', {}),
    ('{"cmd": "echo \\"hi', {"cmd": 'echo "hi'}),
    ("[1,2", [1, 2]),
    ('"abc', "abc"),
    ("not json", {}),
]


@pytest.mark.parametrize("text, expected", EXAMPLES, ids=[repr(e[0]) for e in EXAMPLES])
def test_pi_examples(text, expected):
    assert parse_partial(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": {"b": {"c": "d', {"a": {"b": {"c": "d"}}}),
        ('{"a": [true, fa', {"a": [True, False]}),
        ('{"a": "x\\u00', {"a": "x"}),  # a cut \u escape is dropped, not mis-decoded
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "caf\\u00e9', {"a": "café"}),
        ('{"a": 1, ', {"a": 1}),
        ('{"a": 1 "b": 2}', {"a": 1}),  # read up to where it goes wrong
        ('{"a": "line\nbreak"}', {"a": "line\nbreak"}),  # raw control character tolerated
        ("[" * 5000, {}),  # absurd nesting: nothing to show, no exception
    ],
)
def test_more_partial_shapes(text, expected):
    assert parse_partial(text) == expected


def test_complete_json_is_returned_as_is():
    assert parse_partial('{"path": "a.py", "limit": 10}') == {"path": "a.py", "limit": 10}
    assert parse_partial("[1, 2]") == [1, 2]


def test_every_prefix_of_a_real_argument_text_gives_a_dict_that_grows():
    arguments = {"path": "src/app.py", "edits": [{"oldText": 'print("hi")\n', "newText": "x = 1.5e3"}], "n": -12}
    text = json.dumps(arguments)
    for end in range(1, len(text) + 1):
        value = parse_partial(text[:end])
        assert isinstance(value, dict), text[:end]
        assert set(value) <= set(arguments)
    assert parse_partial(text) == arguments


def test_parse_arguments():
    assert parse_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_arguments('{"text": "two\nlines"}') == {"text": "two\nlines"}  # a raw newline
    assert parse_arguments("") == {}
    assert parse_arguments("  ") == {}


@pytest.mark.parametrize("text", ['{"path": "a.py", "con', '{"command": "rm -rf /tmp/x', '{"a": 1}}', "{"])
def test_parse_arguments_repairs_nothing(text):
    # A cut-off or garbled call must not run on a guess: "rm -rf /tmp/x" may have gone on.
    assert parse_arguments(text) is None
