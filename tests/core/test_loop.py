"""The agent loop: event sequences, parallel tools, failures, the length rule, hooks,
the terminate vote, steering and follow-ups."""

import threading

from core_helpers import call, echo_tool, make_agent, text
from miniagent.core.toolcalls import SKIPPED_TEXT
from miniagent.core.tools import ToolError, ToolResult, text_result


def kinds(events):
    """Event types, with the stream event type for message_update and the role for
    message_start/end, so sequences read like a transcript."""
    out = []
    for e in events:
        if e["type"] == "message_update":
            out.append("update:" + e["assistantMessageEvent"]["type"])
        elif e["type"] in ("message_start", "message_end"):
            out.append(f"{e['type']}:{e['message']['role']}")
        else:
            out.append(e["type"])
    return out


def tool_texts(agent):
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "toolResult"]


def test_text_only_run_emits_the_exact_event_sequence(events):
    agent = make_agent([{"content": [text("Hello there")]}])
    agent.subscribe(events.append)
    agent.prompt("hi")
    assert kinds(events) == [
        "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:assistant", "update:text_start", "update:text_delta",
        "update:text_delta", "update:text_end", "message_end:assistant", "turn_end",
        "agent_end"]
    assert [e["assistantMessageEvent"]["delta"] for e in events
            if e["type"] == "message_update" and "delta" in e["assistantMessageEvent"]] == \
        ["Hello", " there"]
    # updates carry the delta, never the whole partial message again
    assert all("partial" not in e["assistantMessageEvent"] and "message" not in e
               for e in events if e["type"] == "message_update")
    end = events[-1]
    assert [m["role"] for m in end["messages"]] == ["user", "assistant"]
    assert agent.messages[-1]["stopReason"] == "stop"


def test_two_turn_tool_run_emits_the_exact_event_sequence(events):
    agent = make_agent([{"content": [call("echo", v="ping")]},
                        {"content": [text("done")]}], [echo_tool()])
    agent.subscribe(events.append)
    agent.prompt("go")
    assert kinds(events) == [
        "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:assistant", "update:toolcall_start", "update:toolcall_delta",
        "update:toolcall_end", "message_end:assistant",
        "tool_execution_start", "tool_execution_end",
        "message_start:toolResult", "message_end:toolResult", "turn_end",
        "turn_start", "message_start:assistant", "update:text_start", "update:text_delta",
        "update:text_end", "message_end:assistant", "turn_end", "agent_end"]
    start = next(e for e in events if e["type"] == "tool_execution_start")
    assert start["toolName"] == "echo" and start["args"] == {"v": "ping"}
    end = next(e for e in events if e["type"] == "tool_execution_end")
    assert end["result"]["content"] == [text("ping")] and end["isError"] is False
    turn_end = next(e for e in events if e["type"] == "turn_end")
    assert turn_end["toolResults"][0]["toolCallId"] == start["toolCallId"]
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "toolResult", "assistant"]


def test_four_calls_run_at_once_and_results_keep_call_order():
    barrier = threading.Barrier(4, timeout=10)  # only passes if all four run concurrently

    def wait_then_echo(call_id, args, ctx):
        barrier.wait()
        return text_result(args["v"])

    calls = [call("echo", v=str(i)) for i in range(4)]
    agent = make_agent([{"content": calls}, {"content": [text("ok")]}],
                       [echo_tool(execute=wait_then_echo)])
    agent.prompt("go")
    assert tool_texts(agent) == ["0", "1", "2", "3"]
    assert agent.messages[-1]["stopReason"] == "stop"


def test_sequential_tool_runs_calls_one_at_a_time(events):
    running = []
    overlap = []

    def track(call_id, args, ctx):
        running.append(args["v"])
        overlap.append(len(running))
        running.remove(args["v"])
        return text_result(args["v"])

    agent = make_agent([{"content": [call("echo", v="a"), call("echo", v="b")]},
                        {"content": [text("ok")]}],
                       [echo_tool(execute=track, sequential=True)])
    agent.subscribe(events.append)
    agent.prompt("go")
    assert overlap == [1, 1] and tool_texts(agent) == ["a", "b"]
    # The parallel path announces every call of the batch before any runs: here the
    # second call starts only after the first has ended.
    order = [e["type"] for e in events
             if e["type"] in ("tool_execution_start", "tool_execution_end")]
    assert order == ["tool_execution_start", "tool_execution_end"] * 2


