"""The Chat Completions provider against real bytes: the scripted test server (real
sockets), the llama-server captures in tests/fixtures, and hand-written streams for
the quirks of other servers (docs/decisions.md D1, D2, D5, D14-D16).
A test about one server's quirk is named after the server and the quirk.
"""

from functools import partial
import json
import re
import socket
import threading
import time

import pytest

from fake_server import FakeServer, abort_when, turn_from_capture
from helpers import FIXTURES
from miniagent.agent import Agent
from miniagent.harness.harness import Harness
from miniagent.harness.reply_retry import is_retryable
from miniagent.core.provider import Model
from miniagent.models.registry import find_model, load_providers
from miniagent.core.provider import StreamOptions
from miniagent.providers import builder
from miniagent.providers import stream as provider_stream
from miniagent.providers.compat import compat_for
from miniagent.providers.openai import build_request, stream_bytes
from miniagent.http.classify import is_final
from miniagent.core.messages import ABORTED_TEXT
from miniagent.core.tools import Tool, text_result

CAPTURES = FIXTURES / "llama-server"
PRICES = {"input": 1.0, "output": 2.0, "cacheRead": 0.5, "cacheWrite": 0.0}
TOOLS = [{"name": "read", "description": "Read a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]


def make_model(base_url="http://127.0.0.1:1/v1", **fields):
    return Model(fields.pop("id", "test-model"), fields.pop("provider", "test"), "openai-completions",
                 base_url, cost=dict(PRICES), **fields)


def context(messages=None, tools=None, system="You are terse."):
    return {"systemPrompt": system, "messages": messages or [user("hi")], "tools": tools or []}


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def final(events):
    last = events[-1]
    assert last["type"] in ("done", "error")
    assert sum(e["type"] in ("done", "error") for e in events) == 1
    return last["message"] if last["type"] == "done" else last["error"]


def call_server(turns, messages=None, tools=None, api_key=None, model_fields=None, **options):
    """Run one call against a FakeServer; (events, recorded requests)."""
    with FakeServer(turns) as srv:
        model = make_model(srv.base_url + "/v1", **(model_fields or {}))
        opts = StreamOptions(api_key=api_key, **options)
        events = list(provider_stream(model, context(messages, tools), opts))
        return events, srv.requests


def sse(*chunks, done=True, end="\n"):
    """An OpenAI body from chunk dicts (or raw strings)."""
    lines = [c if isinstance(c, str) else json.dumps(c) for c in chunks] + (["[DONE]"] if done else [])
    return "".join(f"data: {line}{end}{end}" for line in lines).encode()


def delta(**fields):
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": None}]}


def finish(reason, **extra):
    return {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}], **extra}


def tool_delta(*fragments):
    return delta(tool_calls=list(fragments))


def replay(body, model=None, chunk_size=None):
    chunks = [body[i:i + chunk_size] for i in range(0, len(body), chunk_size)] if chunk_size else [body]
    return list(stream_bytes(model or make_model(), chunks))


def calls_of(message):
    return [(b["id"], b["name"], b["arguments"]) for b in message["content"] if b["type"] == "toolCall"]


# --- Requests --------------------------------------------------------------------------------


def test_request_shape_against_the_server():
    events, requests = call_server([{"content": [{"type": "text", "text": "Hello there"}]}],
                                   tools=TOOLS)
    (request,) = requests
    assert request["path"] == "/v1/chat/completions"  # {base}/chat/completions, D16
    body = request["body"]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["model"] == "test-model" and body["max_tokens"] == 16384
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert body["messages"][1] == {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    assert body["tools"] == [{"type": "function", "function": TOOLS[0]}]
    assert "authorization" not in request["headers"]  # no key, no header
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "text_delta",
                                           "text_end", "done"]
    assert final(events)["content"] == [{"type": "text", "text": "Hello there"}]


def test_a_given_key_is_sent_as_bearer_and_no_tools_means_no_tools_field():
    _, requests = call_server([{"content": [{"type": "text", "text": "ok"}]}], api_key="sk-test")
    assert requests[0]["headers"]["authorization"] == "Bearer sk-test"
    assert "tools" not in requests[0]["body"]


def test_openai_proper_gets_its_own_field_names():
    model = make_model("https://api.openai.com/v1", reasoning=True)
    opts = StreamOptions(thinking="minimal", session_id="sess-1", max_tokens=500, temperature=0.2)
    url, headers, body = build_request(model, context(), opts)
    assert url == "https://api.openai.com/v1/chat/completions"
    assert body["max_completion_tokens"] == 500 and "max_tokens" not in body
    assert body["messages"][0]["role"] == "developer"
    assert body["reasoning_effort"] == "minimal" and body["prompt_cache_key"] == "sess-1"
    assert body["temperature"] == 0.2


def test_compatible_servers_get_the_standard_fields():
    model = make_model("http://127.0.0.1:11434/v1", reasoning=True)  # Ollama
    _, _, body = build_request(model, context(), StreamOptions(thinking="minimal", session_id="s"))
    assert body["messages"][0]["role"] == "system" and "max_tokens" in body
    assert body["reasoning_effort"] == "low"  # "minimal" exists only at OpenAI
    assert "prompt_cache_key" not in body
    _, _, body = build_request(model, context(), StreamOptions(thinking="off"))
    assert "reasoning_effort" not in body
    _, _, body = build_request(make_model(reasoning=False), context(), StreamOptions(thinking="high"))
    assert "reasoning_effort" not in body


