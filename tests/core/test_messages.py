"""messages.py: the shapes every module shares (a server's counts and text made safe:
tests/core/test_assembly.py; usage read back and summed: tests/models/test_usage.py;
one_line and to_json: tests/files/test_text.py)."""

import json

from miniagent.core.messages import (assistant_message, empty_usage, image_block, is_failed,
                                     text_block, text_of, tool_call_block, tool_calls,
                                     tool_result_message, user_message)


def test_the_three_roles_have_pis_shapes():
    user = user_message("What is in app.py?", [image_block("aGk=", "image/png")])
    assert user["content"] == [{"type": "text", "text": "What is in app.py?"},
                               {"type": "image", "data": "aGk=", "mimeType": "image/png"}]
    call = tool_call_block("call_1", "read", {"path": "app.py"})
    assistant = assistant_message("openai-completions", "openai", "gpt-4.1", [call], "toolUse")
    assert {key: assistant[key] for key in ("role", "api", "provider", "model", "stopReason")} == {
        "role": "assistant", "api": "openai-completions", "provider": "openai",
        "model": "gpt-4.1", "stopReason": "toolUse"}
    assert assistant["usage"] == empty_usage() and "errorMessage" not in assistant
    result = tool_result_message("call_1", "read", [text_block("print('hi')\n")])
    assert result["toolCallId"] == "call_1" and result["isError"] is False
    assert "details" not in result  # absent, not null, when the tool gave none
    for message in (user, assistant, result):
        assert isinstance(message["timestamp"], int) and message["timestamp"] > 1.7e12
        assert json.loads(json.dumps(message)) == message  # plain JSON, as written to disk


def test_text_of_joins_the_text_blocks_and_leaves_out_calls_and_images():
    message = assistant_message("a", "p", "m", [text_block("one"), tool_call_block("1", "ls", {}),
                                                 image_block("x", "image/png"), text_block("two")])
    assert text_of(message) == "one\ntwo"
    assert text_of({"role": "user", "content": "a bare string, as pi allows"}) == \
        "a bare string, as pi allows"
    assert tool_calls(message) == [tool_call_block("1", "ls", {})]


def test_a_failed_reply_is_an_assistant_message_that_errored_or_was_aborted():
    assert is_failed(assistant_message("a", "p", "m", stop_reason="error", error_message="boom"))
    assert is_failed(assistant_message("a", "p", "m", stop_reason="aborted"))
    assert not is_failed(assistant_message("a", "p", "m", stop_reason="length"))
    assert not is_failed(tool_result_message("1", "bash", [], is_error=True))
