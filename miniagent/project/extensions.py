"""Extensions: your own Python, loaded at start-up, hooked into the agent.

The core stays small; what one user needs and another does not (a gate on dangerous
commands, a project-specific tool, a notification when a run ends) goes in an
extension. An extension is a Python file defining `setup(api)`:

    def setup(api):
        def no_force_push(event):                     # event: {"toolCall", "args"}
            if "push --force" in event["args"].get("command", ""):
                return {"block": True, "reason": "Force-pushing is not allowed here."}
        api.before_tool_call(no_force_push)

Where they come from, in this order (the order hooks run in):

    ~/.miniagent/extensions/*.py            by file name
    <project>/.miniagent/extensions/*.py    by file name, only when the project is trusted
                                            (otherwise not even imported: importing runs code)
    -e FILE                                 in the order given

What `api` offers (each extension gets its own, with `api.cwd` the working directory):

    api.on(event_type, handler)          handler(event) for each Agent event of that type
    api.register_tool(tool)              a Tool, as tools/__init__.py defines it
    api.before_tool_call(fn)             fn(event) -> None | {"block": True, "reason"}
                                         | {"arguments": {...}} (replaces the arguments);
                                         event: {"toolCall", "args"}, and "paths": {"read",
                                         "written"} (real paths) when the tool declares them
    api.after_tool_call(fn)              fn(event) -> None | {"content", "isError"}
    api.register_command(name, fn, description)   a /name command for the REPL: fn(args)
    api.register_shortcut(key, fn, description)   a key at the REPL's prompt, named as the
                                         editor names keys ("shift+tab"): fn(); a key the
                                         editor uses itself never reaches it
    api.get_flag(name)                   a command-line flag kept for an extension (--plan:
                                         get_flag("plan")); None for one not given
    api.send_user_message(text)          a prompt the harness runs as soon as the current
                                         one is over (from a handler while the agent works)
    api.add_message(text, custom_type)   a `custom` message for the conversation: sent
                                         with the next prompt, or during a run before
                                         its next model call (pi's steer)
    api.append_entry(custom_type, data)  a `custom` entry in the session: kept, never sent
                                         to the model; read back with ctx.session
    api.get_active_tools()               the names of the tools the model is offered
    api.set_active_tools(names)          offer these (built-in or registered; unknown
                                         names are ignored, as pi ignores them)
    api.extend_tool(name, properties, wrap)   more arguments for a built-in tool: its
                                         schema gains `properties`; wrap(execute) returns
                                         the execute that handles them
    api.ctx                              the UI, the session, processes started as bash
                                         starts them (extension_context.py)

Besides the Agent's events, `api.on` receives the harness's and the session's, in pi's
names:

    before_agent_start     {prompt}: before each prompt is sent; a handler may return
                           {"sections": {name: text}}, system-prompt sections for this
                           prompt (system_prompt.py: each in a tag of its name, after the
                           built-in ones), and may change the active tools

    session_start          {reason: "startup" | "new" | "resume" | "fork", previousSessionFile}
    session_before_switch  {reason: "new" | "resume", targetSessionFile}   may cancel
    session_before_fork    {entryId, position: "before" (/fork) | "at" (clone)}   may cancel
    session_before_tree    {preparation: {targetId, oldLeafId, userWantsSummary}}   may cancel
    session_tree           {newLeafId, oldLeafId}: the /tree move made
    session_shutdown       {reason: "quit" | "new" | "resume" | "fork"}: "quit" once, on
                           every way out (the end, Ctrl-D, /quit, SIGTERM, SIGHUP)

A `session_before_*` handler returning {"cancel": True} stops the move; one that raises
stops it too (a gate fails closed). A switch, fork or clone is then told as pi tells
it: session_shutdown for the session left, session_start for the one entered.

The Agent takes one before-hook and one after-hook, so `Extensions` composes them:
before-hooks run in load order, each seeing the arguments the previous one left; the
first block wins. A before-hook that raises blocks its call: a broken gate fails closed,
never open. An after-hook that raises is reported and ignored (the tool already ran).

A broken extension (an import error, a raising `setup`) is reported in one line naming
its file and skipped with all it registered; the run goes on without it.

This file is the registry of what the extensions registered and the hooks composed
from it; finding, importing and setting up the files is extension_loader.py's, which a
run without extensions never loads (the start-up budget).

Left out: unloading and reloading, and flags an extension defines itself (a bundled
one's is declared in cli.py). An extension is ordinary Python running with your
rights, not confined by the sandbox, which is why trust matters.
"""

