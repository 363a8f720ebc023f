"""History hygiene (providers/history.py): what a history looks like when it is sent again."""

import re

from miniagent.core.messages import text_of as tool_result_text
from miniagent.providers.history import images_of
from miniagent.core.provider import Model
from miniagent.providers.history import (
    NO_RESULT,
    ID_FORMATS,
    prepare_history,
)

MODEL = Model("model-b", "prov", "openai-completions", "http://x/v1")


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def assistant(content, stop="stop", model="model-b", provider="prov", api="openai-completions"):
    return {"role": "assistant", "content": content, "api": api, "provider": provider,
            "model": model, "stopReason": stop, "timestamp": 2}


def call(call_id, name="read"):
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"path": "a"}}


def result(call_id, text="ok", name="read"):
    return {"role": "toolResult", "toolCallId": call_id, "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3}


def roles(messages):
    return [m["role"] for m in messages]


def test_errored_and_aborted_assistant_messages_are_dropped():
    history = [user("a"), assistant([{"type": "text", "text": "partial"}], stop="error"),
               user("b"), assistant([{"type": "text", "text": "half"}], stop="aborted"),
               user("c")]
    assert roles(prepare_history(history, MODEL)) == ["user", "user", "user"]


def test_a_tool_call_without_result_gets_no_result_provided_before_the_next_turn():
    history = [user("a"), assistant([call("c1"), call("c2", "bash")], stop="toolUse"),
               result("c1"), user("b")]
    prepared = prepare_history(history, MODEL)
    assert roles(prepared) == ["user", "assistant", "toolResult", "toolResult", "user"]
    synthetic = prepared[3]
    assert synthetic["toolCallId"] == "c2" and synthetic["toolName"] == "bash"
    assert synthetic["isError"] is True
    assert synthetic["content"] == [{"type": "text", "text": "No result provided"}]
    assert NO_RESULT == "No result provided"


def test_calls_are_answered_even_when_the_next_assistant_message_is_dropped():
    history = [user("a"), assistant([call("c1")], stop="toolUse"),
               assistant([{"type": "text", "text": "x"}], stop="error"), user("b")]
    prepared = prepare_history(history, MODEL)
    assert roles(prepared) == ["user", "assistant", "toolResult", "user"]
    assert prepared[2]["content"][0]["text"] == NO_RESULT


def test_open_calls_at_the_end_are_answered_too():
    prepared = prepare_history([user("a"), assistant([call("c1")], stop="toolUse")], MODEL)
    assert roles(prepared) == ["user", "assistant", "toolResult"]


def test_a_result_whose_call_was_dropped_is_dropped():
    history = [user("a"), assistant([call("c1")], stop="aborted"), result("c1"), user("b")]
    assert roles(prepare_history(history, MODEL)) == ["user", "user"]


def test_another_models_thinking_becomes_text_and_redacted_thinking_is_dropped():
    content = [{"type": "thinking", "thinking": "let me think", "thinkingSignature": "sig"},
               {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "opaque",
                "redacted": True},
               {"type": "text", "text": "answer"}]
    prepared = prepare_history([user("a"), assistant(content, model="model-a")], MODEL)
    assert prepared[1]["content"] == [{"type": "text", "text": "let me think"},
                                      {"type": "text", "text": "answer"}]


def test_the_same_models_thinking_is_kept_with_its_signature():
    content = [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "reasoning_content"},
               {"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "opaque",
                "redacted": True},
               {"type": "thinking", "thinking": "", "thinkingSignature": "signed-but-empty"},
               {"type": "thinking", "thinking": "  "},
               {"type": "text", "text": "answer"}]
    prepared = prepare_history([user("a"), assistant(content)], MODEL)
    assert prepared[1]["content"] == content[:3] + content[4:]


def test_same_model_means_same_provider_api_and_id():
    content = [{"type": "thinking", "thinking": "t", "thinkingSignature": "s"}]
    for other in ({"provider": "other"}, {"api": "anthropic-messages"}, {"model": "model-c"}):
        prepared = prepare_history([user("a"), assistant(content, **other)], MODEL)
        assert prepared[1]["content"] == [{"type": "text", "text": "t"}]


def test_a_calls_server_extras_go_back_only_to_the_model_that_wrote_them():
    extra = {"google": {"thought_signature": "sig"}}
    history = [user("a"), assistant([{**call("c1"), "extraContent": extra}], stop="toolUse"),
               result("c1")]
    assert prepare_history(history, MODEL)[1]["content"][0]["extraContent"] == extra
    other = prepare_history(history, Model("model-c", "prov", "openai-completions", "http://x/v1"))
    assert other[1]["content"][0] == call("c1")
    assert history[1]["content"][0]["extraContent"] == extra  # the input is not modified


def test_an_assistant_message_left_empty_is_dropped():
    content = [{"type": "thinking", "thinking": "[Reasoning redacted]", "redacted": True,
                "thinkingSignature": "x"}]
    assert roles(prepare_history([user("a"), assistant(content, model="m"), user("b")], MODEL)) == ["user", "user"]


def test_unpaired_surrogates_are_removed_everywhere():
    bad = "ok \ud83d end"
    history = [user(bad), assistant([{"type": "text", "text": bad}], stop="toolUse"), user(bad)]
    history[1]["content"].append(call("c1"))
    history.insert(2, result("c1", bad))
    prepared = prepare_history(history, MODEL)
    texts = [prepared[0]["content"][0]["text"], prepared[1]["content"][0]["text"],
             prepared[2]["content"][0]["text"], prepared[3]["content"][0]["text"]]
    assert texts == ["ok  end"] * 4
    emoji = "emoji \U0001F600 stays"  # a real pair is one code point in Python: kept
    assert prepare_history([user(emoji)], MODEL)[0]["content"][0]["text"] == emoji
    assert prepare_history([{"role": "user", "content": bad}], MODEL)[0]["content"] == "ok  end"


def test_mistral_ids_are_nine_alphanumerics_in_the_call_and_its_result():
    history = [user("a"), assistant([call("call_0_0"), call("abcDEF123")], stop="toolUse"),
               result("call_0_0"), result("abcDEF123"), user("b")]
    prepared = prepare_history(history, MODEL, id_format="mistral")
    new_id = prepared[1]["content"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", new_id)
    assert prepared[2]["toolCallId"] == new_id
    assert prepared[1]["content"][1]["id"] == "abcDEF123" == prepared[3]["toolCallId"]
    assert ID_FORMATS["mistral"]("call_0_0") == new_id  # the same id maps the same way


def test_anthropic_and_openai_id_formats():
    assert ID_FORMATS["anthropic"]("call|7.x") == "call_7_x"
    assert ID_FORMATS["anthropic"]("toolu_01-ok") == "toolu_01-ok"
    assert ID_FORMATS["openai"]("call_abc|fc_123") == "call_abc"
    assert len(ID_FORMATS["openai"]("x" * 60)) == 40


def test_the_input_is_not_modified():
    history = [user("a"), assistant([call("call 1"), {"type": "thinking", "thinking": "t"}],
                                    model="other", stop="toolUse")]
    snapshot = repr(history)
    prepare_history(history, MODEL, id_format="anthropic")
    assert repr(history) == snapshot


def test_tool_result_helpers():
    message = result("c1", "line 1")
    message["content"] += [{"type": "image", "data": "AAA", "mimeType": "image/png"},
                           {"type": "text", "text": "line 2"}]
    assert tool_result_text(message) == "line 1\nline 2"
    assert images_of(message["content"]) == [{"type": "image", "data": "AAA", "mimeType": "image/png"}]
    assert images_of("plain string") == []
