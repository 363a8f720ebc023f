"""The Tool contract (core/tools.py): what the model is sent of a tool, and how its
arguments are checked before the tool runs."""

import threading

import pytest

from miniagent.core.tools import (Tool, ToolError, check_not_aborted, text_result,
                                  validate_arguments)

SCHEMA = {"type": "object", "required": ["path"], "properties": {
    "path": {"type": "string"}, "offset": {"type": "number"},
    "mode": {"type": "string", "enum": ["fast", "slow"]},
    "edits": {"type": "array", "items": {
        "type": "object", "required": ["oldText"], "properties": {"oldText": {"type": "string"}}}}}}


def tool():
    return Tool("read", "Read a file.", SCHEMA, execute=lambda call_id, args, ctx: text_result(""))


def test_the_model_is_sent_the_name_the_description_and_the_schema():
    assert tool().spec() == {"name": "read", "description": "Read a file.", "parameters": SCHEMA}


def test_valid_arguments_come_back_coerced_and_the_models_own_stay_as_sent():
    sent = {"path": "a.py", "offset": "5"}
    assert validate_arguments(tool(), sent) == {"path": "a.py", "offset": 5}
    assert sent == {"path": "a.py", "offset": "5"}  # events and the session keep what came


def test_every_problem_is_listed_with_its_place_and_the_arguments_received():
    with pytest.raises(ToolError) as refused:
        validate_arguments(tool(), {"offset": "many", "mode": "quick", "edits": [{}]})
    message = str(refused.value)
    assert message.startswith('Invalid arguments for tool "read":\n')
    for problem in ("  - path: missing required property", "  - offset: must be number",
                    '  - mode: must be one of "fast", "slow"',
                    "  - edits/0/oldText: missing required property"):
        assert problem in message
    assert '"offset": "many"' in message.split("Arguments received:\n")[1]


def test_a_repair_runs_before_the_check():
    repaired = Tool("read", "", SCHEMA, execute=None,
                    prepare_arguments=lambda args: {"path": args.pop("file"), **args})
    assert validate_arguments(repaired, {"file": "a.py"}) == {"path": "a.py"}


def test_a_result_is_text_blocks_and_an_aborted_run_starts_no_tool():
    result = text_result("done", details={"n": 1})
    assert result.content == [{"type": "text", "text": "done"}] and result.details == {"n": 1}
    assert not result.is_error
    abort = threading.Event()
    check_not_aborted(abort)  # not set: nothing happens
    abort.set()
    with pytest.raises(ToolError, match="Operation aborted"):
        check_not_aborted(abort)