def test_thinking_formats_per_server():
    opts = StreamOptions(thinking="high")
    _, _, body = build_request(make_model("https://openrouter.ai/api/v1", reasoning=True), context(), opts)
    assert body["reasoning"] == {"effort": "high"} and "reasoning_effort" not in body
    _, _, body = build_request(make_model("http://127.0.0.1:8080/v1", reasoning=True), context(), opts)
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    _, _, body = build_request(make_model("https://api.deepseek.com", reasoning=True), context(), opts)
    assert "reasoning_effort" not in body


def test_model_compat_overrides_detection_field_by_field():
    model = make_model("https://api.openai.com/v1", compat={"maxTokensField": "max_tokens"})
    flags = compat_for(model)
    assert flags["maxTokensField"] == "max_tokens" and flags["supportsPromptCacheKey"] is True
    model = make_model(compat={"supportsUsageInStreaming": False})
    _, _, body = build_request(model, context(), StreamOptions())
    assert "stream_options" not in body


def test_tool_results_become_tool_messages_and_images_a_follow_up_user_message():
    history = [user("look"), {
        "role": "assistant", "api": "openai-completions", "provider": "test", "model": "test-model",
        "stopReason": "toolUse", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.png"}},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "b.txt"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False,
         "content": [{"type": "image", "data": "QUJD", "mimeType": "image/png"}]},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "read", "isError": False,
         "content": [{"type": "text", "text": "text of b"}]}]
    model = make_model(input=["text", "image"])
    _, _, body = build_request(model, context(history), StreamOptions())
    wire = body["messages"][1:]
    assert wire[1] == {"role": "assistant", "content": "Reading.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a.png"}'}},
        {"id": "c2", "type": "function", "function": {"name": "read", "arguments": '{"path":"b.txt"}'}}]}
    assert wire[2] == {"role": "tool", "tool_call_id": "c1", "content": "(see attached image)"}
    assert wire[3] == {"role": "tool", "tool_call_id": "c2", "content": "text of b"}
    assert wire[4] == {"role": "user", "content": [
        {"type": "text", "text": "Attached image(s) from tool result:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}]}
    # A text-only model gets no image parts at all.
    _, _, body = build_request(make_model(), context(history), StreamOptions())
    assert all(m["role"] != "user" or "Attached" not in json.dumps(m) for m in body["messages"])


def test_history_hygiene_reaches_the_wire():
    history = [user("a"), {
        "role": "assistant", "api": "openai-completions", "provider": "other", "model": "x",
        "stopReason": "toolUse", "content": [
            {"type": "thinking", "thinking": "their thoughts", "thinkingSignature": "reasoning_content"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]},
        {"role": "assistant", "api": "openai-completions", "provider": "test", "model": "test-model",
         "stopReason": "error", "errorMessage": "boom", "content": [{"type": "text", "text": "half"}]},
        user("b")]
    _, _, body = build_request(make_model(), context(history), StreamOptions())
    wire = body["messages"][1:]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "user"]
    assert wire[1]["content"] == "their thoughts" and "reasoning_content" not in wire[1]
    assert wire[2] == {"role": "tool", "tool_call_id": "c1", "content": "No result provided"}


def tool_turn_with_reasoning(field):
    """A history whose assistant turn thought (in `field`) and called a tool."""
    return [user("go"), {
        "role": "assistant", "api": "openai-completions", "provider": "test", "model": "test-model",
        "stopReason": "toolUse", "content": [
            {"type": "thinking", "thinking": "Read it first.", "thinkingSignature": field},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False,
         "content": [{"type": "text", "text": "A"}]}]


def test_deepseek_gets_its_reasoning_back_and_groq_none():
    # DeepSeek's thinking mode answers 400 when a tool-call turn comes back without its
    # reasoning_content; Groq answers 400 to any reasoning field on an assistant message.
    history = tool_turn_with_reasoning("reasoning_content")
    _, _, body = build_request(make_model("https://api.deepseek.com"), context(history), StreamOptions())
    assert body["messages"][2]["reasoning_content"] == "Read it first."
    history = tool_turn_with_reasoning("reasoning")
    groq = make_model("https://api.groq.com/openai/v1")
    _, _, body = build_request(groq, context(history), StreamOptions())
    assert set(body["messages"][2]) == {"role", "content", "tool_calls"}


@pytest.mark.parametrize("model_id,effort", [("gpt-5", "minimal"), ("o3", "low"), ("o4-mini", "low"),
                                             ("o3-mini", "low")])
def test_openai_reasoning_models_get_an_effort_they_accept(model_id, effort, tmp_path):
    # The o-series answers 400 to "minimal", which only the gpt-5 family knows.
    model = find_model(load_providers({"MINIAGENT_HOME": str(tmp_path)}), model_id, "openai")
    _, _, body = build_request(model, context(), StreamOptions(thinking="minimal"))
    assert body["reasoning_effort"] == effort


def test_own_reasoning_goes_back_in_its_field():
    # What pi sends on the second turn of the reasoning run (fixtures/pi-run/*/reasoning).
    history = [user("Hello"), {
        "role": "assistant", "api": "openai-completions", "provider": "test", "model": "test-model",
        "stopReason": "stop", "content": [
            {"type": "thinking", "thinking": "The user greets me; I should greet back.",
             "thinkingSignature": "reasoning_content"},
            {"type": "text", "text": "Hi there!"}]}, user("And again?")]
    _, _, body = build_request(make_model(), context(history), StreamOptions())
    assert body["messages"][2] == {"role": "assistant", "content": "Hi there!",
                                   "reasoning_content": "The user greets me; I should greet back."}


@pytest.mark.parametrize("version", ["pi-0.58.3", "pi-0.73.1"])
@pytest.mark.parametrize("run", ["print", "reasoning", "errors", "turns20_read"])
def test_messages_match_what_pi_sent_for_the_same_session(run, version):
    """fixtures/pi-run: pi's session file and the request bodies it sent. Rebuilding the
    last request from the session's messages must give pi's messages, byte for byte."""
    folder = FIXTURES / "pi-run" / version
    entries = [json.loads(line) for line in open(folder / f"{run}.session.jsonl")]
    messages = [e["message"] for e in entries if e.get("type") == "message"]
    sent = json.loads(open(folder / f"{run}.requests.jsonl").readlines()[-1])["body"]["messages"]
    history = messages[:len(sent) - 1]  # the messages that request carried
    model = make_model("http://127.0.0.1:18711/v1", id="scripted-model", provider="scripted")
    _, _, body = build_request(model, context(history, system=sent[0]["content"]), StreamOptions())
    assert body["messages"] == sent


def test_mistral_models_get_nine_character_ids():
    history = [user("a"), {
        "role": "assistant", "api": "openai-completions", "provider": "test", "model": "mistral:7b",
        "stopReason": "toolUse",
        "content": [{"type": "toolCall", "id": "call_0_0", "name": "read", "arguments": {}}]},
        {"role": "toolResult", "toolCallId": "call_0_0", "toolName": "read", "isError": False,
         "content": [{"type": "text", "text": "x"}]}]
    model = make_model("http://127.0.0.1:11434/v1", id="mistral:7b")
    _, _, body = build_request(model, context(history), StreamOptions())
    sent_id = body["messages"][2]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", sent_id) and body["messages"][3]["tool_call_id"] == sent_id


# --- pi's fixture and the captures -----------------------------------------------------------


def test_pi_tool_call_fixture_events_and_usage():
    body = sse(tool_delta({"index": 0, "id": "c1", "function": {"name": "read", "arguments": '{"pa'}}),
               tool_delta({"index": 0, "function": {"arguments": 'th":"a"}'}}),
               finish("tool_calls"),
               {"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20,
                                         "prompt_tokens_details": {"cached_tokens": 40}}})
    events = replay(body)
    assert [e["type"] for e in events] == ["start", "toolcall_start", "toolcall_delta",
                                           "toolcall_delta", "toolcall_end", "done"]
    assert events[1]["partial"]["content"][0]["id"] == "c1"
    assert [e["delta"] for e in events[2:4]] == ['{"pa', 'th":"a"}']
    assert events[4]["toolCall"] == {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}}
    assert events[5]["reason"] == "toolUse"
    usage = final(events)["usage"]
    assert (usage["input"], usage["cacheRead"], usage["output"], usage["cacheWrite"],
            usage["totalTokens"]) == (60, 40, 20, 0, 120)
    assert usage["cost"]["total"] == pytest.approx((60 * 1 + 20 * 2 + 40 * 0.5) / 1e6)


def capture_call(name, model_fields=None, **fault):
    turn = turn_from_capture(CAPTURES / f"capture-{name}.txt")
    turn["fault"].update(fault)
    return call_server([turn], model_fields=model_fields)


def test_llama_server_text_capture():
    events, _ = capture_call("stream-text")
    message = final(events)
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello from a tiny random model."}]
    assert message["usage"]["input"] + message["usage"]["cacheRead"] == 68
    assert message["usage"]["output"] == 8 and message["usage"]["totalTokens"] == 76


def test_llama_server_capture_without_usage_still_completes():
    message = final(capture_call("stream-text-nousage")[0])
    assert message["stopReason"] == "stop" and message["usage"]["totalTokens"] == 0


@pytest.mark.parametrize("name", ["stream-tool-required", "stream-tool-auto"])
@pytest.mark.ex_assembly
def test_llama_server_tool_call_captures(name):
    message = final(capture_call(name)[0])
    assert message["stopReason"] == "toolUse"
    ((call_id, tool, args),) = calls_of(message)
    assert len(call_id) == 32 and tool == "read" and args == {"path": "README.md"}


@pytest.mark.parametrize("name,text", [
    ("stream-after-tool-result", "Hello from a tiny random model."),
    ("py-stream-text", "Hello from a tiny random model."),  # llama-cpp-python
    ("py-stream-tool-auto", None),  # it wrote its call as text: no tool call, a plain stop
])
def test_other_text_captures(name, text):
    message = final(capture_call(name)[0])
    assert message["stopReason"] == "stop" and [b["type"] for b in message["content"]] == ["text"]
    assert text is None or message["content"][0]["text"] == text


def test_llama_server_text_then_tool_call():
    message = final(capture_call("stream-content-then-tool")[0])
    assert [b["type"] for b in message["content"]] == ["text", "toolCall"]
    assert message["stopReason"] == "toolUse"


def test_llama_server_length_captures():
    assert final(capture_call("stream-length")[0])["stopReason"] == "length"
    message = final(capture_call("stream-tool-truncated")[0])
    assert message["stopReason"] == "length" and calls_of(message)[0][2] == {}  # args were "{"


def json_turn(document):
    """A turn answering 200 with one JSON document, as a server that ignores stream: true."""
    return {"fault": {"raw": json.dumps(document, indent=2), "headers": {"Content-Type": "application/json"}}}


def test_llama_server_non_streamed_text_reply():  # the server ignored stream: true
    events, _ = capture_call("nonstream-text")
    assert [e["type"] for e in events] == ["start", "text_start", "text_delta", "text_end", "done"]
    message = final(events)
    assert message["stopReason"] == "stop"
    assert message["content"] == [{"type": "text", "text": "Hello from a tiny random model."}]
    assert message["usage"]["input"] + message["usage"]["cacheRead"] == 68 and message["usage"]["output"] == 8


def test_llama_server_non_streamed_tool_calls():
    message = final(capture_call("nonstream-tool")[0])
    assert message["stopReason"] == "toolUse"
    assert calls_of(message) == [("V60LePikb2qsnwSJnED3RS3zqkuEgNIm", "read", {"path": "README.md"})]
    message = final(capture_call("nonstream-tool-truncated")[0])  # arguments "{": none at all
    assert message["stopReason"] == "length" and calls_of(message)[0][1:] == ("read", {})


def test_a_non_streamed_reply_keeps_reasoning_text_and_each_call_apart():
    call_x = {"id": "a", "type": "function", "function": {"name": "read", "arguments": '{"path":"x"}'}}
    call_y = {"id": "b", "type": "function", "function": {"name": "read", "arguments": '{"path":"y"}'}}
    completion = {"object": "chat.completion", "usage": {"prompt_tokens": 9, "completion_tokens": 4},
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                      "role": "assistant", "content": "Both.", "reasoning_content": "Two files.",
                      "tool_calls": [call_x, call_y]}}]}
    message = final(call_server([json_turn(completion)])[0])
    assert [b["type"] for b in message["content"]] == ["thinking", "text", "toolCall", "toolCall"]
    assert calls_of(message) == [("a", "read", {"path": "x"}), ("b", "read", {"path": "y"})]
    assert message["stopReason"] == "toolUse" and message["usage"]["totalTokens"] == 13


