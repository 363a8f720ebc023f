"""The agent loop: the heart of every coding agent, in two nested loops.

At its core the loop is four lines:

    while True:
        message = call_model(context)          # one streamed assistant message
        append(message)
        if not tool_calls(message): break
        append(run_tools(tool_calls(message)))  # results go back to the model

`_Run.turns` below reads like that, and `run_loop` wraps it in the outer loop;
everything else in this file is a short, named function around that core:

  * the **outer loop** handles follow-up messages: text the user queued "for when you
    are done". When the inner loop would stop, queued follow-ups start another round.
  * **steering** messages are typed while the agent works. They are polled after every
    turn, and while tool calls are handled: in parallel mode after each call is
    prepared (before any runs), in sequential mode after each call has run. When one
    arrives, the calls not yet started are skipped (`Skipped due to queued user
    message.`) and the model sees the message next. A steer that arrives while a
    parallel batch runs waits for the batch to finish.
  * an **error** or **aborted** message ends the run at once; its tool calls never run.
  * the **length rule**: a message cut off by the output token limit may carry
    truncated tool arguments, so its calls are not run; each gets an error result
    asking the model to send it again complete.
  * **tool execution**: calls of one message run in parallel threads (or one after the
    other, when a tool or the config says so), and the results are appended strictly
    in the order of the calls, whatever order they finish in.
  * **hooks**: `before_tool_call` may block a call or rewrite its arguments,
    `after_tool_call` may rewrite its result.
  * the **terminate vote**: a tool result may carry `terminate=True`; the run ends
    after the batch if every result of the batch voted so.

The loop knows no provider and no tool implementation: it receives a `stream_fn`
(see providers/__init__.py), a `convert_to_llm` function that turns the conversation
into what the provider receives (context.py: summaries become user messages) and a
list of `Tool`s. It keeps no files and never prints: everything it does is an event
(see events.py).

Left out: run limits (limits.py answers `should_stop`), retries (harness.py),
and anything about the context window's size (compaction.py, run by the harness).
"""

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

from .messages import (ABORTED_TEXT, INVALID_ARGUMENTS, Message, assistant_message,
                       is_failed, text_block, tool_calls, tool_result_message)
from .providers import StreamOptions
from .tools import Tool, ToolContext, ToolError, ToolResult, validate_arguments

SKIPPED_TEXT = "Skipped due to queued user message."
LENGTH_TEXT = ("Not executed: the response hit the output token limit, so the arguments of "
               "this tool call may be truncated. Send the tool call again with complete "
               "arguments (for a large file, write it in smaller parts).")

Emit = Callable[[Dict[str, Any]], None]


def keep_wire_messages(messages: List[Message]) -> List[Message]:
    """The default conversion: the three roles every provider speaks, nothing else."""
    return [m for m in messages if m.get("role") in ("user", "assistant", "toolResult")]


@dataclass
class LoopConfig:
    """Everything one run needs. The Agent builds it; tests build it directly."""

    model: Any
    """A models.Model; the loop only passes it on to stream_fn."""
    stream_fn: Callable[..., Iterator[Dict[str, Any]]]
    """stream(model, context, options) -> stream events; never raises."""
    system_prompt: str = ""
    tools: List[Tool] = field(default_factory=list)
    options: StreamOptions = field(default_factory=StreamOptions)
    """Holds the abort event, shared with the tools through ToolContext."""
    cwd: str = "."
    sequential: bool = False
    """Run tool calls one after the other even when every tool allows parallel runs."""
    get_steering_messages: Callable[[], List[Message]] = lambda: []
    get_follow_up_messages: Callable[[], List[Message]] = lambda: []
    before_tool_call: Optional[Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]] = None
    """Gets {toolCall, args}; may return {"block": True, "reason"} or {"arguments": new}."""
    after_tool_call: Optional[Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]] = None
    """Gets {toolCall, args, result, isError}; may return {"content", "details", "isError"}."""
    should_stop: Callable[[], bool] = lambda: False
    """Asked before each model call after the first tools ran; True ends the run there
    (the harness's run limits)."""
    convert_to_llm: Callable[[List[Message]], List[Message]] = keep_wire_messages
    """Turns the conversation into what the provider receives, just before each call
    (the harness passes context.convert_to_llm, which also translates summaries)."""


