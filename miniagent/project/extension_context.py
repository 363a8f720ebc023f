"""What an extension reaches while the agent runs: `api.ctx`, its UI and its session.

pi hands a context to every handler; here there is one for the whole run,
`api.ctx`, because what it points at (the front end, the current session) is looked
up when it is used:

    ctx.cwd                        the working directory
    ctx.has_ui                     True where someone can answer (the REPL and rpc)
    ctx.ui.notify(text, level)     a message to the user ("info", "warning", "error")
    ctx.ui.set_status(key, text)   a short status under a key; None clears it
    ctx.ui.set_widget(key, lines)  a few lines shown above the input; None clears them
    ctx.ui.confirm(title, message) -> bool           a yes/no question
    ctx.ui.select(title, options) -> str or None     one of a list, or None
    ctx.session.custom_entries(custom_type)          api.append_entry's records on the
                                                     current branch, oldest first
    ctx.session.get_branch(entry_id=None)            every entry from the root to entry_id
                                                     (default: where the session is), oldest
                                                     first (pi's getBranch): a tool result's
                                                     details read back, what a move leaves
    ctx.session.file                                 the session file; None in memory
    ctx.setting(name)              a key of settings.json (merged), None when not set
    ctx.narrow_sandbox(mode, reason) -> None or str  a stricter sandbox for the tools
                                   ("read-only") until narrow_sandbox(None); the line
                                   saying why not when the kernel cannot hold it. Never
                                   wider than the user's (sandbox/confine.py)
    ctx.spawn(command, cwd=None) -> process          a command started as bash starts one
                                                     (shell, environment, process group,
                                                     sandbox) and left running: .pid,
                                                     .stdout, .running(), .returncode,
                                                     .kill(); killed at exit at the latest
    ctx.adopt(pid) -> process                        the same handle for a process a bash
                                                     call left running (its result's
                                                     details["leftRunning"] name them)

spawn's handle is tools/hardening/spawned.py's Spawned: read its stdout (or the job
blocks once the pipe is full), and kill it when done; the reaper kills what is left
when miniagent exits, on every way out.

What it needs to start another agent (the sub-agents extension does):

    ctx.start_program(argv, stdin=False, confine=True, env=None) -> process
                                   a program (not a shell command) started as bash's
                                   commands are: its own process group, no terminal,
                                   known to the reaper (it dies with us, on every way
                                   out), through the sandbox's launcher unless
                                   confine=False; its stdout a pipe, its stderr a temp
                                   file; process.kill() stops it and all it started
    ctx.agent_flags() -> [...]     the flags that start a miniagent set up as this run:
                                   provider, model, base URL (or script), thinking level,
                                   sandbox, trust
    ctx.confirm_gate               None, or ask(tool_name, args) -> bool: --confirm's
                                   question, asked where this run asks it
    ctx.config_dirs(name)          [~/.miniagent/NAME, and <project>/.miniagent/NAME
                                   when the project is trusted]: where definitions live

Each front end draws the UI its own way and installs it when it starts
(begin_extensions): print mode as one line on stderr for notify and set_status and
a block of lines for each change of a widget, the REPL notes, a status line and widgets in its live area and questions in its editor
(modes/interactive/extension_ui.py), rpc as pi's extension_ui_request records. JSON mode, like pi's, has no UI at all: `NoUI`, where a question answers no
(confirm) or nothing (select), so an extension that asks is refused, never waved on.

Left out: pi's input, editor and custom dialogs, and a widget's placement.
"""

import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from ..files.text import one_line


class NoUI:
    """Nobody to show anything to or ask: messages dropped, questions refused."""
    has_ui = False

    def notify(self, text: str, level: str = "info") -> None:
        pass

    def set_status(self, key: str, text: Optional[str]) -> None:
        pass

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        pass

    def confirm(self, title: str, message: str) -> bool:
        return False

    def select(self, title: str, options: Sequence[str]) -> Optional[str]:
        return None


class LineUI(NoUI):
    """Print mode: notify and set_status as one line each on stderr (`say`), never
    on stdout, which carries the answer; a widget as a block of lines when it changes;
    questions as NoUI."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self._widgets: Dict[str, List[str]] = {}  # key -> the lines last printed

    def notify(self, text: str, level: str = "info") -> None:
        label = "" if level == "info" else f"{level}: "
        self.say(f"miniagent: {label}{one_line(str(text), 300)}")

    def set_status(self, key: str, text: Optional[str]) -> None:
        if text:  # clearing a status has nothing to print
            self.say(f"miniagent: {key}: {one_line(str(text), 300)}")

    def set_widget(self, key: str, lines: Optional[Sequence[str]]) -> None:
        """Example: ("todo", ["1 of 2 done", "[x] a"]) -> "miniagent: todo:" then each
        line indented; the same lines again print nothing, nor does clearing."""
        shown = [one_line(str(line), 300) for line in lines or []]
        if shown == self._widgets.get(key, []):
            return
        self._widgets[key] = shown
        if shown:
            self.say(f"miniagent: {key}:")
            for line in shown:
                self.say(f"  {line}")


class SessionView:
    """The harness's current session as an extension reads it (the harness may move
    to another session, so it is looked up at each call)."""

    def __init__(self, harness: Any):
        self._harness = harness

    @property
    def file(self) -> Optional[str]:
        """The session file, or None for one kept in memory (--no-session)."""
        return self._harness.session.file_path

    def get_branch(self, entry_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The entries from the root to `entry_id` (default: where the session is now),
        oldest first; [] for an unknown id. An entry off it is on another branch."""
        return self._harness.session.get_branch(entry_id)

    def custom_entries(self, custom_type: Optional[str] = None) -> List[Dict[str, Any]]:
        """The `custom` entries on the current branch (of `custom_type`, if given),
        oldest first: what an extension recorded on the way to where the session is."""
        return [entry for entry in self.get_branch()
                if entry.get("type") == "custom"
                and custom_type in (None, entry.get("customType"))]


