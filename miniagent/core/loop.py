"""The agent loop: the heart of every coding agent, in two nested loops.

At its core the loop is four lines:

    while True:
        message = call_model(context)          # one streamed assistant message
        append(message)
        if not tool_calls(message): break
        append(run_tools(tool_calls(message)))  # results go back to the model

`_Run.turns` below reads like that, and `run_loop` wraps it in the outer loop, which
takes up **follow-up** messages (queued "for when you are done") once the model has
answered. Around that core: **steering** messages, typed while the agent works, are
polled after every turn and reach the model in its next request; an error or aborted
message ends the run at once; `should_stop()` (the run limits) is asked before each
model call; and `between_turns()` lets the harness make room (compaction) before the
next call. Running the calls of one message is toolcalls.py.

The loop knows no provider and no tool implementation: it gets a `stream_fn`, a
`convert_to_llm` function (what the provider receives of the conversation) and a list
of `Tool`s. It keeps no files and never prints: everything it does is an event
(events.py). Left out: what the run limits are, retries and compaction (harness/).
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

from .messages import ABORTED_TEXT, Message, assistant_message, is_failed, tool_calls
from .provider import StreamOptions
from .tools import Tool
from .toolcalls import Emit, run_tools


def keep_wire_messages(messages: List[Message]) -> List[Message]:
    """The default conversion: the three roles every provider speaks, nothing else."""
    return [m for m in messages if m.get("role") in ("user", "assistant", "toolResult")]


@dataclass
class LoopConfig:
    """Everything one run needs. The Agent builds it; tests build it directly."""

    model: Any  # a provider.Model; the loop only passes it on to stream_fn
    stream_fn: Callable[..., Iterator[Dict[str, Any]]]
    """stream(model, context, options) -> stream events; never raises."""
    system_prompt: str = ""
    tools: List[Tool] = field(default_factory=list)
    options: StreamOptions = field(default_factory=StreamOptions)  # its abort reaches the tools
    cwd: str = "."
    sequential: bool = False  # run tool calls one after the other, even when tools allow more
    get_steering_messages: Callable[[], List[Message]] = lambda: []
    get_follow_up_messages: Callable[[], List[Message]] = lambda: []
    before_tool_call: Optional[Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]] = None
    """Gets {toolCall, args}; may return {"block": True, "reason"} or {"arguments": new}."""
    after_tool_call: Optional[Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]] = None
    """Gets {toolCall, args, result, isError}; may return {"content", "details", "isError"}."""
    should_stop: Callable[[], bool] = lambda: False
    """Asked before each model call; True ends the run there (the harness's run limits)."""
    between_turns: Callable[[], None] = lambda: None
    """Called when tool results are in and another call follows; may rewrite the messages."""
    convert_to_llm: Callable[[List[Message]], List[Message]] = keep_wire_messages
    """Turns the conversation into what the provider receives, just before each call."""
    will_retry: Callable[[Message], bool] = lambda last: False
    """Asked with the run's last message for agent_end's willRetry (a retry will follow)."""


def run_loop(prompts: List[Message], messages: List[Message], config: LoopConfig,
             emit: Emit) -> List[Message]:
    """Run until the model answers without tool calls; returns the run's new messages.
    `messages` is the conversation so far, extended in place; with no prompts the run
    continues from it (after a retry, or from a tool result)."""
    run = _Run(messages, config, emit)
    emit({"type": "agent_start"})
    pending = list(prompts) + config.get_steering_messages()
    # The outer loop: when the model has answered, queued follow-ups start another round.
    while run.turns(pending):
        pending = config.get_follow_up_messages()
        if not pending:
            break
    emit({"type": "agent_end", "messages": run.new_messages,
          "willRetry": bool(messages) and config.will_retry(messages[-1])})
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
            # After an abort, steering stays queued: the front end offers it back to the user.
            aborted = self.config.options.abort.is_set()
            if calls and not aborted:
                self.config.between_turns()
            pending = steering or ([] if aborted else self.config.get_steering_messages())
            if not calls and not pending:
                return True  # the model answered and nobody steered: this round is done

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.new_messages.append(message)


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
            final["thinkingLevel"] = config.options.thinking  # what was asked, as pi records
            if not started:
                emit({"type": "message_start", "message": _snapshot(final)})
            emit({"type": "message_end", "message": final})
            return final
        else:
            emit({"type": "message_update", "assistantMessageEvent": _describe(event),
                  "usage": event["partial"].get("usage")})
    raise RuntimeError("The provider stream ended without a final message")


def _snapshot(message: Message) -> Message:
    """A copy of the partial message whose content list later deltas will not change."""
    return {**message, "content": [dict(block) for block in message.get("content", [])]}


def _describe(event: Dict[str, Any]) -> Dict[str, Any]:
    """The stream event without its partial message (sent with every delta, it would make
    the events quadratic in size); a tool call's start names its id and tool, as pi's does."""
    described = {key: value for key, value in event.items() if key != "partial"}
    if event["type"] == "toolcall_start":
        block = event["partial"]["content"][event["contentIndex"]]
        described.update(id=block.get("id"), toolName=block.get("name"))
    return described