def run_loop(prompts: List[Message], messages: List[Message], config: LoopConfig,
             emit: Emit) -> List[Message]:
    """Run until the model answers without tool calls; returns the run's new messages.

    `messages` is the conversation so far; it is extended in place. Pass no prompts to
    continue from the existing messages (after a retry, or from a tool result).
    """
    run = _Run(messages, config, emit)
    emit({"type": "agent_start"})
    pending = list(prompts) + config.get_steering_messages()
    # The outer loop: when the model has answered, queued follow-ups start another round.
    while run.turns(pending):
        pending = config.get_follow_up_messages()
        if not pending:
            break
    emit({"type": "agent_end", "messages": run.new_messages})
    return run.new_messages


class _Run:
    """The state of one run: the conversation, what this run added, where events go."""

    def __init__(self, messages: List[Message], config: LoopConfig, emit: Emit):
        self.messages = messages
        self.new_messages: List[Message] = []
        self.config = config
        self.emit = emit

    def turns(self, pending: List[Message]) -> bool:
        """The inner loop, one turn per model call, until the model stops asking for
        tools. Returns False when the run must end at once (error, abort, terminate)."""
        while True:
            self.emit({"type": "turn_start"})
            for message in pending:  # prompts, steering or follow-ups, announced
                self.emit({"type": "message_start", "message": message})
                self.emit({"type": "message_end", "message": message})
                self.append(message)

            if self.config.should_stop():  # a run limit: the harness says why
                return False
            assistant = call_model(self.messages, self.config, self.emit)
            self.append(assistant)
            if is_failed(assistant):  # an error or an abort: its tool calls never run
                self.emit({"type": "turn_end", "message": assistant, "toolResults": []})
                return False
            calls = tool_calls(assistant)
            results, steering, terminate = run_tools(assistant, calls, self.config, self.emit)
            for result in results:
                self.append(result)
            self.emit({"type": "turn_end", "message": assistant, "toolResults": results})

            if terminate:
                return False
            # After an abort, queued steering stays queued: the front end offers it
            # back to the user instead of sending it into a run that is ending.
            aborted = self.config.options.abort.is_set()
            pending = steering or ([] if aborted else self.config.get_steering_messages())
            if not calls and not pending:
                return True  # the model answered and nobody steered: this round is done

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.new_messages.append(message)


# --- One model call ----------------------------------------------------------------------

def call_model(messages: List[Message], config: LoopConfig, emit: Emit) -> Message:
    """Stream one assistant message, announcing it as message_start/update/end."""
    if config.options.abort.is_set():  # no point opening a connection to throw it away
        model = config.model
        message = assistant_message(model.api, model.provider, model.id,
                                    stop_reason="aborted", error_message=ABORTED_TEXT)
        emit({"type": "message_start", "message": message})
        emit({"type": "message_end", "message": message})
        return message
    context = {"systemPrompt": config.system_prompt,
               "messages": config.convert_to_llm(messages),
               "tools": [tool.spec() for tool in config.tools]}
    started = False
    for event in config.stream_fn(config.model, context, config.options):
        kind = event["type"]
        if kind == "start":
            emit({"type": "message_start", "message": _snapshot(event["partial"])})
            started = True
        elif kind in ("done", "error"):
            final = event["message"] if kind == "done" else event["error"]
            if not started:
                emit({"type": "message_start", "message": _snapshot(final)})
            emit({"type": "message_end", "message": final})
            return final
        else:
            emit({"type": "message_update", "assistantMessageEvent": _describe(event)})
    raise RuntimeError("The provider stream ended without a final message")


def _snapshot(message: Message) -> Message:
    """A copy of the partial message whose content list later deltas will not change."""
    snapshot = dict(message)
    snapshot["content"] = [dict(block) for block in message.get("content", [])]
    return snapshot