def test_an_event_stream_labelled_as_json_is_still_read():
    message = final(capture_call("stream-text", headers={"Content-Type": "application/json"})[0])
    assert message["content"] == [{"type": "text", "text": "Hello from a tiny random model."}]


@pytest.mark.ex_assembly
def test_llama_cpp_python_repeats_id_and_name_on_every_fragment():
    message = final(capture_call("py-stream-tool-named")[0])
    ((call_id, tool, args),) = calls_of(message)  # one call, nothing concatenated
    assert call_id == "call__0_read_cmpl-6f02ee0d-7341-4d10-8fe5-496439a548f1"
    assert tool == "read" and args == {"path": "README.md"}


def test_an_empty_200_body_is_a_stream_that_ended_early():
    events, _ = capture_call("py-stream-tool-required")
    message = final(events)
    assert message["stopReason"] == "error"
    assert "stream ended before the response was complete" in message["errorMessage"]


def test_llama_server_context_error_is_an_error_without_start():
    events, _ = capture_call("error-context")
    assert [e["type"] for e in events] == ["error"]
    message = final(events)
    assert message["errorMessage"].startswith("400 ")
    assert "exceeds the available context size" in message["errorMessage"]


def test_llama_server_500_error_body():
    events, _ = capture_call("error-bad-json", headers={"x-should-retry": "false"})
    assert final(events)["errorMessage"].startswith("500 [json.exception.parse_error.101]")


