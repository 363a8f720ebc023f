"""The Agent: the loop plus the state it runs on, safe to drive from a user interface.

loop.py runs one prompt to the end; a program also needs a conversation that lives
across prompts, a way to type while the agent works, and a way to stop it:

  * **state**: system prompt, model, tools, thinking level, and the messages, which the
    loop extends in place, only with finished messages.
  * **runs**: `prompt()` runs the loop in the caller's thread and returns when the run
    has ended. The Agent starts no thread (the harness calls it from a worker).
  * **queues**: `steer(text)` is seen after the current turn's tool calls (calls not yet
    started are skipped for it); `follow_up(text)` when the agent would stop. A poll
    takes one message, or all with `steering_mode` / `follow_up_mode` set to "all".
  * **abort**: from any thread. The run ends with an assistant message whose stopReason
    is "aborted", kept in the list so the user can carry on from there.

Example, offline: a scripted model asks for one bash call, then answers.

    >>> from miniagent.core.bash import create_bash_tool
    >>> from miniagent.core.scripted import parse_script, scripted_model
    >>> echo = {"type": "toolCall", "name": "bash", "arguments": {"command": "echo hi"}}
    >>> script = parse_script([{"content": [echo]},
    ...                        {"content": [{"type": "text", "text": "It printed hi."}]}])
    >>> agent = Agent(model=scripted_model(script), tools=[create_bash_tool()])
    >>> agent.prompt("Say hi")  # returns when the run has ended
    >>> [(message["role"], text_of(message)) for message in agent.messages]
    [('user', 'Say hi'), ('assistant', ''), ('toolResult', 'hi\\n'),
     ('assistant', 'It printed hi.')]

Left out: retries, the session file and compaction (the harness's, through the events
and messages), and the queue views and `emit` front ends use (miniagent/agent.py).
"""

import os
import threading
from typing import Any, Callable, Dict, List, Optional, Union

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
        # The run's callbacks come here, once, and go to the loop as they are (loop.py).
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

    def subscribe(self, subscriber: Callable[[Dict[str, Any]], None]) -> Callable[[], None]:
        """Receive every event of every run; returns the unsubscribe function."""
        return self._bus.subscribe(subscriber)

    @property
    def is_running(self) -> bool:
        return self._running

    def prompt(self, text: Union[str, Message, List[Message]],
               images: Optional[List[Dict[str, Any]]] = None,
               abort: Optional[threading.Event] = None) -> None:
        """Run a new user message (text, a message, or a list of messages) to the end of
        the run, in this thread. `abort`: the run's stop Event (a fresh one if None)."""
        if isinstance(text, str):
            text = user_message(text, images)
        self._run(list(text) if isinstance(text, list) else [text], abort)

    def continue_(self, abort: Optional[threading.Event] = None) -> None:
        """Run again from the current messages (after a tool result, or a failure removed);
        from an assistant message, only if a queued message can become the prompt."""
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

    def _run(self, prompts: List[Message], abort: Optional[threading.Event]) -> None:
        if self.model is None:
            raise ValueError("No model configured.")
        with self._lock:  # one run at a time, whichever thread asks
            if self._running:
                raise AgentBusyError("The agent is already working on a prompt. Queue the "
                                     "message with steer() or follow_up(), or let the run "
                                     "end.")
            self._running = True
            self._abort = abort if abort is not None else threading.Event()
        self.error = None
        try:
            run_loop(prompts, self.messages, self._config(), self._bus.emit)
        except Exception as exc:  # noqa: BLE001 - a bug in a hook or provider ends the run
            self.end_with_failure(exc)
        finally:
            if self.messages and is_failed(self.messages[-1]):
                self.error = self.messages[-1].get("errorMessage")
            self._running = False

    def end_with_failure(self, exc: Exception) -> None:
        """End the run as every run ends, with a message saying why and agent_end, after
        an unexpected exception (the harness calls it too, for one in its own work)."""
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

    def steer(self, text: Union[str, Message]) -> None:
        """Queue a message that redirects the run (the model sees it next, see loop.py)."""
        with self._lock:
            self._steering.append(user_message(text) if isinstance(text, str) else text)
        self._announce_queues()

    def follow_up(self, text: Union[str, Message]) -> None:
        """Queue a message for when the agent would otherwise stop."""
        with self._lock:
            self._follow_ups.append(user_message(text) if isinstance(text, str) else text)
        self._announce_queues()

    def _take(self, queue: List[Message], mode: str) -> List[Message]:
        with self._lock:
            count = len(queue) if mode == "all" else min(1, len(queue))
            taken = queue[:count]
            del queue[:count]
        if taken:
            self._announce_queues()
        return taken

    def _announce_queues(self) -> None:
        with self._lock:  # queue_update, both queues whole, emitted outside the lock
            update = {"type": "queue_update", "steering": [text_of(m) for m in self._steering],
                      "followUp": [text_of(m) for m in self._follow_ups]}
        self._bus.emit(update)

    def abort(self) -> None:
        """Stop the current run as soon as possible; queued messages stay queued."""
        self._abort.set()