def test_failures_become_error_results_in_call_order_and_the_model_continues():
    def explode(call_id, args, ctx):
        raise ValueError("disk on fire")

    agent = make_agent([{"content": [call("echo", v="fine"), call("nope"), call("echo"),
                                     call("boom", v="x"), call("echo", v=5)]},
                        {"content": [text("recovered")]}],
                       [echo_tool(), echo_tool("boom", execute=explode)])
    agent.prompt("go")
    results = [m for m in agent.messages if m["role"] == "toolResult"]
    assert [r["isError"] for r in results] == [False, True, True, True, False]
    texts = tool_texts(agent)
    assert texts[0] == "fine"
    assert "nope" in texts[1] and "not found" in texts[1]
    assert "v: missing required property" in texts[2] and '"echo"' in texts[2]
    assert "ValueError: disk on fire" == texts[3]
    assert texts[4] == "5"  # a number where a string is expected is coerced
    assert agent.messages[-1]["content"] == [text("recovered")]


def test_length_stop_does_not_run_tool_calls():
    ran = []
    agent = make_agent([{"content": [call("echo", v="cut")], "stopReason": "length"},
                        {"content": [text("ok")]}],
                       [echo_tool(execute=lambda i, a, c: ran.append(a) or text_result("x"))])
    agent.prompt("go")
    assert ran == []
    result = next(m for m in agent.messages if m["role"] == "toolResult")
    assert result["isError"] and "output token limit" in result["content"][0]["text"]
    assert agent.messages[-1]["stopReason"] == "stop"  # the model got another turn


def test_error_stop_ends_the_run_without_running_tools(events):
    ran = []
    agent = make_agent([{"content": [call("echo", v="x")], "errorMessage": "500 boom"}],
                       [echo_tool(execute=lambda i, a, c: ran.append(a))])
    agent.subscribe(events.append)
    agent.prompt("go")
    assert ran == [] and agent.messages[-1]["stopReason"] == "error"
    assert agent.error == "500 boom"
    assert kinds(events)[-2:] == ["turn_end", "agent_end"]


def test_terminate_vote_ends_the_run_only_when_unanimous():
    def vote(call_id, args, ctx):
        return ToolResult([text(args["v"])], terminate=args["v"] == "stop")

    tool = echo_tool(execute=vote)
    unanimous = make_agent([{"content": [call("echo", v="stop"), call("echo", v="stop")]},
                            {"content": [text("never reached")]}], [tool])
    unanimous.prompt("go")
    assert unanimous.messages[-1]["role"] == "toolResult"

    split = make_agent([{"content": [call("echo", v="stop"), call("echo", v="go")]},
                        {"content": [text("continued")]}], [tool])
    split.prompt("go")
    assert split.messages[-1]["content"] == [text("continued")]


def test_hooks_block_rewrite_arguments_and_rewrite_results():
    agent = make_agent([{"content": [call("echo", v="blocked"), call("echo", v="a")]},
                        {"content": [text("ok")]}], [echo_tool()])

    def before(ctx):
        if ctx["args"]["v"] == "blocked":
            return {"block": True, "reason": "Not allowed in this directory."}
        return {"arguments": {"v": "rewritten"}}

    def after(ctx):
        if not ctx["isError"]:
            return {"content": [text(ctx["result"].content[0]["text"] + "!")]}

    agent.before_tool_call, agent.after_tool_call = before, after
    agent.prompt("go")
    assert tool_texts(agent) == ["Not allowed in this directory.", "rewritten!"]


def test_tool_error_text_reaches_the_model_unchanged():
    def refuse(call_id, args, ctx):
        raise ToolError("File not found: a.txt. Check the path with ls.")

    agent = make_agent([{"content": [call("echo", v="x")]}, {"content": [text("ok")]}],
                       [echo_tool(execute=refuse)])
    agent.prompt("go")
    assert tool_texts(agent) == ["File not found: a.txt. Check the path with ls."]


def test_steering_skips_remaining_sequential_calls_and_is_seen_next():
    agent = make_agent([{"content": [call("echo", v="first"), call("echo", v="second")]},
                        {"content": [text("steered")]}], [])

    def first_then_steer(call_id, args, ctx):
        agent.steer("stop, do something else")
        return text_result(args["v"])

    agent.tools = [echo_tool(execute=first_then_steer, sequential=True)]
    agent.prompt("go")
    assert [m["role"] for m in agent.messages] == [
        "user", "assistant", "toolResult", "toolResult", "user", "assistant"]
    assert tool_texts(agent) == ["first", SKIPPED_TEXT]
    assert agent.messages[4]["content"][0]["text"] == "stop, do something else"