def _describe(event: Dict[str, Any]) -> Dict[str, Any]:
    """The stream event without its partial message: sending the whole partial message
    with every delta would make the event stream quadratic in the message's size."""
    return {key: value for key, value in event.items() if key != "partial"}


# --- Tool execution ---------------------------------------------------------------------

@dataclass
class _Call:
    """One tool call on its way through prepare -> execute -> finalise."""

    block: Dict[str, Any]
    tool: Optional[Tool] = None
    args: Any = None
    result: Optional[ToolResult] = None  # set early when the call fails before running


def run_tools(assistant: Message, blocks: List[Dict[str, Any]], config: LoopConfig,
              emit: Emit):
    """Run the tool calls of one assistant message.

    Returns (tool result messages in call order, steering messages that arrived, whether
    every result voted to terminate).
    """
    if not blocks:
        return [], [], False
    if assistant["stopReason"] == "length":
        return _refuse_truncated(blocks, emit), [], False
    calls = [_Call(block) for block in blocks]
    sequential = config.sequential or any(
        tool.sequential for tool in config.tools if tool.name in {b["name"] for b in blocks})
    if sequential:
        results, steering = _run_sequentially(calls, config, emit)
    else:
        results, steering = _run_in_parallel(calls, config, emit)
    return results, steering, _all_vote_to_terminate(calls) and not steering


def _refuse_truncated(blocks: List[Dict[str, Any]], emit: Emit) -> List[Message]:
    """The length rule: a reply cut off by the output token limit may end in the middle
    of a tool call's arguments (half a file for write, half a command for bash), so none
    of its calls runs; each gets an error asking the model to send it again."""
    return [_refuse(block, LENGTH_TEXT, emit) for block in blocks]


def _all_vote_to_terminate(calls: List["_Call"]) -> bool:
    """The terminate vote: a tool may end the run (a "finish" tool), but one call of a
    batch cannot speak for the others, so the run ends only if every result says so."""
    return all(call.result is not None and call.result.terminate for call in calls)


def _run_sequentially(calls: List[_Call], config: LoopConfig, emit: Emit):
    """One call after the other; steering is polled after each call."""
    results: List[Message] = []
    for index, call in enumerate(calls):
        _announce(call, emit)
        _prepare(call, config)
        if call.result is None:
            call.result = _execute(call, config, emit)
        results.append(_finalise(call, config, emit))
        steering = config.get_steering_messages()
        if steering:
            results += [_refuse(c.block, SKIPPED_TEXT, emit) for c in calls[index + 1:]]
            return results, steering
    return results, []


def _run_in_parallel(calls: List[_Call], config: LoopConfig, emit: Emit):
    """Prepare every call in order, then run the runnable ones at once in threads.

    Steering is polled after each preparation: a message typed now means the user
    wants to redirect the agent, so nothing of this batch runs.
    """
    for index, call in enumerate(calls):
        _announce(call, emit)
        _prepare(call, config)
        steering = config.get_steering_messages()
        if steering:
            return _skip_batch(calls, index, emit), steering
    runnable = [call for call in calls if call.result is None]
    if runnable:
        with ThreadPoolExecutor(max_workers=len(runnable)) as pool:
            futures = [pool.submit(_execute, call, config, emit) for call in runnable]
            for call, future in zip(runnable, futures):
                call.result = future.result()
    return [_finalise(call, config, emit) for call in calls], []


def _skip_batch(calls: List[_Call], prepared_up_to: int, emit: Emit) -> List[Message]:
    """Results for a batch abandoned for steering: calls that already failed keep their
    error, every other call is skipped; calls never announced are announced first."""
    results = []
    for index, call in enumerate(calls):
        if index > prepared_up_to:
            _announce(call, emit)
        if call.result is None:
            call.result = _error(SKIPPED_TEXT)
        results.append(_emit_outcome(call, emit))
    return results