def test_raw_socket_capture_with_llama_servers_own_chunk_framing():
    """capture-raw-http-tool-required.bin is what llama-server wrote to its socket."""
    raw = (CAPTURES / "capture-raw-http-tool-required.bin").read_bytes()
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(raw)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    model = make_model(f"http://127.0.0.1:{listener.getsockname()[1]}/v1")
    events = list(provider_stream(model, context(), StreamOptions()))
    listener.close()
    message = final(events)
    assert message["stopReason"] == "toolUse" and calls_of(message)[0][1:] == ("read", {"path": "README.md"})


# --- Decision 1: tool-call fragments ------------------------------------------------------------


@pytest.mark.ex_assembly
def test_parallel_calls_are_kept_apart_by_index_even_interleaved():
    body = sse(tool_delta({"index": 0, "id": "a", "function": {"name": "read", "arguments": '{"path":'}}),
               tool_delta({"index": 1, "id": "b", "function": {"name": "ls", "arguments": '{"dir":'}}),
               tool_delta({"index": 0, "function": {"arguments": '"x"}'}}),
               tool_delta({"index": 1, "function": {"arguments": '"y"}'}}),
               finish("tool_calls"))
    assert calls_of(final(replay(body))) == [("a", "read", {"path": "x"}), ("b", "ls", {"dir": "y"})]


@pytest.mark.ex_assembly
def test_ollama_reused_index_with_a_new_id_and_name_is_a_new_call():  # Q6 (also proxies)
    body = sse(tool_delta({"index": 0, "id": "a", "function": {"name": "read", "arguments": '{"path":"x"}'}}),
               tool_delta({"index": 0, "id": "b", "function": {"name": "ls", "arguments": "{}"}}),
               finish("tool_calls"))
    assert calls_of(final(replay(body))) == [("a", "read", {"path": "x"}), ("b", "ls", {})]