def test_steering_during_parallel_preparation_skips_the_whole_batch():
    ran = []
    agent = make_agent([{"content": [call("echo", v="a"), call("echo", v="b"),
                                     call("nope")]},
                        {"content": [text("steered")]}],
                       [echo_tool(execute=lambda i, a, c: ran.append(a) or text_result("x"))])
    agent.before_tool_call = lambda ctx: agent.steer("STEER")
    agent.prompt("go")
    assert ran == []
    assert tool_texts(agent) == [SKIPPED_TEXT, SKIPPED_TEXT, SKIPPED_TEXT]
    assert agent.messages[-2]["content"][0]["text"] == "STEER"


def test_follow_up_runs_when_the_agent_would_stop(events):
    agent = make_agent([{"content": [text("first answer")]},
                        {"content": [text("second answer")]}])
    agent.subscribe(events.append)
    agent.follow_up("and then this")
    agent.prompt("go")
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert agent.messages[2]["content"][0]["text"] == "and then this"
    assert kinds(events).count("turn_start") == 2
    assert kinds(events).count("agent_end") == 1


def test_running_out_of_script_is_a_clear_error():
    agent = make_agent([])
    agent.prompt("go")
    last = agent.messages[-1]
    assert last["stopReason"] == "error" and "no turns left" in last["errorMessage"]


def test_a_call_whose_arguments_could_not_be_parsed_is_refused_with_them_quoted():
    from miniagent.core.messages import assistant_message

    replies = [[{"type": "toolCall", "id": "c1", "name": "echo", "arguments": {},
                 "invalidArguments": '{"v": "cut'}], [text("resent")]]

    def stream(model, context, options):  # a provider that could not parse the call
        content = replies.pop(0)
        message = assistant_message("test", "test", "m", content,
                                    "toolUse" if len(content[0]) > 2 else "stop")
        yield {"type": "done", "reason": message["stopReason"], "message": message}

    ran = []
    agent = make_agent([], [echo_tool(execute=lambda i, a, c: ran.append(a) or text_result("x"))],
                       stream_fn=stream)
    agent.prompt("go")
    assert ran == []
    result = tool_texts(agent)[0]
    assert "not a valid JSON object" in result and '{\\"v\\": \\"cut' in result
    assert agent.messages[-1]["content"] == [text("resent")]


def test_convert_to_llm_decides_what_the_provider_receives_before_each_call():
    from miniagent.core import provider
    sent = []

    def recording_stream(model, context, options):
        sent.append([m["role"] for m in context["messages"]])
        return provider.stream(model, context, options)

    def notes_as_user_text(messages):
        return [{"role": "user", "content": [text(m["note"])], "timestamp": 0}
                if m["role"] == "note" else m for m in messages]

    turns = [{"content": [call("echo", v="x")]}, {"content": [text("ok")]}]
    default = make_agent(turns, [echo_tool()], stream_fn=recording_stream)
    default.messages.append({"role": "note", "note": "remember x"})
    default.prompt("go")
    assert sent == [["user"], ["user", "assistant", "toolResult"]]  # unknown role left out

    sent.clear()
    converting = make_agent(turns, [echo_tool()], stream_fn=recording_stream,
                            convert_to_llm=notes_as_user_text)
    converting.messages.append({"role": "note", "note": "remember x"})
    converting.prompt("go")
    assert sent == [["user", "user"], ["user", "user", "assistant", "toolResult"]]
    assert converting.messages[0] == {"role": "note", "note": "remember x"}  # kept as it was


def test_arguments_a_hook_rewrites_are_validated_like_the_models():
    agent = make_agent([{"content": [call("echo", v="fine")]}, {"content": [text("done")]}],
                       tools=[echo_tool()])
    agent.before_tool_call = lambda event: {"arguments": {"w": "no v"}}
    agent.prompt("go")
    result = agent.messages[2]
    assert result["role"] == "toolResult" and result["isError"]
    assert "v" in result["content"][0]["text"] and "KeyError" not in result["content"][0]["text"]
