"""providers/builder.py: the product's builder, the core's (tests/core/test_assembly.py)
with jsonpartial's parsers: live arguments shown while streaming, still parsed strictly
at the end; the output cap a request may ask for, within the window."""

from miniagent.core.messages import tool_call_block
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers import builder as builder_module
from miniagent.providers.builder import MessageBuilder, error_text, estimate_input_tokens, max_output_tokens

MODEL = Model(id="gpt-4.1", provider="openai", api="openai-completions",
              cost={"input": 2.0, "output": 8.0, "cacheRead": 0.5, "cacheWrite": 0.0})


def test_live_arguments_are_shown_while_streaming_and_parsed_strictly_at_the_end():
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(tool_call_block("call_1", "write", {}))
    live = builder.append(index, '{"path": "a.py", "content": "pri')
    assert live["type"] == "toolcall_delta"
    assert live["partial"]["content"][0]["arguments"]["path"] == "a.py"  # repaired for display
    end = builder.close(index)
    assert end["toolCall"]["arguments"] == {}  # a cut-off call must not run
    assert end["toolCall"]["invalidArguments"] == '{"path": "a.py", "content": "pri'


def test_the_output_cap_never_asks_for_more_than_the_window_leaves():
    model = Model(id="m", provider="p", api="openai-completions", context_window=8192,
                  max_tokens=16384)
    about_6000_tokens = {"messages": [{"role": "user", "content": "x" * 24000}]}
    assert estimate_input_tokens(about_6000_tokens) == 6000
    assert max_output_tokens(model, StreamOptions(), about_6000_tokens) == 2192
    assert max_output_tokens(model, StreamOptions(max_tokens=100)) == 100
    assert max_output_tokens(model, StreamOptions()) == 16384


def test_a_preview_parser_is_called_only_when_the_text_has_doubled(monkeypatch):  # from the core
    seen = []
    monkeypatch.setattr(builder_module, "parse_partial",
                        lambda text: seen.append(len(text)) or {"n": len(text)})
    builder = MessageBuilder(MODEL)
    index, _ = builder.open(tool_call_block("call_1", "write", {}))
    for _ in range(1000):
        builder.append(index, "abcd")
    assert len(seen) < 15 and sum(seen) <= 2 * 4000
    assert builder.message["content"][0]["arguments"]["n"] == seen[-1]


def test_an_in_band_error_is_one_line_naming_its_kind():  # from the core's assembly
    assert error_text({"type": "overloaded_error", "message": "Overloaded"}) == \
        "Overloaded (overloaded_error)"
    assert error_text({"code": 429, "message": "Rate limit 429"}) == "Rate limit 429"
    assert error_text("plain text") == "plain text"
