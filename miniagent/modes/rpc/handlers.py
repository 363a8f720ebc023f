"""The commands of RPC mode: each one a short method that calls the Harness.

rpc_mode.py frames the lines and writes the responses; this file says what each command
does. A method takes the request (a dict) and returns the response's data, or raises
with the one-line error the program gets back. The names and fields are pi's:

    prompt {message, images?, streamingBehavior?}   start a run (answered at once); while
                                  one runs, "steer" or "followUp" queues the message instead
    steer {message} / follow_up {message}            queue a message for the running agent
    abort                         stop the run; answered when it has ended
    get_state                     model, thinking level, session, counts
    get_messages / get_last_assistant_text
    set_model {provider, modelId} / set_thinking_level {level}
    compact {customInstructions?} summarize the older part of the session now
    new_session / switch_session {sessionPath} / fork {entryId}
    get_session_stats             pi's figures, plus `miniagent stats`'s per tool and model
    bash {command} / abort_bash   run a command of the user's; the model sees its output
                                  (as after the terminal's `!cmd`) from the next prompt on

`bash` and `compact` take long, so they answer later, from a thread of their own (see
`answer_later`); the others answer in an instant. Commands that change which
conversation the agent is in wait until no run is in progress.

Example: {"type": "set_model", "provider": "ollama", "modelId": "qwen2.5-coder:7b"}
    -> data {"provider": "ollama", "id": "qwen2.5-coder:7b", "contextWindow": 32768}

Left out: pi's commands for settings we do not have (see rpc_mode.py).
"""

import threading
from typing import Any, Callable, Dict, List, Optional

from ...assemble import model_for, probe_window_or_warn
from ..attach import expand_prompt
from ...session.check import content_problem
from ...harness.harness import Harness
from ...messages import Message, text_of, user_message
from ..output import say
from ..render import final_answer
from ...project.settings import THINKING_LEVELS
from ...session.stats import TOKEN_FIELDS, session_totals
from ..usershell import record, run_user_command

LATER = object()  # returned by a command whose response comes later, from its thread
BASH_FIELDS = ("output", "exitCode", "cancelled", "truncated", "fullOutputPath")
BUSY = ("The agent is already working on a prompt: send it with streamingBehavior "
        '"steer" or "followUp" to queue it, or wait for agent_end (or abort)')