@pytest.mark.ex_assembly
def test_gemini_missing_index_named_fragment_starts_a_call_and_others_continue():  # Q5
    body = sse(tool_delta({"id": "a", "function": {"name": "read", "arguments": '{"pa'}}),
               tool_delta({"function": {"arguments": 'th":"x"}'}}),
               tool_delta({"id": "b", "function": {"name": "ls", "arguments": "{}"}}),
               finish("tool_calls"))
    assert calls_of(final(replay(body))) == [("a", "read", {"path": "x"}), ("b", "ls", {})]


@pytest.mark.ex_assembly
def test_lm_studio_fresh_id_per_fragment():  # Q9: a nameless fragment continues the call
    body = sse(tool_delta({"index": 0, "id": "id1", "function": {"name": "read", "arguments": ""}}),
               tool_delta({"index": 0, "id": "id2", "function": {"name": "", "arguments": '{"path"'}}),
               tool_delta({"id": "id3", "function": {"arguments": ':"x"}'}}),
               finish("tool_calls"))
    assert calls_of(final(replay(body))) == [("id1", "read", {"path": "x"})]


@pytest.mark.ex_assembly
def test_fireworks_repeated_id_name_and_type_are_set_once():  # Q8 (also NIM, LiteLLM)
    fragment = {"index": 0, "id": "c", "type": "function", "function": {"name": "read"}}
    body = sse(delta(role="assistant"), delta(role="assistant", content="Hi"),
               tool_delta({**fragment, "function": {"name": "read", "arguments": '{"path":'}}),
               tool_delta({**fragment, "function": {"name": "read", "arguments": '"x"}'}}),
               finish("tool_calls"))
    message = final(replay(body))
    assert calls_of(message) == [("c", "read", {"path": "x"})]
    assert message["role"] == "assistant" and message["content"][0]["text"] == "Hi"


@pytest.mark.ex_assembly
def test_gemini_empty_ids_are_generated_and_unique_and_stop_with_calls_is_tool_use():  # Q7, Q13
    body = sse(tool_delta({"id": "", "function": {"name": "read", "arguments": '{"path":"a"}'}}),
               tool_delta({"function": {"name": "read", "arguments": '{"path":"b"}'}}),
               finish("stop"))
    message = final(replay(body))
    ids = [c[0] for c in calls_of(message)]
    assert len(set(ids)) == 2 and all(ids)
    assert message["stopReason"] == "toolUse"  # Q13: "stop" with tool calls


@pytest.mark.ex_assembly
def test_tgi_arguments_as_an_object_and_empty_arguments():  # Q10, Q11, Q4 (whole call at once)
    body = sse(tool_delta({"index": 0, "id": "a", "function": {"name": "read", "arguments": {"path": "x"}}}),
               tool_delta({"index": 1, "id": "b", "function": {"name": "ls", "arguments": ""}}),
               tool_delta({"index": 2, "id": "c", "function": {"name": "pwd", "arguments": "  "}}),
               finish("tool_calls"))
    assert calls_of(final(replay(body))) == [("a", "read", {"path": "x"}), ("b", "ls", {}), ("c", "pwd", {})]


def test_invalid_final_arguments_are_never_run_on_a_repaired_guess():
    body = sse(tool_delta({"index": 0, "id": "c1", "function": {"name": "bash", "arguments": '{"command": "rm -rf'}}),
               tool_delta({"index": 0, "function": {"arguments": ' /tmp/x'}}),
               finish("tool_calls"))  # a normal finish, yet the JSON was cut off
    events = replay(body)
    ends = [e["toolCall"]["arguments"] for e in events if e["type"] == "toolcall_end"]
    assert ends == [{}] and calls_of(final(events)) == [("c1", "bash", {})]


def test_a_call_with_invalid_arguments_goes_back_to_the_model_as_an_error():
    ran = []
    schema = {"type": "object", "required": ["command"], "properties": {"command": {"type": "string"}}}
    bash = Tool("bash", "Run a command.", schema, lambda call_id, args, ctx: ran.append(args) or text_result("ran"))
    cut = sse(tool_delta({"index": 0, "id": "c1", "function": {"name": "bash", "arguments": '{"command": "rm -rf /tmp/x'}}),
              finish("tool_calls")).decode()
    with FakeServer([{"fault": {"raw": cut}}, {"content": [{"type": "text", "text": "Sorry."}]}]) as srv:
        agent = Agent(model=make_model(srv.base_url + "/v1"), tools=[bash])
        agent.prompt("clean up")
    assert ran == []
    result = agent.messages[2]
    assert result["role"] == "toolResult" and result["isError"]
    assert "not a valid JSON object" in result["content"][0]["text"]
    assert '{\\"command\\": \\"rm -rf /tmp/x' in result["content"][0]["text"]  # quoted back
    assert agent.messages[-1]["content"] == [{"type": "text", "text": "Sorry."}]


def test_lone_surrogates_from_the_server_are_removed_where_they_enter():
    # json.dumps writes a lone surrogate as the escape "\ud83d", as a broken server would.
    arguments = '{"path": "a\\ud83d.txt", "content": "x\ud83d"}'  # escaped in the JSON text, and raw
    body = sse(delta(reasoning_content="hm\ud83d"), delta(content="ok \ud83d!"),
               tool_delta({"index": 0, "id": "c\udc80", "function": {"name": "write", "arguments": arguments}}),
               finish("tool_calls"))
    events = replay(body)
    message = final(events)
    assert [b.get("text") or b.get("thinking") for b in message["content"][:2]] == ["hm", "ok !"]
    assert calls_of(message) == [("c", "write", {"path": "a.txt", "content": "x"})]
    for event in events:  # every event can be printed and saved as UTF-8
        json.dumps({k: v for k, v in event.items() if k != "partial"}, ensure_ascii=False).encode("utf-8")
    error = final(replay(sse({"error": {"message": "bad\udc00 news"}})))
    assert error["errorMessage"] == "bad news"