class ExtensionContext:
    """`api.ctx`: the same object for every extension of a run (see the docstring)."""

    def __init__(self, cwd: str):
        self.cwd = cwd
        self.ui: NoUI = NoUI()  # until a front end installs its own
        self.session: Optional[SessionView] = None  # until the harness is built
        self._harness: Any = None
        self._sandbox: Any = None  # the run's (sandbox/confine.py), once the harness is
        self._settings: Any = None  # the merged settings.json (project/settings.py)

    def attach(self, harness: Any) -> None:
        """The harness is built: the session, the settings and the sandbox can be reached."""
        self._harness = harness
        self.cwd = harness.agent.cwd
        self.session = SessionView(harness)
        if harness.project is not None:
            self._sandbox = harness.project.sandbox
            self._settings = harness.project.settings

    @property
    def has_ui(self) -> bool:
        return self.ui.has_ui

    def setting(self, name: str) -> Any:
        return getattr(self._settings, name, None)

    def narrow_sandbox(self, mode: Optional[str], reason: str = "") -> Optional[str]:
        if self._sandbox is None:
            return None if mode is None else "this run has no sandbox to narrow"
        return self._sandbox.narrow(mode, reason)

    def spawn(self, command: str, cwd: Optional[str] = None) -> Any:
        """Start `command` in `cwd` (default: the working directory) as the bash tool
        would, with the shell from settings and through the sandbox's launcher, and
        return at once with its handle (tools/hardening/spawned.py's Spawned)."""
        if self._harness is None or self._harness.project is None:
            raise RuntimeError("spawn needs the running session, which is not open during "
                               "setup; call it from a tool, a handler or a command")
        from ..tools.hardening.spawned import Spawned  # only an extension that spawns needs it
        project = self._harness.project
        return Spawned.start(command, cwd or self.cwd, project.settings.shellPath,
                             project.sandbox.launcher())

    def adopt(self, pid: int) -> Any:
        """The handle spawn returns, for a process a bash call left running."""
        from ..tools.hardening.spawned import Spawned
        return Spawned.adopt(pid)

    def start_program(self, argv: Sequence[str], stdin: bool = False, confine: bool = True,
                      env: Optional[Dict[str, str]] = None) -> subprocess.Popen:
        """Start `argv` in the working directory (see the module docstring)."""
        from ..tools.hardening.process import start_program
        project = self._harness.project
        launcher = project.sandbox.launcher() if confine and project else ()
        # stderr to a file, not a pipe: nobody has to keep reading it for the child to go
        # on; proc.stderr is that file, to read once the child has ended
        errors = tempfile.TemporaryFile()
        proc = start_program([*launcher, *argv], self.cwd, stderr=errors,
                             stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, env=env)
        proc.stderr = errors
        return proc

    def agent_flags(self) -> List[str]:
        """This run's set-up as flags (a key given with --api-key is not among them:
        a command line is visible to every user of the machine)."""
        harness, project = self._harness, self._harness.project
        model = harness.agent.model
        if model.script is not None:
            flags = ["--provider", "scripted", "--script", model.script.source]
        elif harness.base_url:  # a server given by its address
            flags = ["--base-url", harness.base_url, "--model", model.id]
        else:
            flags = ["--provider", model.provider, "--model", model.id]
        flags += ["--thinking", harness.agent.thinking_level]
        if project is not None:
            sandbox = project.sandbox.state()
            flags += ["--sandbox", sandbox["mode"], "--approve" if project.trusted
                      else "--no-approve"] + (["--sandbox-net"] if sandbox["network"] else [])
        return flags

    @property
    def confirm_gate(self) -> Optional[Callable[[str, Dict[str, Any]], bool]]:
        gate = self._harness.confirm_gate if self._harness else None
        if gate is None:
            return None
        return lambda name, args: gate({"toolCall": {"name": name}, "args": args}) is None

    def config_dirs(self, name: str) -> List[Path]:
        from .settings import config_files
        project = self._harness.project
        return config_files(name, project.home, project.cwd, project.trusted)


def begin_extensions(harness: Any, ui: NoUI) -> None:
    """A front end starts: its UI for the extensions, then their session_start (a
    harness built without a project, as in some tests, has no extensions)."""
    if harness.project is not None:
        harness.project.extensions.begin(ui)


def end_extensions(harness: Any) -> None:
    """A front end ends: session_shutdown while its UI still works (told once, so the
    harness's close() after it tells nothing more)."""
    if harness.project is not None:
        harness.project.extensions.shutdown()
