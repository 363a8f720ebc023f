"""The commands of RPC mode: each one a short method that calls the Harness.

rpc_mode.py frames the lines and writes the responses; this file says what each command
does. A method takes the request (a dict) and returns the response's data, or raises
with the one-line error the program gets back. The names and fields are pi 1.6's; this
file holds the talking, the state and the long commands, and takes the others from
commands_model.py (the model, thinking, queue modes, automatic compaction and retry)
and commands_session.py (moving between sessions, reading one):

    prompt {message, images?, streamingBehavior?}   -> {disposition: "started"}; while a
                                  run goes on, "steer" or "followUp" queues it: "queued"
    steer {message} / follow_up {message}            -> {disposition: "queued"}
    clear_queue                   -> {steering: [text], followUp: [text]}, taken out
    abort                         stop the run; answered when it has ended (rpc_mode.py)
    get_state                     model object, thinking level, session, counts, sandbox
    get_messages / get_last_assistant_text / get_commands
    compact {customInstructions?} summarize the older part of the session now
    bash {command} / abort_bash   run a command of the user's; the model sees its output
                                  (as after the terminal's `!cmd`) from the next prompt on;
                                  its output streams as bash_execution_update {id, delta}

`bash` and `compact` take long, so they answer later, from a thread of their own (see
`answer_later`); the others answer in an instant. Commands that change which
conversation the agent is in wait until no run is in progress.

Example: {"type": "prompt", "message": "hi"} -> data {"disposition": "started"}

A prompt naming an extension's command ("/undo", "/ps 2") runs that command instead,
from a thread of its own even during a run (so it may ask through extension_ui_request),
and answers {"disposition": "handled"}; what the command returns is told as a notify.

Left out: pi's prompt templates and input handlers.
"""

import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..attach import expand_prompt
from ...harness.harness import Harness, compaction_result
from ...core.messages import Message, text_of, user_message
from ..output import say
from ..render import final_answer
from ..usershell import record, run_user_command
from ...project.extensions import Command
from ...project.settings import is_bundled_name
from ...sandbox.confine import sandbox_of
from .commands_model import ModelCommands
from .commands_session import SessionCommands
from .fields import images_of, model_object, text_field

LATER = object()  # returned by a command whose response comes later, from its thread
BASH_FIELDS = ("output", "exitCode", "cancelled", "truncated", "fullOutputPath")
BUSY = ("The agent is already working on a prompt: send it with streamingBehavior "
        '"steer" or "followUp" to queue it, or wait for agent_settled (or abort)')


