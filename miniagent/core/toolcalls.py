"""Running one assistant message's tool calls: the loop's second half.

loop.py calls `run_tools(assistant, calls, config, emit)` once per turn and gets back
the tool result messages, in the order of the calls. Each call goes through three steps:

    prepare   announce it, find the tool, validate the arguments, ask before_tool_call
    execute   run it in a thread of its own (or one by one), streaming partial results
    finalise  ask after_tool_call, emit the outcome

A failure at any step becomes an error result the model reads. The rules (why: see
docs/decisions.md D6 to D8): a reply cut off by the token limit runs none of its calls; a
user message arriving first skips the calls not yet started (**steering**); the run ends
after the batch only if every result votes so; and the **file queue**: calls sharing a
file, one of them writing it, run in call order, the others at once (`Tool.paths`):

    [read a.py, write a.py, edit a.py, read b.py]
      -> read b.py runs at once; the write waits for the read of a.py, the edit for
         the write (else it could find no file yet)

Left out: what each tool does (tools.py); bash declares no files, so it is not queued.
"""

import json
import os
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set

from .messages import INVALID_ARGUMENTS, Block, Message, text_block, tool_result_message
from .tools import Tool, ToolContext, ToolError, ToolResult, validate_arguments

if TYPE_CHECKING:  # for the annotations only: loop.py imports this file
    from .loop import LoopConfig

Emit = Callable[[Dict[str, Any]], None]
SKIPPED_TEXT = "Skipped due to queued user message."
LENGTH_TEXT = ("Not executed: the response hit the output token limit, so the arguments of "
               "this tool call may be truncated. Send the tool call again with complete "
               "arguments (for a large file, write it in smaller parts).")


@dataclass
class _Call:
    """One tool call on its way through prepare -> execute -> finalise."""

    block: Block
    tool: Optional[Tool] = None
    args: Any = None
    result: Optional[ToolResult] = None  # set early when the call fails before running
    duration_ms: Optional[int] = None  # how long execute() took; None: it never ran
    reads: Set[str] = field(default_factory=set)  # its files, by real path (Tool.paths)
    writes: Set[str] = field(default_factory=set)
    earlier: List["_Call"] = field(default_factory=list)  # the calls of its batch before it
    done: threading.Event = field(default_factory=threading.Event)  # set once it has run


def run_tools(assistant: Message, blocks: List[Block], config: "LoopConfig", emit: Emit):
    """Run the tool calls of one assistant message. Returns (tool result messages in call
    order, steering messages that arrived, whether every result voted to end the run)."""
    calls = [_Call(block) for block in blocks]
    if assistant["stopReason"] == "length":  # its last call may be cut off mid-argument
        return _refuse(calls, LENGTH_TEXT, emit), [], False
    names = {block["name"] for block in blocks}
    one_by_one = config.sequential or any(t.sequential for t in config.tools if t.name in names)
    run = _run_sequentially if one_by_one else _run_in_parallel
    results, steering = run(calls, config, emit)
    terminate = bool(calls) and all(call.result.terminate for call in calls)
    return results, steering, terminate and not steering


def _run_sequentially(calls: List[_Call], config: "LoopConfig", emit: Emit):
    """One call after the other; steering is polled after each call has run."""
    results: List[Message] = []
    for index, call in enumerate(calls):
        _prepare(call, config, emit)
        if call.result is None:
            call.result = _execute(call, config, emit)
        results.append(_finalise(call, config, emit))
        steering = config.get_steering_messages()
        if steering:
            return results + _refuse(calls[index + 1:], SKIPPED_TEXT, emit), steering
    return results, []


def _run_in_parallel(calls: List[_Call], config: "LoopConfig", emit: Emit):
    """Prepare every call in order, then run the runnable ones at once in threads. Steering
    is polled after each preparation: a message typed now means nothing of this batch runs."""
    for index, call in enumerate(calls):
        _prepare(call, config, emit)
        steering = config.get_steering_messages()
        if steering:
            return _refuse(calls, SKIPPED_TEXT, emit, announced=index + 1), steering
    runnable = [call for call in calls if call.result is None]
    for index, call in enumerate(runnable):
        call.earlier = runnable[:index]
    if runnable:  # imported only now: a reply that calls no tool never loads the pool
        from concurrent.futures import ThreadPoolExecutor
        # A thread per call: a call waiting for an earlier one never holds the thread it needs.
        with ThreadPoolExecutor(max_workers=len(runnable)) as pool:
            futures = [pool.submit(_execute, call, config, emit) for call in runnable]
            for call, future in zip(runnable, futures):
                call.result = future.result()
    return [_finalise(call, config, emit) for call in calls], []