class Commands:
    """The command table, and what the commands share: a compaction or a user's command
    in progress, and the user's commands waiting to join the context."""

    def __init__(self, harness: Harness, answer_later: Callable[[dict, Callable[[], Any]], Any]):
        self.harness = harness
        self.agent = harness.agent
        self.answer_later = answer_later  # (request, work) -> LATER; work's result answers
        self.table: Dict[str, Callable[[dict], Any]] = {
            "prompt": self.prompt, "steer": self.steer, "follow_up": self.follow_up,
            "get_state": self.get_state, "get_messages": self.get_messages,
            "get_last_assistant_text": self.get_last_assistant_text,
            "set_model": self.set_model, "set_thinking_level": self.set_thinking_level,
            "compact": self.compact, "new_session": self.new_session,
            "switch_session": self.switch_session, "fork": self.fork,
            "get_session_stats": self.get_session_stats,
            "bash": self.bash, "abort_bash": self.abort_bash}
        self.compacting = False
        self._compaction_abort: Optional[threading.Event] = None
        self._bash_abort: Optional[threading.Event] = None
        # A user's command that ends while a run is in progress must not change the
        # messages under the running loop; it joins them before the next prompt.
        self._waiting_bash: List[Message] = []
        self._context_lock = threading.Lock()
        self.agent.subscribe(self._track_auto_compaction)

    def handler(self, name: str) -> Callable[[dict], Any]:
        if name in self.table:
            return self.table[name]
        known = ", ".join(["abort"] + list(self.table))

        def unknown(request: dict) -> None:
            raise ValueError(f"Unknown command: {name}. Known commands: {known}")
        return unknown

    # --- Talking to the agent ------------------------------------------------------------

    def prompt(self, request: dict) -> None:
        message = self.message_of(request)
        if self.is_running():
            behaviour = request.get("streamingBehavior")
            if behaviour == "steer":
                self.agent.steer(message)
            elif behaviour == "followUp":
                self.agent.follow_up(message)
            else:
                raise ValueError(BUSY)
            return
        if self.compacting:
            raise ValueError("The session is being compacted: wait for the compact response")
        with self._context_lock:
            self._add_waiting_bash_results()
            self.harness.prompt(message)

    def steer(self, request: dict) -> None:
        self.agent.steer(self.message_of(request))

    def follow_up(self, request: dict) -> None:
        self.agent.follow_up(self.message_of(request))

    def message_of(self, request: dict) -> Message:
        """The user message of prompt, steer and follow_up: "message" expanded as the
        terminal expands it (/skill:name, @path; errors.SkillError is an error
        response), plus any "images"."""
        text = text_field(request, "message")
        if request.get("images") is not None:
            return user_message(text, images_of(request))
        skills = self.harness.project.skills if self.harness.project else ()
        prompt, warnings = expand_prompt(text, self.agent.cwd, skills)
        for warning in warnings:
            say(f"miniagent: warning: {warning}")
        return user_message(prompt) if isinstance(prompt, str) else prompt

    def is_running(self) -> bool:
        return not self.harness.wait(0)

    # --- Reading the state -----------------------------------------------------------------

    def get_state(self, request: dict) -> Dict[str, Any]:
        agent, session = self.agent, self.harness.session
        return {"model": model_info(agent.model), "thinkingLevel": agent.thinking_level,
                "isStreaming": self.is_running(), "isCompacting": self.compacting,
                "steeringMode": agent.steering_mode, "followUpMode": agent.follow_up_mode,
                "sessionFile": session.file_path, "sessionId": session.id,
                "sessionName": session.name,
                "autoCompactionEnabled": self.harness.compaction.enabled,
                "messageCount": len(agent.messages),
                "pendingMessageCount": agent.pending_count}

    def get_messages(self, request: dict) -> Dict[str, Any]:
        return {"messages": list(self.agent.messages)}

    def get_last_assistant_text(self, request: dict) -> Dict[str, Any]:
        last = final_answer(self.agent.messages)
        return {"text": text_of(last) if last else None}

    def get_session_stats(self, request: dict) -> Dict[str, Any]:
        """pi's figures, over every entry of the session (abandoned branches were paid
        for too), then what `miniagent stats` adds: calls per tool, tool errors, models."""
        session = self.harness.session
        stats, totals = session_totals(session)
        messages = [entry["message"] for entry in session.entries if entry["type"] == "message"]
        tokens = {key: totals[key] for key in TOKEN_FIELDS}
        tokens["total"] = sum(tokens.values())
        return {"sessionFile": session.file_path, "sessionId": session.id,
                "userMessages": stats.user_prompts, "assistantMessages": stats.assistant_turns,
                "toolCalls": sum(stats.tool_calls.values()),
                "toolResults": sum(1 for m in messages if m.get("role") == "toolResult"),
                "totalMessages": len(messages), "tokens": tokens,
                "cost": totals["cost"],
                "toolCallsByName": stats.tool_calls, "toolErrors": stats.tool_errors,
                "models": stats.models, "mainModel": stats.main_model}

    # --- Changing the model ------------------------------------------------------------------

    def set_model(self, request: dict) -> Dict[str, Any]:
        """The model for the next request, chosen as --provider and --model would (an
        id the registry does not know works, with a warning on stderr); a model of the
        current provider keeps its server and key, as /model does."""
        chosen, base_url = model_for(self.harness, text_field(request, "provider"),
                                     text_field(request, "modelId"))
        model, api_key = probe_window_or_warn(chosen)
        self.harness.set_model(model, api_key, base_url)
        return model_info(model)

    def set_thinking_level(self, request: dict) -> None:
        level = text_field(request, "level")
        if level not in THINKING_LEVELS:
            raise ValueError(f"Unknown thinking level {level!r}: use one of "
                             + ", ".join(THINKING_LEVELS))
        self.harness.set_thinking(level)

    # --- The session -----------------------------------------------------------------------

    def compact(self, request: dict) -> Any:
        self._require_idle("compact")
        self.compacting = True
        self._compaction_abort = threading.Event()
        return self.answer_later(request, lambda: self._compact(
            request.get("customInstructions"), self._compaction_abort))

    def _compact(self, instructions: Optional[str], abort: threading.Event) -> Dict[str, Any]:
        try:
            result = self.harness.compact(instructions, abort)
        finally:
            self.compacting = False
        return {"summary": result.summary, "firstKeptEntryId": result.first_kept_entry_id,
                "tokensBefore": result.tokens_before, "details": result.details}

    def abort_compaction(self) -> None:
        if self._compaction_abort is not None:
            self._compaction_abort.set()

    def _track_auto_compaction(self, event: Dict[str, Any]) -> None:
        """isCompacting is also true while the harness compacts on its own."""
        if event["type"] in ("auto_compaction_start", "auto_compaction_end"):
            self.compacting = event["type"] == "auto_compaction_start"

    def new_session(self, request: dict) -> Dict[str, Any]:
        self._require_idle("new_session")
        self.harness.new_session()
        return {"cancelled": False}

    def switch_session(self, request: dict) -> Dict[str, Any]:
        self._require_idle("switch_session")
        self.harness.switch_session(text_field(request, "sessionPath"))
        return {"cancelled": False}

    def fork(self, request: dict) -> Dict[str, Any]:
        self._require_idle("fork")
        return {"text": self.harness.fork(text_field(request, "entryId")), "cancelled": False}

    def _require_idle(self, command: str) -> None:
        if self.is_running() or self.compacting:
            raise ValueError(f"{command} must wait until the agent is idle: wait for "
                             f"agent_end (or send abort first)")

    # --- The user's own commands -------------------------------------------------------------

    def bash(self, request: dict) -> Any:
        command = text_field(request, "command")
        if self._bash_abort is not None:
            raise ValueError("A command is already running: wait for its response, or send "
                             "abort_bash")
        abort = self._bash_abort = threading.Event()
        return self.answer_later(request, lambda: self._bash(command, abort))

    def _bash(self, command: str, abort: threading.Event) -> Dict[str, Any]:
        try:
            message = run_user_command(command, self.agent.cwd, abort, show=ignore)
        finally:
            self._bash_abort = None
        with self._context_lock:
            self._waiting_bash.append(message)
            if not self.is_running():
                self._add_waiting_bash_results()
        return {key: message[key] for key in BASH_FIELDS if key in message}

    def abort_bash(self, request: Optional[dict]) -> None:
        if self._bash_abort is not None:
            self._bash_abort.set()

    def _add_waiting_bash_results(self) -> None:
        """Into the context and the session file (call with the context lock held)."""
        for message in self._waiting_bash:
            record(self.harness, message)
        self._waiting_bash = []


def ignore(event: Dict[str, Any]) -> None:
    """The user's command runs unseen: its response carries the output (as in pi)."""




def text_field(request: dict, name: str) -> str:
    """A string field the command needs; a missing one is an error naming it."""
    value = request.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f'{request["type"]} needs "{name}" (a non-empty string)')
    return value


def images_of(request: dict) -> List[Dict[str, Any]]:
    """A prompt's "images" as image blocks, or an error response: a bad one must not
    reach the session file, which could then not be loaded back."""
    images = request["images"]
    if not isinstance(images, list):
        raise ValueError(f'{request["type"]}: images must be a list of image objects '
                         f'({{"type": "image", "data": base64, "mimeType": "image/png"}})')
    blocks = [dict(image, type="image") if isinstance(image, dict) else image for image in images]
    problem = content_problem(blocks, "images")
    if problem:
        raise ValueError(f'{request["type"]}: {problem}')
    return blocks


def model_info(model: Any) -> Dict[str, Any]:
    return {"provider": model.provider, "id": model.id, "contextWindow": model.context_window}