class Commands:
    """The command table, and what the commands share: a compaction or a user's command
    in progress, and the user's commands waiting to join the context."""

    def __init__(self, harness: Harness, answer_later: Callable[[dict, Callable[[], Any]], Any]):
        self.harness = harness
        self.agent = harness.agent
        self.answer_later = answer_later  # (request, work) -> LATER; work's result answers
        self.table: Dict[str, Callable[[dict], Any]] = {
            "prompt": self.prompt, "steer": self.steer, "follow_up": self.follow_up,
            "clear_queue": self.clear_queue, "get_state": self.get_state,
            "get_messages": self.get_messages,
            "get_last_assistant_text": self.get_last_assistant_text,
            "get_commands": self.get_commands, "compact": self.compact,
            "bash": self.bash, "abort_bash": self.abort_bash,
            **ModelCommands(harness).table(),
            **SessionCommands(harness, self._require_idle).table()}
        self.compacting = False
        self._compaction_abort: Optional[threading.Event] = None
        self._bash_abort: Optional[threading.Event] = None
        # A user's command that ends while a run is in progress must not change the
        # messages under the running loop; it joins them before the next prompt.
        self._waiting_bash: List[Message] = []
        self._context_lock = threading.Lock()
        self.agent.subscribe(self._track_compaction)

    def handler(self, name: str) -> Callable[[dict], Any]:
        if name in self.table:
            return self.table[name]
        known = ", ".join(["abort"] + list(self.table))

        def unknown(request: dict) -> None:
            raise ValueError(f"Unknown command: {name}. Known commands: {known}")
        return unknown

    # --- Talking to the agent ------------------------------------------------------------

    def prompt(self, request: dict) -> Any:
        command = self.extension_command(request)
        if command is not None:
            return self.answer_later(request, lambda: self.run_extension_command(*command))
        message = self.message_of(request)
        if self.is_running():
            behaviour = request.get("streamingBehavior")
            if behaviour == "steer":
                self.agent.steer(message)
            elif behaviour == "followUp":
                self.agent.follow_up(message)
            else:
                raise ValueError(BUSY)
            return {"disposition": "queued"}
        if self.compacting:
            raise ValueError("The session is being compacted: wait for the compact response")
        with self._context_lock:
            self._add_waiting_bash_results()
            self.harness.prompt(message)
        return {"disposition": "started"}

    def extension_command(self, request: dict) -> Optional[Tuple[Command, str]]:
        """(the extension's command, its argument) when the prompt is "/name ..." and
        an extension registered /name; else None."""
        if self.harness.project is None or request.get("images") is not None:
            return None
        name, _, argument = text_field(request, "message").strip().partition(" ")
        command = self.harness.project.extensions.commands.get(name[1:])
        return (command, argument.strip()) if name.startswith("/") and command else None

    def run_extension_command(self, command: Command, argument: str) -> Dict[str, str]:
        said = command.run(argument)
        if isinstance(said, str) and said:
            self.harness.project.extensions.context.ui.notify(said)
        return {"disposition": "handled"}

    def steer(self, request: dict) -> Dict[str, str]:
        self.agent.steer(self.message_of(request))
        return {"disposition": "queued"}

    def follow_up(self, request: dict) -> Dict[str, str]:
        self.agent.follow_up(self.message_of(request))
        return {"disposition": "queued"}

    def clear_queue(self, request: dict) -> Dict[str, List[str]]:
        steering, follow_ups = self.agent.take_queues()
        return {"steering": [text_of(m) for m in steering],
                "followUp": [text_of(m) for m in follow_ups]}

    def message_of(self, request: dict) -> Message:
        """The user message of prompt, steer and follow_up: "message" expanded as the
        terminal expands it (/skill:name, @path; errors.SkillError is an error
        response), plus any "images"."""
        text = text_field(request, "message")
        if request.get("images") is not None:
            return user_message(text, images_of(request))
        skills = self.harness.project.skills if self.harness.project else ()
        prompt, warnings = expand_prompt(text, self.agent.cwd, skills,
                                         "image" in self.agent.model.input)
        for warning in warnings:
            say(f"miniagent: warning: {warning}")
        return user_message(prompt) if isinstance(prompt, str) else prompt

    def is_running(self) -> bool:
        return not self.harness.wait(0)

    # --- Reading the state -----------------------------------------------------------------

    def get_state(self, request: dict) -> Dict[str, Any]:
        agent, session = self.agent, self.harness.session
        state = {"model": model_object(agent.model), "thinkingLevel": agent.thinking_level,
                 "isStreaming": self.is_running(), "isCompacting": self.compacting,
                 "steeringMode": agent.steering_mode, "followUpMode": agent.follow_up_mode,
                 "sessionFile": session.file_path, "sessionId": session.id,
                 "autoCompactionEnabled": self.harness.compaction.enabled,
                 "messageCount": len(agent.messages),
                 "pendingMessageCount": agent.pending_count}
        if session.name:  # omitted when unset, as in pi
            state["sessionName"] = session.name
        state["sandbox"] = sandbox_of(self.harness).state()  # ours, as mcpServers
        if self.harness.mcp is not None:  # ours: pi's state has no MCP part
            state["mcpServers"] = [mcp_server_state(status)
                                   for status in self.harness.mcp.statuses()]
        return state

    def get_messages(self, request: dict) -> Dict[str, Any]:
        return {"messages": list(self.agent.messages)}

    def get_last_assistant_text(self, request: dict) -> Dict[str, Any]:
        last = final_answer(self.agent.messages)
        return {"text": text_of(last) if last else None}

    def get_commands(self, request: dict) -> Dict[str, Any]:
        """What a prompt may start with "/": the extensions' commands, the skills."""
        project = self.harness.project
        if project is None:
            return {"commands": []}
        cwd = self.agent.cwd
        commands = [{"name": command.name, "description": command.description,
                     "source": "extension", "sourceInfo": source_info(command.source, cwd)}
                    for command in project.extensions.commands.values()]
        commands += [{"name": f"skill:{skill.name}", "description": skill.description,
                      "source": "skill", "sourceInfo": source_info(str(skill.path), cwd)}
                     for skill in project.skills]
        if self.harness.mcp is not None:  # as pi lists its built-in MCP extension's /mcp
            servers = ", ".join(f"{status.name} ({status.state})"
                                for status in self.harness.mcp.statuses())
            commands.append({"name": "mcp", "description": f"MCP servers: {servers}",
                             "source": "extension", "sourceInfo": builtin_source("mcp")})
        return {"commands": commands}

    # --- Compaction --------------------------------------------------------------------------

    def compact(self, request: dict) -> Any:
        self._require_idle("compact")
        self.compacting = True
        self._compaction_abort = threading.Event()
        return self.answer_later(request, lambda: self._compact(
            request.get("customInstructions"), self._compaction_abort))

    def _compact(self, instructions: Optional[str], abort: threading.Event) -> Dict[str, Any]:
        try:
            result = self.harness.compact_announced("manual", instructions, abort)
        finally:
            self.compacting = False
        return compaction_result(result, self.agent.messages)

    def abort_compaction(self) -> None:
        if self._compaction_abort is not None:
            self._compaction_abort.set()

    def _track_compaction(self, event: Dict[str, Any]) -> None:
        """isCompacting is also true while the harness compacts on its own."""
        if event["type"] in ("compaction_start", "compaction_end"):
            self.compacting = event["type"] == "compaction_start"

    def _require_idle(self, command: str) -> None:
        if self.is_running() or self.compacting:
            raise ValueError(f"{command} must wait until the agent is idle: wait for "
                             f"agent_settled (or send abort first)")

    # --- The user's own commands -------------------------------------------------------------

    def bash(self, request: dict) -> Any:
        command = text_field(request, "command")
        if self._bash_abort is not None:
            raise ValueError("A command is already running: wait for its response, or send "
                             "abort_bash")
        abort = self._bash_abort = threading.Event()
        excluded = request.get("excludeFromContext") is True
        return self.answer_later(request, lambda: self._bash(request, command, abort, excluded))

    def _bash(self, request: dict, command: str, abort: threading.Event,
              excluded: bool) -> Dict[str, Any]:
        def stream(text: str) -> None:  # pi's bash_execution_update, with the command's id
            update = {"type": "bash_execution_update", "delta": text}
            self.agent.emit({"id": request["id"], **update} if "id" in request else update)
        try:
            message = run_user_command(command, self.agent.cwd, abort, show=ignore,
                                       excluded=excluded, on_text=stream,
                                       sandbox=sandbox_of(self.harness))
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


def source_info(path: str, cwd: str) -> Dict[str, str]:
    """Where a command comes from, in pi's words: built in (a bundled extension, as pi
    lists its own), the project's or the user's."""
    if is_bundled_name(path):
        return builtin_source(path)
    inside = path.startswith(cwd.rstrip("/") + "/")
    return {"path": path, "source": "local", "scope": "project" if inside else "user",
            "origin": "top-level"}


def builtin_source(name: str) -> Dict[str, str]:
    return {"path": f"builtin:{name}", "source": "builtin", "scope": "temporary",
            "origin": "top-level"}


def mcp_server_state(status: Any) -> Dict[str, Any]:
    """One MCP server in get_state: {name, state, tools, error?}."""
    state = {"name": status.name, "state": status.state, "tools": status.tools}
    if status.error:
        state["error"] = status.error
    return state