def test_gemini_extra_content_goes_back_with_its_call_to_the_same_model_only():  # Q15
    signature = {"google": {"thought_signature": "c2lnbmF0dXJl"}}
    body = sse(tool_delta({"id": "fc1", "type": "function", "extra_content": signature,
                           "function": {"name": "read", "arguments": '{"path":"a"}'}}),
               finish("stop"))
    message = final(replay(body))
    history = [user("go"), message, {"role": "toolResult", "toolCallId": "fc1", "toolName": "read",
                                     "isError": False, "content": [{"type": "text", "text": "A"}]}]
    _, _, request = build_request(make_model(), context(history), StreamOptions())
    assert request["messages"][2]["tool_calls"] == [{
        "id": "fc1", "type": "function", "function": {"name": "read", "arguments": '{"path":"a"}'},
        "extra_content": signature}]
    _, _, request = build_request(make_model(id="other-model"), context(history), StreamOptions())
    assert "extra_content" not in request["messages"][2]["tool_calls"][0]


def test_large_arguments_in_tiny_deltas_assemble_exactly(monkeypatch):  # D2
    parsed_lengths = []  # the length of each partial parse made for the live view
    real_parse = builder.parse_partial
    monkeypatch.setattr(builder, "parse_partial",
                        lambda text: parsed_lengths.append(len(text)) or real_parse(text))
    content = "x" * 40_000
    text = json.dumps({"path": "big.txt", "content": content})
    fragments = [tool_delta({"index": 0, "function": {"arguments": text[i:i + 4]}})
                 for i in range(0, len(text), 4)]
    body = sse(tool_delta({"index": 0, "id": "w", "function": {"name": "write", "arguments": ""}}),
               *fragments, finish("tool_calls"))
    events = replay(body)
    assert calls_of(final(events)) == [("w", "write", {"path": "big.txt", "content": content})]
    deltas = [e for e in events if e["type"] == "toolcall_delta"]
    assert "".join(e["delta"] for e in deltas) == text  # the live view: raw fragments
    # 10,000 deltas, but the partial text is parsed only when it has doubled: linear in total.
    assert len(deltas) > 10_000 and len(parsed_lengths) < 25 and sum(parsed_lengths) <= 2 * len(text)


# --- Reasoning, text, finish reasons ---------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning", "reasoning_text"])
def test_reasoning_fields_become_thinking_signed_with_the_field_name(field):
    body = sse(delta(**{field: "Let me "}), delta(**{field: "think."}), delta(content="Answer."),
               finish("stop"))
    events = replay(body)
    assert [e["type"] for e in events] == ["start", "thinking_start", "thinking_delta", "thinking_delta",
                                           "thinking_end", "text_start", "text_delta", "text_end", "done"]
    assert final(events)["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "thinkingSignature": field},
        {"type": "text", "text": "Answer."}]


def test_vllm_delta_that_ends_the_reasoning_may_start_the_answer():  # its reasoning parsers
    body = sse(delta(reasoning_content="Think"), delta(reasoning_content=" more.", content="The"),
               delta(content=" answer."), finish("stop"))
    assert final(replay(body))["content"] == [
        {"type": "thinking", "thinking": "Think more.", "thinkingSignature": "reasoning_content"},
        {"type": "text", "text": "The answer."}]


def test_openrouter_mirrored_reasoning_fields_are_taken_once():  # Q2
    body = sse(delta(reasoning="same", reasoning_content="same"), finish("stop"))
    assert final(replay(body))["content"][0]["thinking"] == "same"


@pytest.mark.parametrize("reason,words", [("content_filter", "content filter"), ("refusal", "declined")])
def test_filtered_and_refused_replies_are_errors_that_say_so(reason, words):  # D15
    message = final(replay(sse(delta(content="I can"), finish(reason))))
    assert message["stopReason"] == "error" and words in message["errorMessage"]
    assert message["content"][0]["text"] == "I can"  # what came is kept


@pytest.mark.parametrize("reason", ["eos_token", "eos", "brand_new_reason"])  # TGI's, anyone's
def test_an_unknown_finish_reason_keeps_the_complete_answer(reason):
    message = final(replay(sse(delta(content="The answer."), finish(reason))))
    assert message["stopReason"] == "stop" and "errorMessage" not in message
    assert message["content"] == [{"type": "text", "text": "The answer."}]
    with_call = sse(tool_delta({"index": 0, "id": "c1", "function": {"name": "read",
                                                                     "arguments": '{"path": "a"}'}}),
                    finish(reason))
    assert final(replay(with_call))["stopReason"] == "toolUse"