def _announce(call: _Call, emit: Emit) -> None:
    block = call.block
    emit({"type": "tool_execution_start", "toolCallId": block["id"],
          "toolName": block["name"], "args": block.get("arguments", {})})


def _prepare(call: _Call, config: LoopConfig) -> None:
    """Find the tool, validate the arguments, ask the before-hook. A failure at any step
    becomes the call's (error) result, and the call will not run."""
    name = call.block["name"]
    call.tool = next((tool for tool in config.tools if tool.name == name), None)
    if call.tool is None:
        available = ", ".join(tool.name for tool in config.tools) or "none"
        call.result = _error(f"Tool {name} not found. Available tools: {available}.")
        return
    if INVALID_ARGUMENTS in call.block:  # the provider could not parse them (cut off?)
        received = json.dumps(call.block[INVALID_ARGUMENTS][:200], ensure_ascii=False)
        call.result = _error(f"The arguments of this {name} call are not a valid JSON "
                             f"object, so it was not run. Received: {received}. Send the "
                             f"call again with complete JSON arguments.")
        return
    try:
        call.args = validate_arguments(call.tool, call.block.get("arguments", {}))
        if config.before_tool_call is not None:
            verdict = config.before_tool_call({"toolCall": call.block, "args": call.args}) or {}
            if verdict.get("block"):
                call.result = _error(verdict.get("reason") or "Tool execution was blocked")
            elif "arguments" in verdict:
                call.args = verdict["arguments"]
    except Exception as exc:  # noqa: BLE001 - any failure here is reported to the model
        call.result = _error(_explain(exc))


def _execute(call: _Call, config: LoopConfig, emit: Emit) -> ToolResult:
    """Run one prepared call; an exception becomes an error result for the model."""
    block = call.block

    def on_update(partial: ToolResult) -> None:
        emit({"type": "tool_execution_update", "toolCallId": block["id"],
              "toolName": block["name"], "args": block.get("arguments", {}),
              "partialResult": {"content": partial.content, "details": partial.details}})

    context = ToolContext(cwd=config.cwd, abort=config.options.abort, on_update=on_update)
    try:
        return call.tool.execute(block["id"], call.args, context)
    except Exception as exc:  # noqa: BLE001 - a broken tool must not break the run
        return _error(_explain(exc))


def _finalise(call: _Call, config: LoopConfig, emit: Emit) -> Message:
    """Let the after-hook rewrite the result, then announce it."""
    if config.after_tool_call is not None and call.tool is not None and call.args is not None:
        try:
            change = config.after_tool_call({
                "toolCall": call.block, "args": call.args, "result": call.result,
                "isError": call.result.is_error}) or {}
            result = call.result
            call.result = ToolResult(content=change.get("content", result.content),
                                     details=change.get("details", result.details),
                                     is_error=change.get("isError", result.is_error),
                                     terminate=result.terminate)
        except Exception as exc:  # noqa: BLE001
            call.result = _error(_explain(exc))
    return _emit_outcome(call, emit)


def _refuse(block: Dict[str, Any], text: str, emit: Emit) -> Message:
    """A call that will not run (skipped, length-truncated): announce it and its error."""
    call = _Call(block, result=_error(text))
    _announce(call, emit)
    return _emit_outcome(call, emit)


def _emit_outcome(call: _Call, emit: Emit) -> Message:
    block, result = call.block, call.result
    emit({"type": "tool_execution_end", "toolCallId": block["id"], "toolName": block["name"],
          "result": {"content": result.content, "details": result.details},
          "isError": result.is_error})
    message = tool_result_message(block["id"], block["name"], result.content,
                                  is_error=result.is_error, details=result.details)
    emit({"type": "message_start", "message": message})
    emit({"type": "message_end", "message": message})
    return message


def _error(text: str) -> ToolResult:
    return ToolResult(content=[text_block(text)], details={}, is_error=True)


def _explain(exc: Exception) -> str:
    """ToolError messages are written for the model; anything else was a bug, so the
    exception's type is named too (a bare KeyError would just say 'path')."""
    if isinstance(exc, ToolError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
