"""edit_args: the argument shapes models send instead of `edits: [...]` (docs/decisions.md D9)."""

import pytest

from miniagent.core.tools import ToolError
from helpers import run_edit as edit, make_file as make


def test_legacy_form_and_json_string_are_accepted(tmp_path):
    path = make(tmp_path, "one two")
    edit(tmp_path, "f.txt", oldText="one", newText="1")
    edit(tmp_path, "f.txt", edits='[{"oldText": "two", "newText": "2"}]')
    assert path.read_text() == "1 2"


def test_a_bad_edits_string_is_reported_by_validation(tmp_path):
    make(tmp_path, "x")
    with pytest.raises(ToolError, match="edits: must be array"):
        edit(tmp_path, "f.txt", edits="not json")