@pytest.mark.parametrize("body,retryable", [
    (sse(delta(content="x"), done=False), True),  # cut off before a finish_reason (D5)
    (sse(delta(content="x"), finish("error")), True),  # OpenRouter: the upstream failed
    (sse(delta(content="x"), finish("insufficient_system_resource")), True),  # DeepSeek
    (sse('{"error": {"message": "The server had an error", "type": "server_error"}}'), True),
    (sse(delta(content="x"), finish("content_filter")), False),  # D15
    (sse(delta(content="x"), finish("refusal")), False),
], ids=["cut-off", "openrouter-error", "deepseek-resources", "in-band-error", "filter", "refusal"])
def test_failed_streams_say_whether_the_agent_level_retry_should_try_again(body, retryable):
    message = final(replay(body))  # the harness decides from these words (D4)
    assert message["stopReason"] == "error" and is_retryable(message) is retryable


# --- Usage (D14) ---------------------------------------------------------------------------------


def test_usage_on_the_finish_chunk_and_reasoning_not_counted_twice():
    usage = {"prompt_tokens": 50, "completion_tokens": 30,
             "completion_tokens_details": {"reasoning_tokens": 25}}
    message = final(replay(sse(delta(content="x"), finish("stop", usage=usage))))
    assert (message["usage"]["input"], message["usage"]["output"], message["usage"]["totalTokens"]) == (50, 30, 80)


def test_usage_is_kept_when_later_chunks_have_none_and_choices_null_is_fine():
    usage = {"prompt_tokens": 5, "completion_tokens": 2}
    body = sse(delta(content="x"), {"choices": None, "usage": usage}, finish("stop", usage=None),
               {"choices": []})
    assert final(replay(body))["usage"]["totalTokens"] == 7


def test_cache_hits_and_writes_are_not_counted_as_input():  # D14
    deepseek = {"prompt_tokens": 100, "completion_tokens": 7, "prompt_cache_hit_tokens": 64,
                "prompt_cache_miss_tokens": 36}
    usage = final(replay(sse(finish("stop"), {"choices": [], "usage": deepseek})))["usage"]
    assert (usage["input"], usage["cacheRead"], usage["output"], usage["totalTokens"]) == (36, 64, 7, 107)
    written = {"prompt_tokens": 100, "completion_tokens": 7,
               "prompt_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 50}}
    usage = final(replay(sse(finish("stop", usage=written))))["usage"]
    assert (usage["input"], usage["cacheRead"], usage["cacheWrite"]) == (40, 10, 50)
    assert usage["totalTokens"] == 107


def test_groq_usage_under_x_groq():
    body = sse(delta(content="x"), finish("stop", x_groq={"usage": {"prompt_tokens": 3, "completion_tokens": 4}}))
    assert final(replay(body))["usage"]["totalTokens"] == 7


# --- Errors and the end of the stream (D5) --------------------------------------------------------


def test_in_band_error_after_200_is_an_error():  # Q14 (OpenAI, OpenRouter, llama-server, vLLM)
    events, _ = call_server([{"content": [{"type": "text", "text": "partial answer"}],
                              "fault": {"in_band_error": {"message": "The server had an error", "type": "server_error"}}}])
    message = final(events)
    assert events[0]["type"] == "start" and message["stopReason"] == "error"
    assert message["errorMessage"] == "The server had an error (server_error)"
    assert message["content"][0]["text"] == "partial answer"


def test_openrouter_error_chunk_with_finish_reason_error():
    body = sse(delta(content="x"), {"error": {"code": 502, "message": "Upstream died"},
                                    "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}]})
    assert final(replay(body))["errorMessage"].startswith("Upstream died")
    assert "error" in final(replay(sse(delta(content="x"), finish("error"))))["errorMessage"]


def test_plain_string_error_chunk():
    assert final(replay(sse('{"error": "model crashed"}')))["errorMessage"] == "model crashed"


def test_stream_cut_before_any_finish_reason_is_a_retryable_error():
    events, _ = call_server([{"content": [{"type": "text", "text": "Half an answer"}],
                              "fault": {"truncate": "before_finish"}}])
    message = final(events)
    assert message["stopReason"] == "error"
    assert "stream ended before the response was complete" in message["errorMessage"]
    assert message["content"] == [{"type": "text", "text": "Half an answer"}]


def test_a_reply_cut_mid_stream_is_retried_from_scratch_by_the_harness():  # decisions 4, 5
    turns = [{"content": [{"type": "text", "text": "Half an ans"}], "fault": {"truncate": "before_finish"}},
             {"content": [{"type": "text", "text": "The whole answer."}]}]
    with FakeServer(turns) as srv:
        harness = Harness(partial(Agent, model=make_model(srv.base_url + "/v1")), base_delay=0.001)
        agent, last = harness.agent, harness.run("go")
        requests = srv.requests
    assert last["content"] == [{"type": "text", "text": "The whole answer."}]
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]
    assert len(requests) == 2 and requests[1]["body"]["messages"] == requests[0]["body"]["messages"]


def test_finish_reason_then_end_without_done_is_complete():
    events, _ = call_server([{"content": [{"type": "text", "text": "All of it"}], "fault": {"no_done": True}}])
    assert final(events)["stopReason"] == "stop" and final(events)["usage"]["totalTokens"] == 15


def test_anything_after_done_is_ignored():
    body = sse(delta(content="x"), finish("stop")) + b"data: {not json}\n\n"
    assert final(replay(body))["stopReason"] == "stop"


def test_a_malformed_chunk_is_an_error():
    events, _ = call_server([{"content": [{"type": "text", "text": "Hello"}], "fault": {"malformed": True}}])
    assert "malformed" in final(events)["errorMessage"]


def test_connection_reset_mid_stream_is_an_error_with_connection_wording():
    events, requests = call_server([{"content": [{"type": "text", "text": "a long answer " * 20}],
                                     "fault": {"reset_after_bytes": 400}}, {"content": []}])
    message = final(events)
    assert message["stopReason"] == "error" and "connection" in message["errorMessage"].lower()
    assert len(requests) == 1  # the HTTP layer never repeats a request
    assert is_retryable(message)  # the agent level does, from scratch


def test_http_error_status_is_one_error_event():
    events, requests = call_server([{"fault": {"status": 401, "body": {"error": {
        "message": "Incorrect API key provided", "type": "invalid_request_error"}}}}])
    assert [e["type"] for e in events] == ["error"] and len(requests) == 1
    assert final(events)["errorMessage"] == "401 Incorrect API key provided (invalid_request_error)"


def test_the_api_key_never_appears_in_an_error_message():
    key = "sk-proj-Secret123"
    events, _ = call_server([{"fault": {"status": 401, "body": {"error": {
        "message": f"Incorrect API key provided: {key}. Find yours at ...", "code": "invalid_api_key"}}}}],
        api_key=key)
    assert final(events)["errorMessage"] == (
        "401 Incorrect API key provided: [redacted]. Find yours at ... (invalid_api_key)")
    # A key pasted with a stray line break: requests quotes the header in its error.
    for bad_key in (key + "\r", key + "\n"):
        events, requests = call_server([{"content": []}], api_key=bad_key)
        message = final(events)["errorMessage"]
        assert "Secret123" not in message and "[redacted]" in message and requests == []
        assert is_final(message)


def test_an_unknown_host_is_tried_once(monkeypatch):
    real, lookups = socket.getaddrinfo, []

    def getaddrinfo(host, *args, **kwargs):
        if str(host).endswith(".invalid"):
            lookups.append(host)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    last = Harness(partial(Agent, model=make_model("http://llm-box.invalid:8000/v1")),
                   base_delay=0.001).run("go")
    assert "(unknown host name)" in last["errorMessage"] and not is_retryable(last)
    assert lookups == ["llm-box.invalid"]


def test_a_404_from_a_base_url_without_v1_says_where_it_asked():  # D16
    with FakeServer([{"fault": {"status": 404, "body": "404 page not found"}}]) as srv:
        message = final(list(provider_stream(make_model(srv.base_url), context(), StreamOptions())))
    assert message["errorMessage"] == (
        f"404 page not found (POST {srv.base_url}/chat/completions; is the base URL right? "
        f"OpenAI-style base URLs usually end in /v1)")


def test_odd_chunk_shapes_never_raise():
    body = sse("[1, 2]", '"text"', {"choices": ["nope"]}, {"choices": [{"delta": None}]},
               delta(tool_calls=None, content=None), finish("stop"))
    assert final(replay(body))["stopReason"] == "stop"


# --- SSE framing through the provider (checklist 1-4) -----------------------------------------------------


@pytest.mark.parametrize("fault", [{"line_ending": "\r"}, {"line_ending": "\r\n"}, {"chunk_size": 1},
                                   {"line_ending": "\r\n", "chunk_size": 1}])
def test_line_endings_and_one_byte_chunks(fault):
    turn = {"content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "héllo wörld"},
                        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "ü.txt"}}],
            "fault": fault}
    message = final(call_server([turn])[0])
    assert [b["type"] for b in message["content"]] == ["thinking", "text", "toolCall"]
    assert message["content"][1]["text"] == "héllo wörld"
    assert calls_of(message) == [("c1", "read", {"path": "ü.txt"})]


