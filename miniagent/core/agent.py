"""The Agent: the loop plus the state it runs on, safe to drive from a user interface.

loop.py is a function: give it messages and a config, it runs one prompt to the end.
A program needs more than that: a conversation that lives across prompts, a way to
type while the agent works, and a way to stop it. `Agent` adds exactly that:

  * **state**: system prompt, model, tools, thinking level and the message list. The
    loop extends `agent.messages` in place, and only with finished messages.
  * **synchronous runs**: `prompt()` runs the loop in the caller's thread and returns
    when the run has ended. A program that must stay responsive meanwhile (read the
    keyboard, answer a pipe) runs it on a worker thread: the harness owns that one
    thread (harness/harness.py); the Agent starts none.
  * **queues**: `steer(text)` redirects the agent ("stop, do this instead"): the model
    sees it after the current turn's tool calls, and calls not yet started are skipped
    for it (see loop.py for when each mode looks). `follow_up(text)` waits until the
    agent would stop. Each poll takes one queued message (or all of them, with
    `steering_mode` / `follow_up_mode` set to "all").
  * **abort**: one `threading.Event` per run (the caller may hand its own to
    `prompt()`, as the harness does). `abort()`, from any thread, sets it; the
    provider stops reading, `bash` kills its process group, and the run ends with an
    assistant message whose stopReason is "aborted". That message stays in the list,
    so the user sees where the agent stopped and can carry on from there.

Example, offline: a scripted model asks for one bash call, then answers.

    >>> from miniagent import create_tools, parse_script, scripted_model
    >>> echo = {"type": "toolCall", "name": "bash", "arguments": {"command": "echo hi"}}
    >>> script = parse_script([{"content": [echo]},
    ...                        {"content": [{"type": "text", "text": "It printed hi."}]}])
    >>> agent = Agent(model=scripted_model(script), tools=create_tools(["bash"]))
    >>> unsubscribe = agent.subscribe(lambda event: print(event["type"]))
    >>> agent.prompt("Say hi")  # returns when the run has ended
    agent_start
    turn_start
    ...
    agent_end
    >>> [(message["role"], text_of(message)) for message in agent.messages]
    [('user', 'Say hi'), ('assistant', ''), ('toolResult', 'hi\\n'),
     ('assistant', 'It printed hi.')]

Left out: retries and files. Automatic retry, the session file and compaction are the
harness's job (harness/), done through this Agent's events and messages; the Agent
never touches the disk. Threads: steer(), follow_up() and abort() are safe from any
thread while prompt() runs in another.
"""

import os
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import provider
from .events import EventBus
from .loop import LoopConfig, keep_wire_messages, run_loop
from .messages import Message, assistant_message, is_failed, text_of, user_message
from .provider import StreamOptions
from .tools import Tool


class AgentBusyError(RuntimeError):
    """prompt() or continue_() was called while a run is in progress."""


