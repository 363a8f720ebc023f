"""files/text.py: one line for people, JSON for files."""

import json

from miniagent.files.text import one_line, to_json


def test_one_line_folds_whitespace_and_cuts_long_text():
    assert one_line("a\n  b") == "a b"
    assert one_line("x" * 600) == "x" * 497 + "..."
    assert one_line("x" * 500) == "x" * 500


def test_to_json_writes_compact_utf8_and_escapes_a_lone_surrogate():
    text = to_json({"text": "é \udc80"})
    assert text == '{"text":"é \\udc80"}'
    assert json.loads(text.encode("utf-8")) == {"text": "é \udc80"}  # it reads back the same
    assert to_json({"a": [1]}, indent=1) == '{\n "a": [\n  1\n ]\n}'