def test_openrouter_processing_comments_and_empty_keep_alives_are_ignored():  # Q12
    body = b": OPENROUTER PROCESSING\n\n" + b"data: \n\n" + sse(delta(content="ok"), finish("stop"))
    assert final(replay(body, chunk_size=3))["content"] == [{"type": "text", "text": "ok"}]


# --- Abort ------------------------------------------------------------------------------------------------


def test_abort_mid_stream_ends_as_aborted_quickly():
    turn = {"content": [{"type": "text", "text": "first words then silence"}],
            "fault": {"stall_seconds": 60, "stall_after_bytes": 400}}
    with FakeServer([turn]) as srv:
        options = StreamOptions()
        started = time.monotonic()
        events = []
        for event in provider_stream(make_model(srv.base_url + "/v1"), context(), options):
            events.append(event)
            if event["type"] == "text_delta":
                options.abort.set()
        elapsed = time.monotonic() - started
    message = final(events)
    assert message["stopReason"] == "aborted" and message["errorMessage"] == "Request was aborted"
    assert message["content"][0]["text"]  # what arrived before the abort is kept
    assert elapsed < 10  # the server would have stalled for 60 s


def test_abort_ends_a_read_from_a_silent_server_at_once():  # moved from the core's plain transport
    turn = {"content": [{"type": "text", "text": "x" * 200}],
            "fault": {"stall_seconds": 60, "stall_after_bytes": 100}}
    with FakeServer([turn]) as srv:
        abort = abort_when(srv, 1)
        started = time.monotonic()
        events = list(provider_stream(make_model(srv.base_url + "/v1"), context(), StreamOptions(abort=abort)))
        elapsed = time.monotonic() - started
    assert events[-1]["reason"] == "aborted" and events[-1]["error"]["errorMessage"] == ABORTED_TEXT
    assert elapsed < 10  # the server would have stalled for 60 s