def _wait_for_turn(call: _Call) -> None:
    """The file queue: wait for each earlier call on a file this one uses, if either writes it."""
    for earlier in call.earlier:
        if earlier.writes & (call.reads | call.writes) or earlier.reads & call.writes:
            earlier.done.wait()  # no timeout: an earlier call always ends, an abort sooner


def _announce(call: _Call, emit: Emit) -> None:
    emit({"type": "tool_execution_start", "toolCallId": call.block["id"],
          "toolName": call.block["name"], "args": call.block.get("arguments", {})})


def _prepare(call: _Call, config: "LoopConfig", emit: Emit) -> None:
    """Announce the call, find the tool, validate the arguments, ask the before-hook, note
    the files. A failure at any step becomes the call's (error) result: it will not run."""
    _announce(call, emit)
    name = call.block["name"]
    call.tool = next((tool for tool in config.tools if tool.name == name), None)
    try:
        if call.tool is None:
            available = ", ".join(tool.name for tool in config.tools) or "none"
            raise ToolError(f"Tool {name} not found. Available tools: {available}.")
        if INVALID_ARGUMENTS in call.block:  # the provider could not parse them (cut off?)
            received = json.dumps(call.block[INVALID_ARGUMENTS][:200], ensure_ascii=False)
            raise ToolError(f"The arguments of this {name} call are not a valid JSON "
                            f"object, so it was not run. Received: {received}. Send the "
                            f"call again with complete JSON arguments.")
        call.args = validate_arguments(call.tool, call.block.get("arguments", {}))
        if config.before_tool_call is not None:
            verdict = config.before_tool_call({"toolCall": call.block, "args": call.args}) or {}
            if verdict.get("block"):
                raise ToolError(verdict.get("reason") or "Tool execution was blocked")
            if "arguments" in verdict:  # a hook's rewrite is checked like the model's
                call.args = validate_arguments(call.tool, verdict["arguments"])
        if call.tool.paths is not None:  # by real path: a.py, ./a.py and a link: one file
            reads, writes = call.tool.paths(call.args, config.cwd)
            call.reads = {os.path.realpath(path) for path in reads}
            call.writes = {os.path.realpath(path) for path in writes}
    except Exception as exc:  # noqa: BLE001 - any failure here is reported to the model
        call.result = _error(_explain(exc))


def _execute(call: _Call, config: "LoopConfig", emit: Emit) -> ToolResult:
    """Run one prepared call when its turn comes; an exception becomes an error result."""

    def on_update(partial: ToolResult) -> None:  # the tool streams a partial result
        emit({"type": "tool_execution_update", "toolCallId": call.block["id"],
              "toolName": call.block["name"], "args": call.block.get("arguments", {}),
              "partialResult": {"content": partial.content, "details": partial.details}})

    context = ToolContext(cwd=config.cwd, abort=config.options.abort, on_update=on_update)
    _wait_for_turn(call)
    started = time.monotonic()  # monotonic: a clock set back must not give -3 s
    try:
        return call.tool.execute(call.block["id"], call.args, context)
    except Exception as exc:  # noqa: BLE001 - a broken tool must not break the run
        return _error(_explain(exc))
    finally:
        call.duration_ms = round((time.monotonic() - started) * 1000)
        call.done.set()


def _finalise(call: _Call, config: "LoopConfig", emit: Emit) -> Message:
    """Let the after-hook rewrite the result (a call that got its arguments), then emit it."""
    if config.after_tool_call is not None and call.args is not None:
        old = call.result
        try:
            change = config.after_tool_call({"toolCall": call.block, "args": call.args,
                                             "result": old, "isError": old.is_error}) or {}
            call.result = replace(old, content=change.get("content", old.content),
                                  details=change.get("details", old.details),
                                  is_error=change.get("isError", old.is_error))
        except Exception as exc:  # noqa: BLE001 - a broken hook is reported like a tool
            call.result = _error(_explain(exc))
    return _emit_outcome(call, emit)


def _refuse(calls: List[_Call], text: str, emit: Emit, announced: int = 0) -> List[Message]:
    """Results for calls that will not run (cut off, or skipped for steering)."""
    results = []
    for index, call in enumerate(calls):
        if index >= announced:  # the first ones were announced when they were prepared
            _announce(call, emit)
        call.result = call.result or _error(text)  # one that failed keeps its error
        results.append(_emit_outcome(call, emit))
    return results


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
    """A ToolError is written for the model; another exception names its type too."""
    return str(exc) if isinstance(exc, ToolError) else f"{type(exc).__name__}: {exc}"
