"""Running one assistant message's tool calls: the loop's second half.

loop.py calls `run_tools(assistant, calls, config, emit)` once per turn and gets back
the tool result messages, in the order the model made the calls. Each call goes
through three steps:

    prepare   find the tool, repair and validate the arguments, ask before_tool_call
              (which may block the call or rewrite its arguments), note its files
    execute   run it (in a thread of its own, unless a tool or the config wants the
              calls one after the other), streaming partial results as updates
    finalise  ask after_tool_call (which may rewrite the result), emit the outcome

Rules this file applies (docs/decisions.md D6 to D8):

  * results are appended strictly in the order of the calls, including calls that
    failed before running (unknown tool, invalid arguments, blocked by a hook);
  * the **file queue** (pi 1.6's file mutation queue, reads included): calls that share
    a file, one of them writing it, run one after the other in the order of the calls,
    never in the order their threads happen to get there; calls on other files, and two
    reads of one file, still run at once.
    A tool names its files in its `paths` declaration (tools/__init__.py):

        [read a.py, write a.py, edit a.py, read b.py]
          -> read b.py runs at once; the write waits for the read of a.py, the edit
             for the write (else it could find no file yet);
  * the **length rule**: a reply cut off by the output token limit may carry truncated
    arguments, so none of its calls runs; each gets an error asking to send it again;
  * **steering**: polled after each call is prepared (parallel mode, before any runs)
    or after each call has run (sequential mode); when a message arrives, the calls not
    yet started are skipped with `Skipped due to queued user message.`;
  * the **terminate vote**: the run ends after the batch if every result says so.

A failure anywhere (a bad argument, an exception inside a tool) becomes an error result
the model reads; nothing here raises into the loop.

Left out: what each tool does (tools/), the turn structure around this (loop.py), and
queueing calls whose files are not known: a bash command or an MCP tool declares none,
so it runs beside the others, as in pi.
"""

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, Set

from .messages import INVALID_ARGUMENTS, Message, text_block, tool_result_message
from .provider import StreamOptions
from .tools import Tool, ToolContext, ToolError, ToolResult, validate_arguments

SKIPPED_TEXT = "Skipped due to queued user message."
LENGTH_TEXT = ("Not executed: the response hit the output token limit, so the arguments of "
               "this tool call may be truncated. Send the tool call again with complete "
               "arguments (for a large file, write it in smaller parts).")

Emit = Callable[[Dict[str, Any]], None]
Hook = Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]


class Config(Protocol):
    """What this file needs of the loop's config: loop.LoopConfig has these fields and
    more. Named here, not imported, because loop.py imports this file."""

    tools: List[Tool]
    options: StreamOptions  # its abort Event reaches every tool through ToolContext
    cwd: str
    sequential: bool
    get_steering_messages: Callable[[], List[Message]]
    before_tool_call: Optional[Hook]
    after_tool_call: Optional[Hook]


@dataclass
class _Call:
    """One tool call on its way through prepare -> execute -> finalise."""

    block: Dict[str, Any]
    tool: Optional[Tool] = None
    args: Any = None
    result: Optional[ToolResult] = None  # set early when the call fails before running
    duration_ms: Optional[int] = None  # how long execute() took; None: it never ran
    reads: Set[str] = field(default_factory=set)  # its files, by real path (Tool.paths)
    writes: Set[str] = field(default_factory=set)
    waits_for: List[threading.Event] = field(default_factory=list)  # earlier calls' `done`
    done: threading.Event = field(default_factory=threading.Event)  # set once it has run


def run_tools(assistant: Message, blocks: List[Dict[str, Any]], config: Config,
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


def _run_sequentially(calls: List[_Call], config: Config, emit: Emit):
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


def _run_in_parallel(calls: List[_Call], config: Config, emit: Emit):
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
    _queue_by_file(runnable)
    if runnable:
        # A thread per call: a call waiting for its turn holds a thread, but never the
        # one the call it waits for needs, and it waits only for earlier calls (no cycle).
        with ThreadPoolExecutor(max_workers=len(runnable)) as pool:
            futures = [pool.submit(_execute_in_turn, call, config, emit) for call in runnable]
            for call, future in zip(runnable, futures):
                call.result = future.result()
    return [_finalise(call, config, emit) for call in calls], []


def _queue_by_file(calls: List[_Call]) -> None:
    """The file queue: each call waits for every earlier call it shares a file with,
    when either of the two writes it; two reads of one file need not wait."""
    for index, call in enumerate(calls):
        call.waits_for = [earlier.done for earlier in calls[:index]
                          if earlier.writes & (call.reads | call.writes)
                          or earlier.reads & call.writes]


def _execute_in_turn(call: _Call, config: Config, emit: Emit) -> ToolResult:
    """Run a call once the earlier calls on its files have run; then let the later go."""
    _wait_for_turn(call)
    try:
        return _execute(call, config, emit)
    finally:
        call.done.set()


def _wait_for_turn(call: _Call) -> None:
    # No timeout: an earlier call always ends, and an abort ends it sooner.
    for earlier in call.waits_for:
        earlier.wait()


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


def _prepare(call: _Call, config: Config) -> None:
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
            elif "arguments" in verdict:  # a hook's rewrite is checked like the model's
                call.args = validate_arguments(call.tool, verdict["arguments"])
        if call.result is None and call.tool.paths is not None:
            _declare_files(call, config.cwd)
    except Exception as exc:  # noqa: BLE001 - any failure here is reported to the model
        call.result = _error(_explain(exc))


def _declare_files(call: _Call, cwd: str) -> None:
    """The files the call reads and writes, by their real paths: `a.py`, `./a.py` and a
    symlink to it are one file for the queue."""
    reads, writes = call.tool.paths(call.args, cwd)
    call.reads = {os.path.realpath(path) for path in reads}
    call.writes = {os.path.realpath(path) for path in writes}


def _execute(call: _Call, config: Config, emit: Emit) -> ToolResult:
    """Run one prepared call; an exception becomes an error result for the model."""
    block = call.block

    def on_update(partial: ToolResult) -> None:
        emit({"type": "tool_execution_update", "toolCallId": block["id"],
              "toolName": block["name"], "args": block.get("arguments", {}),
              "partialResult": {"content": partial.content, "details": partial.details}})

    context = ToolContext(cwd=config.cwd, abort=config.options.abort, on_update=on_update)
    started = time.monotonic()  # monotonic: a clock set back must not give -3 s
    try:
        return call.tool.execute(block["id"], call.args, context)
    except Exception as exc:  # noqa: BLE001 - a broken tool must not break the run
        return _error(_explain(exc))
    finally:
        call.duration_ms = round((time.monotonic() - started) * 1000)


def _finalise(call: _Call, config: Config, emit: Emit) -> Message:
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
    end = {"type": "tool_execution_end", "toolCallId": block["id"], "toolName": block["name"],
           "result": {"content": result.content, "details": result.details},
           "isError": result.is_error}
    if call.duration_ms is not None:  # absent for a call that never ran, as in pi
        end["durationMs"] = call.duration_ms
    emit(end)
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