import dataclasses
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..session.convert import custom_message
from ..files.text import one_line
from ..core.messages import text_of
from ..core.tools import Tool, ToolResult
from .extension_context import ExtensionContext, NoUI
from .system_prompt import tagged

if TYPE_CHECKING:  # loaded only when there are extensions to load
    from .extension_loader import ExtensionAPI

Hook = Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]
Labelled = Tuple[str, Hook]  # ("extension /path/gate.py", hook): a failure names its source
Execute = Callable[..., ToolResult]  # a Tool's execute(call_id, args, ctx)


@dataclass
class ToolChange:
    """api.extend_tool's record: a built-in tool's extra arguments and their handler."""
    name: str
    properties: Dict[str, Any]
    wrap: Optional[Callable[[Execute], Execute]]


def print_error(line: str) -> None:
    """The default place a failure while running is told: stderr, one line."""
    print(f"miniagent: {line}", file=sys.stderr)


@dataclass
class Command:
    name: str
    run: Callable[..., Any]
    """Called with the text after `/name ` (a shortcut's: with nothing)."""
    description: str
    source: str
    """The extension file that registered it."""


@dataclass
class Extensions:
    """Everything the loaded extensions registered, ready for the harness to install."""
    tools: List[Tool] = field(default_factory=list)
    commands: Dict[str, Command] = field(default_factory=dict)
    shortcuts: Dict[str, Command] = field(default_factory=dict)
    """key label ("shift+tab") -> what it runs at the REPL's prompt."""
    flags: Dict[str, Any] = field(default_factory=dict)
    """The command-line flags kept for extensions (assemble.py sets them): get_flag."""
    next_prompts: List[str] = field(default_factory=list)
    """api.send_user_message's, for the harness to run after the current prompt."""
    warnings: List[str] = field(default_factory=list)
    """One line per extension that failed to load, or tool or command name clash."""
    pending_messages: List[Dict[str, Any]] = field(default_factory=list)
    """`custom` messages from add_message, for the harness to put into the context."""
    report: Callable[[str], None] = print_error
    """Where failures while running (a raising hook or handler) are told; one line each."""
    on_error: Callable[[str, str, str], None] = lambda path, event, error: None
    """Also told of a raising handler or after-hook: (extension file, event, error), for
    rpc's extension_error event."""
    loaded: List[str] = field(default_factory=list)
    """The files whose setup succeeded, in load order."""
    handlers: List[Tuple[str, str, Callable]] = field(default_factory=list)
    """(label, event type, handler) for each api.on()."""
    before_hooks: List[Labelled] = field(default_factory=list)
    after_hooks: List[Labelled] = field(default_factory=list)
    tool_changes: List[ToolChange] = field(default_factory=list)
    context: ExtensionContext = field(default_factory=lambda: ExtensionContext(""))
    harness: Any = None
    """The run's Harness, once bind() is called: the session and the active tools."""
    tools_for: Callable[[List[str]], List[Tool]] = lambda names: []
    """Builds tools by name (resources.tools_named), for set_active_tools."""
    _said: List[str] = field(default_factory=list)  # "start", "quit": each told once
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bind(self, harness: Any, tools_for: Callable[[List[str]], List[Tool]]) -> None:
        """The harness is built: the session and the tools can now be reached."""
        self.harness, self.tools_for = harness, tools_for
        self.context.attach(harness)

    def begin(self, ui: NoUI) -> None:
        """A front end starts: its UI is installed, then session_start is told (once)."""
        self.context.ui = ui
        if "start" not in self._said:
            self._said.append("start")
            self.emit({"type": "session_start", "reason": "startup"})

    def shutdown(self) -> None:
        """The run ends, whichever way: session_shutdown {reason: "quit"}, once."""
        if "quit" not in self._said:
            self._said.append("quit")
            self.emit({"type": "session_shutdown", "reason": "quit"})

    def append_entry(self, custom_type: str, data: Any = None) -> str:
        """A `custom` entry on the current branch (pi's appendEntry); returns its id."""
        if self.harness is None:
            raise RuntimeError("append_entry needs the session, which is not open during "
                               "setup; call it from a handler or a command")
        with self._lock:
            return self.harness.session.append_custom(custom_type, data)

    def active_tools(self) -> List[str]:
        return [tool.name for tool in self.harness.agent.tools] if self.harness else []

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Offer the tools of these names, in this order; unknown names are left out."""
        current = {tool.name: tool for tool in self.harness.agent.tools}
        built = {tool.name: tool for tool in self.tools_for(
            [name for name in names if name not in current])}
        chosen = [current.get(name) or built.get(name) for name in dict.fromkeys(names)]
        self.harness.set_tools([tool for tool in chosen if tool is not None])

    def extended(self, tool: Tool) -> Tool:
        """`tool` with what api.extend_tool added to it: its schema's new properties,
        its execute wrapped (in load order, so the last extension's wrap runs first)."""
        for change in self.tool_changes:
            if change.name != tool.name:
                continue
            parameters = dict(tool.parameters)
            parameters["properties"] = {**parameters.get("properties", {}), **change.properties}
            execute = change.wrap(tool.execute) if change.wrap else tool.execute
            tool = dataclasses.replace(tool, parameters=parameters, execute=execute)
        return tool

    def add_message(self, text: str, custom_type: str) -> None:
        """Queue a custom message (pi's shape); safe to call from any thread."""
        message = custom_message(custom_type, text)
        with self._lock:
            self.pending_messages.append(message)

    def send_user_message(self, text: str) -> None:
        with self._lock:
            self.next_prompts.append(str(text))

    def take_next_prompt(self) -> Optional[str]:
        """The first prompt an extension sent, removed; None when there is none."""
        with self._lock:
            return self.next_prompts.pop(0) if self.next_prompts else None

    def take_pending_messages(self) -> List[Dict[str, Any]]:
        """The queued custom messages, removed from the queue."""
        with self._lock:
            taken, self.pending_messages[:] = list(self.pending_messages), []
        return taken

    def adopt(self, api: "ExtensionAPI") -> None:
        """Take over what a successful setup registered."""
        self.loaded.append(api.source)
        label = f"extension {api.source}"
        self.handlers += [(label, kind, handler) for kind, handler in api.handlers]
        taken = {tool.name for tool in self.tools}
        for tool in api.tools:  # a second tool of the same name would shadow the first
            if tool.name in taken:
                self.warnings.append(f"{label}: tool {tool.name} ignored, another extension "
                                     f"registered one by that name first")
            else:
                self.tools.append(tool)
        self.before_hooks += [(label, hook) for hook in api.before]
        self.tool_changes += api.tool_changes
        self.after_hooks += [(label, hook) for hook in api.after]
        for command in api.commands:
            self._adopt_one(self.commands, command, f"{label}: command /{command.name}")
        for shortcut in api.shortcuts:
            self._adopt_one(self.shortcuts, shortcut, f"{label}: key {shortcut.name}")

    def _adopt_one(self, taken: Dict[str, Command], command: Command, what: str) -> None:
        """A command or a shortcut, unless an earlier extension took its name."""
        if command.name in taken:
            self.warnings.append(f"{what} ignored, {taken[command.name].source} registered "
                                 f"it first")
        else:
            taken[command.name] = command

    def subscribe_all(self, agent: Any) -> None:
        """Deliver the Agent's events to the api.on handlers (one subscriber for all)."""
        agent.subscribe(self.emit)

    def emit(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Tell the handlers of event["type"], in load order. For a session_before_*
        event, returns {"cancel": True} when one cancels (or raises: it fails closed)."""
        gate = event.get("type", "").startswith("session_before_")
        for answer in self._answers(event, ", so the move was cancelled" if gate else ""):
            if gate and isinstance(answer, dict) and answer.get("cancel"):
                return {"cancel": True}
        return None

    def before_agent_start(self, prompt: Any) -> Dict[str, str]:
        """Tell before_agent_start; the sections its handlers return, each tagged
        (system_prompt.tagged), by name; a later extension's wins a name."""
        if isinstance(prompt, list):
            prompt = prompt[0] if prompt else ""
        text = prompt if isinstance(prompt, str) else text_of(prompt)
        sections: Dict[str, str] = {}
        for answer in self._answers({"type": "before_agent_start", "prompt": text}):
            added = answer.get("sections") if isinstance(answer, dict) else None
            for name, body in (added or {}).items():
                sections[str(name)] = tagged(str(name), str(body))
        return sections

    def _answers(self, event: Dict[str, Any], outcome: str = ""):
        """Each handler's answer to `event`, in load order; one that raises is reported
        (with `outcome`, what its failure does) and answers {"cancel": True}."""
        kind = event.get("type", "")
        for label, handler_kind, handler in self.handlers:
            if handler_kind != kind:
                continue
            try:
                yield handler(event)
            except Exception as exc:  # noqa: BLE001 - it must not stop the run
                self.report(f"{label}: {kind} handler failed{outcome}: {describe(exc)}")
                self.on_error(label.replace("extension ", "", 1), kind, describe(exc))
                yield {"cancel": True}

    def before_tool_call(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The Agent's before-hook: every extension's, in load order (see chain_before),
        each told the files the call declares with the arguments it will see."""
        return chain_before(self.before_hooks, event, self.report, self.declared_paths)

    def declared_paths(self, event: Dict[str, Any]) -> Dict[str, Any]:
        """{"paths": {"read", "written"}}: the files the tool declares for these arguments
        (Tool.paths), by real path as the file queue sees them; {} when it declares none."""
        tools = self.harness.agent.tools if self.harness is not None else []
        tool = next((t for t in tools if t.name == event["toolCall"]["name"]), None)
        if tool is None or tool.paths is None:
            return {}
        try:
            read, written = tool.paths(event["args"], self.context.cwd)
        except Exception:  # noqa: BLE001 - arguments it cannot place: the tool will say so
            return {}
        return {"paths": {"read": [os.path.realpath(path) for path in read],
                          "written": [os.path.realpath(path) for path in written]}}

    def after_tool_call(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """The Agent's after-hook: each sees the result the previous one left."""
        result: ToolResult = event["result"]
        content, is_error, details = result.content, event["isError"], result.details
        for label, hook in self.after_hooks:
            current = ToolResult(content=content, details=details, is_error=is_error)
            try:
                change = hook({**event, "result": current, "isError": is_error}) or {}
                content = change.get("content", content)
                is_error = change.get("isError", is_error)
                details = change.get("details", details)
            except Exception as exc:  # noqa: BLE001 - the tool already ran; keep its result
                self.report(f"{label}: after_tool_call failed and was ignored: {describe(exc)}")
                self.on_error(label.replace("extension ", "", 1), "tool_result", describe(exc))
        if (content, is_error, details) == (result.content, event["isError"], result.details):
            return None
        return {"content": content, "isError": is_error, "details": details}


def chain_before(hooks: Sequence[Labelled], event: Dict[str, Any],
                 report: Callable[[str], None],
                 paths: Callable[[Dict[str, Any]], Dict[str, Any]] = lambda event: {},
                 ) -> Optional[Dict[str, Any]]:
    """Run before-hooks in order: a block stops the chain, new arguments are passed on.
    `paths(event)` adds what each hook is told of the call's files (declared_paths): for
    the arguments that hook sees, as an earlier hook may have rewritten them.

    Returns None (run the call as it is), {"block": True, "reason"}, or {"arguments"}.
    A hook that raises, or returns something that is not a dict, blocks the call.
    """
    args, changed = event["args"], False
    for label, hook in hooks:
        try:
            seen = {**event, "args": args}
            verdict = hook({**seen, **paths(seen)})
            if verdict is not None and not isinstance(verdict, dict):
                raise TypeError(f"returned {type(verdict).__name__}, not None or a dict")
            verdict = verdict or {}
        except Exception as exc:  # noqa: BLE001 - a broken gate fails closed
            line = f"{label}: before_tool_call failed, so the call was blocked: {describe(exc)}"
            report(line)
            return {"block": True, "reason": line}
        if verdict.get("block"):
            return {"block": True, "reason": verdict.get("reason") or f"Blocked by {label}."}
        if "arguments" in verdict:
            args, changed = verdict["arguments"], True
    return {"arguments": args} if changed else None


def describe(exc: BaseException) -> str:
    """An exception as one line: 'ZeroDivisionError: division by zero'."""
    text = one_line(str(exc), 200)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