class Agent:
    def __init__(self, model: Any = None, tools: Optional[List[Tool]] = None,
                 system_prompt: str = "", thinking_level: str = "off",
                 api_key: Optional[str] = None, cwd: Optional[str] = None,
                 stream_fn: Callable = provider.stream, session_id: Optional[str] = None,
                 convert_to_llm: Callable[[List[Message]], List[Message]] = keep_wire_messages,
                 should_stop: Callable[[], bool] = lambda: False,
                 will_retry: Callable[[Message], bool] = lambda last: False,
                 between_turns: Callable[[], None] = lambda: None):
        """The run's callbacks come here, once (the harness passes its own when it
        builds the Agent, harness.py); they are handed to the loop as they are:

          convert_to_llm(messages)  what the provider receives of self.messages
          should_stop()             asked before each model call (the run limits)
          will_retry(last)          agent_end's willRetry (will the harness go on?)
          between_turns()           tool results are in: room for more? (compaction)
        """
        self.model = model
        self.tools: List[Tool] = list(tools or [])
        self.system_prompt = system_prompt
        self.thinking_level = thinking_level
        self.api_key = api_key
        self.cwd = cwd or os.getcwd()
        self.stream_fn = stream_fn
        self.session_id = session_id
        self.convert_to_llm = convert_to_llm
        self.should_stop = should_stop
        self.will_retry = will_retry
        self.between_turns = between_turns
        self.messages: List[Message] = []
        self.sequential = False  # True: run tool calls one at a time
        self.steering_mode = "one-at-a-time"
        self.follow_up_mode = "one-at-a-time"
        self.before_tool_call: Optional[Callable] = None
        self.after_tool_call: Optional[Callable] = None
        self.error: Optional[str] = None  # errorMessage of the last failed run
        self._bus = EventBus()
        self._steering: List[Message] = []
        self._follow_ups: List[Message] = []
        self._abort = threading.Event()
        self._running = False  # the one record of whether a run is in progress
        self._lock = threading.Lock()  # guards starting a run and the queues

    # --- Observing -----------------------------------------------------------------------

    def subscribe(self, subscriber: Callable[[Dict[str, Any]], None]) -> Callable[[], None]:
        """Receive every event of every run; returns the unsubscribe function."""
        return self._bus.subscribe(subscriber)

    def emit(self, event: Dict[str, Any]) -> None:
        """Publish an event on the agent's bus (the harness announces retries this way)."""
        self._bus.emit(event)

    @property
    def is_running(self) -> bool:
        return self._running

    @property
    def pending_count(self) -> int:
        """How many steering and follow-up messages wait to be sent."""
        with self._lock:
            return len(self._steering) + len(self._follow_ups)

    # --- Starting runs ---------------------------------------------------------------------

    def prompt(self, text: Union[str, Message, List[Message]],
               images: Optional[List[Dict[str, Any]]] = None,
               abort: Optional[threading.Event] = None) -> None:
        """Run a new user message (text, a message, or a list of messages) to the end of
        the run, in this thread. `abort`: the run's stop Event (a fresh one if None)."""
        if isinstance(text, str):
            prompts = [user_message(text, images)]
        else:
            prompts = list(text) if isinstance(text, list) else [text]
        self._run(prompts, abort)

    def continue_(self, abort: Optional[threading.Event] = None) -> None:
        """Run again from the current messages without a new prompt.

        Used after a retryable failure (the failed message removed) or after a tool
        result. From an assistant message there is nothing to answer, unless a steering
        or follow-up message is queued: then that becomes the prompt.
        """
        if self.is_running:
            raise AgentBusyError("The agent is already working; let its run end before "
                                 "continuing.")
        if not self.messages:
            raise ValueError("There are no messages to continue from.")
        if self.messages[-1].get("role") != "assistant":
            self._run([], abort)
            return
        queued = self._take(self._steering, self.steering_mode) or \
            self._take(self._follow_ups, self.follow_up_mode)
        if not queued:
            raise ValueError("Cannot continue from an assistant message: send a new prompt.")
        self._run(queued, abort)

    def _begin(self, abort: Optional[threading.Event]) -> None:
        """Mark the agent busy (one run at a time, whichever thread asks)."""
        if self.model is None:
            raise ValueError("No model configured.")
        with self._lock:
            if self._running:
                raise AgentBusyError("The agent is already working on a prompt. Queue the "
                                     "message with steer() or follow_up(), or let the run "
                                     "end.")
            self._running = True
            self._abort = abort if abort is not None else threading.Event()
        self.error = None

    def _run(self, prompts: List[Message], abort: Optional[threading.Event]) -> None:
        self._begin(abort)
        try:
            run_loop(prompts, self.messages, self._config(), self._bus.emit)
        except Exception as exc:  # noqa: BLE001 - a bug in a hook or provider ends the run
            self.end_with_failure(exc)
        finally:
            last = self.messages[-1] if self.messages else {}
            if is_failed(last):
                self.error = last.get("errorMessage")
            self._running = False

    def end_with_failure(self, exc: Exception) -> None:
        """Record an unexpected exception as a final assistant message, so the run still
        ends the way every run ends: with a message saying why, and agent_end. (The
        harness calls it too, for an exception in its own work around the run.)"""
        reason = "aborted" if self._abort.is_set() else "error"
        model = self.model
        message = assistant_message(model.api, model.provider, model.id, stop_reason=reason,
                                    error_message=f"{type(exc).__name__}: {exc}")
        self.messages.append(message)
        self._bus.emit({"type": "agent_end", "messages": [message], "willRetry": False})

    def _config(self) -> LoopConfig:
        options = StreamOptions(abort=self._abort, api_key=self.api_key,
                                thinking=self.thinking_level, session_id=self.session_id)
        return LoopConfig(
            model=self.model, stream_fn=self.stream_fn, system_prompt=self.system_prompt,
            tools=self.tools, options=options, cwd=self.cwd, sequential=self.sequential,
            get_steering_messages=lambda: self._take(self._steering, self.steering_mode),
            get_follow_up_messages=lambda: self._take(self._follow_ups, self.follow_up_mode),
            before_tool_call=self.before_tool_call, after_tool_call=self.after_tool_call,
            convert_to_llm=self.convert_to_llm, should_stop=self.should_stop,
            will_retry=self.will_retry, between_turns=self.between_turns)

    # --- While it runs ----------------------------------------------------------------------

    def steer(self, text: Union[str, Message]) -> None:
        """Queue a message that redirects the run: the model sees it next, and tool calls
        not yet started are skipped for it."""
        with self._lock:
            self._steering.append(user_message(text) if isinstance(text, str) else text)
        self._announce_queues()

    def follow_up(self, text: Union[str, Message]) -> None:
        """Queue a message for when the agent would otherwise stop."""
        with self._lock:
            self._follow_ups.append(user_message(text) if isinstance(text, str) else text)
        self._announce_queues()

    def clear_queues(self) -> List[Message]:
        """Take every queued steering and follow-up message out, in that order (after an
        abort the terminal puts them back in the input line instead of sending them)."""
        steering, follow_ups = self.take_queues()
        return steering + follow_ups

    def take_queues(self) -> Tuple[List[Message], List[Message]]:
        """Take both queues out: (steering, follow-ups)."""
        with self._lock:
            taken = self._steering, self._follow_ups
            self._steering, self._follow_ups = [], []
        if taken[0] or taken[1]:
            self._announce_queues()
        return taken

    def _take(self, queue: List[Message], mode: str) -> List[Message]:
        with self._lock:
            count = len(queue) if mode == "all" else min(1, len(queue))
            taken = queue[:count]
            del queue[:count]
        if taken:
            self._announce_queues()
        return taken

    def _announce_queues(self) -> None:
        """queue_update: both queues whole, as texts, after every change (outside the
        lock: a subscriber may ask pending_count)."""
        with self._lock:
            steering, follow_ups = list(self._steering), list(self._follow_ups)
        self._bus.emit({"type": "queue_update", "steering": [text_of(m) for m in steering],
                        "followUp": [text_of(m) for m in follow_ups]})

    def abort(self) -> None:
        """Stop the current run as soon as possible; queued messages stay queued."""
        self._abort.set()
