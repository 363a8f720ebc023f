"""The interactive terminal: a read-eval-print loop around the harness.

    $ miniagent                      (a terminal, no -p, no --mode)
    miniagent 0.1.0 · anthropic/claude-sonnet-4-5 · /help for commands, Ctrl-D quits
    ⠹ waiting for the model · 1s                 <- the run view (view.py), live
    ─────────────────────────────────────────
    > also update the docs|                      <- the input editor, always live

The REPL is one loop with two halves, and the main thread owns the terminal in both
(screen.py: the terminal UI of tui/; linemode.py on TERM=dumb):

  * at the prompt: the editor reads an input (multi-line, history, Tab completion of
    /commands and @paths); it is a command (slash.py, slash_session.py, an
    extension's), a `!cmd` for the shell (usershell.py), a `/skill:name` or a prompt,
    with `@path` attachments (attach.py);
  * while the agent works (the harness runs it on a worker thread): the editor stays
    live under the output. Enter queues the line as steering (the model sees it after
    the running tool), Alt+Enter as a follow-up (sent when the agent is done), unless
    a --confirm question is pending: then the line is its answer (questions.py).

Other work that takes a while (/compact, a branch summary, a `!cmd`) runs on the same
worker (`run_work`), so that Esc and Ctrl-C stop it as they stop a run.

Keys and signals:

    Esc or Ctrl-C while it works   stop the turn at once; queued messages are put back
                                   in the editor (Up on an empty editor does that too)
    Ctrl-C at the prompt           clears the editor; on an empty one it says how to
                                   quit, and a second one (nothing typed between) quits
    Ctrl-D on an empty editor      quit (exit status 0, as /quit); while it works: once
                                   it is done
    SIGTERM, SIGHUP                abort, wait for the running commands to be killed,
                                   exit 143 / 129; further signals are ignored meanwhile

Not print and rpc's rule (tools/hardening/reaper.catch_stop_signals: a second signal
quits at once): here Ctrl-C is an editing key, and no signal quits before the kill.

Left out: pi's fullscreen mode, mouse input, themes, Windows.
"""

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ... import __version__
from ..attach import expand_prompt
from ..confirm import always_allowed_text
from ...errors import SkillError
from ...files.home import history_file, old_history_file
from ...core.messages import Message, is_failed, text_of, user_message
from ...tui.history import History
from ...tui.menu import Completion
from .completion import complete
from .pasted import attach_pasted_images
from .questions import PendingAnswer
from .screen import Interrupted, TerminalScreen
from .linemode import LineScreen
from .slash import as_prompt, command_items, parse_command, run_command
from ..terminal import Screen, for_terminal
from ..usershell import parse_shell_line, record, run_user_command
from ...sandbox.confine import sandbox_of
from ...project.extension_context import begin_extensions, end_extensions
from .extension_ui import ReplUI
from .notify import wants_notifications
from .resume_hint import say_how_to_resume
from .while_running import WhileRunning

if TYPE_CHECKING:  # the contract the REPL drives; imported for the reader only
    from ...harness.harness import ConfirmationGate, Harness

SHUTDOWN_SECONDS = 5  # how long SIGTERM waits for the run to end before leaving anyway
WORK_POLL = 0.02  # seconds between looks at the run: its end is noticed within this


class Stopped(BaseException):
    """SIGTERM or SIGHUP: the REPL ends (BaseException: no `except Exception` eats it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def run_interactive(harness: "Harness", args: Any, first_prompt: str,
                    skills: Sequence[Any] = (),
                    extension_commands: Optional[Dict[str, Any]] = None,
                    confirm_gate: Optional["ConfirmationGate"] = None,
                    replay: Sequence[str] = ()) -> int:
    """Run the REPL on `harness` (built by cli.py and assemble.py) until the user quits;
    returns the exit status. `first_prompt` ("" for none) is sent first, shown and kept
    in the history as if typed; the last line says how to come back. `skills` serve
    /skill:name, `extension_commands` (name -> extensions.Command) are run as /name; a
    --confirm gate asks through the REPL, which owns the keyboard, as extensions' ctx.ui
    does (extension_ui.py); their session_shutdown is told before the screen closes.
    `replay`: a replayed session's prompts (script, --demo), each shown as typed."""
    repl = Repl(harness, Screen(sys.stdout), skills, dict(extension_commands or {}))
    if confirm_gate is not None:
        confirm_gate.ask = repl.ask_confirmation
    unsubscribe = harness.agent.subscribe(repl.on_event)
    repl.screen.start()
    begin_extensions(harness, ReplUI(repl))
    try:
        return repl.run([first_prompt], remember=True) if first_prompt else repl.run(list(replay))
    finally:
        end_extensions(harness)
        unsubscribe()
        repl.screen.close()
        say_how_to_resume(harness.session, harness.agent.cwd, repl.terminal)  # below it all


class Repl(WhileRunning):
    def __init__(self, harness: "Harness", terminal: Screen, skills: Sequence[Any] = (),
                 extension_commands: Optional[Dict[str, Any]] = None):
        self.harness = harness
        self.agent = harness.agent
        self.terminal = terminal  # what the terminal allows (colour), for search's marks
        self.skills: List[Any] = list(skills)  # for /skill:name (skills.Skill)
        self.extension_commands: Dict[str, Any] = extension_commands or {}
        self.screen = self._make_screen(terminal)
        self.view = self.screen.view
        self.screen.queued = lambda: [(kind, text) for _, text, kind in self.queued]
        self.exit_code: Optional[int] = None  # set by /quit
        self.running = False
        self.interrupted = False  # Ctrl-C or Esc during this run
        self.armed = False  # an empty-line Ctrl-C was pressed: the next one quits
        self.queued: List[Tuple[Message, str, str]] = []  # sent, typed, steering or follow-up
        self._queue_lock = threading.Lock()  # the agent's thread takes delivered ones out
        self.stopping = False  # SIGTERM or SIGHUP arrived
        self.pending = PendingAnswer()  # a --confirm question waiting for a typed line
        settings = harness.project.settings if harness.project is not None else None
        self.notify = wants_notifications(settings, os.environ)  # the bell (notify.py)

    def _make_screen(self, terminal: Screen) -> Union[TerminalScreen, LineScreen]:
        """The terminal UI where control codes work, the line mode where they do not."""
        if not terminal.controls:
            return LineScreen(terminal.out)
        history = History(str(history_file()))  # saved at each entry
        history.load(legacy_path=str(old_history_file()))  # read when the first is not there
        return TerminalScreen(terminal.styles, history, completer=self.complete,
                              on_paste=lambda text: attach_pasted_images(text, self.agent.cwd))

    def complete(self, before_cursor: str) -> Optional[Completion]:
        """What Tab offers: /commands (with extensions' and skills'), @paths."""
        commands = command_items(self.extension_commands, self.skills)
        return complete(before_cursor, commands, self.agent.cwd)

    def note(self, text: str, style: Optional[str] = None) -> None:
        self.view.note(for_terminal(text), style)

    def on_event(self, event: Dict[str, Any]) -> None:
        """The agent's events: to the run view; a queued message the model now gets
        leaves the queue under the editor and goes into the output, where it arrived."""
        self.view(event)
        if event["type"] == "message_start" and event["message"].get("role") == "user":
            with self._queue_lock:
                delivered = [text for message, text, _ in self.queued
                             if message is event["message"]]
                self.queued = [item for item in self.queued
                               if item[0] is not event["message"]]
            for text in delivered:
                self.view.note(f"> {for_terminal(text)}", "bold")

    def ask(self, question: str) -> Optional[str]:
        """A question at the prompt ("summarise the branch? [y/N]"), answered in the
        editor; None for Esc, Ctrl-C or Ctrl-D."""
        return self.screen.ask(question)

    def put_back(self, text: str) -> None:
        """Text for the next input (a /fork's prompt, steering an abort gave back)."""
        self.screen.put_back(text)

    # --- The loop --------------------------------------------------------------------------

    def run(self, first_prompts: List[str], remember: bool = False) -> int:
        """Run `first_prompts`, each shown as if it had been typed (and kept in the history
        when `remember`: the command line's prompt, not a replayed script's), then serve
        input to the end."""
        signal.signal(signal.SIGINT, self._interrupt)
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGHUP, self._stop)
        try:
            self.greet()
            for line in first_prompts:
                self.show_typed(line)
                if remember:
                    self.screen.remember(line)
                self.handle(line)
                if self.exit_code is not None or is_failed(self.agent.messages[-1]):
                    break  # Ctrl-C or an error ends a replay: the prompt is yours
            while self.exit_code is None:
                self.step()
            return self.exit_code
        except Stopped as stop:
            self.shut_down()
            return 128 + stop.signum

    def step(self) -> None:
        """Read one input and act on it; Ctrl-C and Ctrl-D at the prompt are decided here."""
        try:
            line = self.screen.read_input()
        except Interrupted as interrupt:
            if interrupt.typed.strip() or not self.armed:
                self.armed = not interrupt.typed.strip()
                if self.armed:
                    self.note("(Ctrl-C again to quit, or Ctrl-D, or /quit)", "dim")
                return
            self.exit_code = 0
            return
        if line is None:  # Ctrl-D at an empty prompt
            self.exit_code = 0
            return
        self.armed = False
        if line.strip() and self.screen.live_area:  # the kernel did not echo it
            self.show_typed(line)
        self.handle(line)

    def show_typed(self, line: str) -> None:
        """A prompt into the transcript, as the user typed it."""
        self.view.note(f"> {for_terminal(line)}", "bold")

    def greet(self) -> None:
        model = self.agent.model
        sandbox = sandbox_of(self.harness).describe()  # named when it confines
        confined = f" · sandbox: {sandbox}" if sandbox != "off" else ""
        self.note(f"miniagent {__version__} · {model.provider}/{model.id}{confined} · /help "
                  f"for commands, Ctrl-D quits", "dim")
        self.show_last_exchange()

    def show_last_exchange(self) -> None:
        """On a resumed session: the last prompt and the last answer, as a reminder."""
        for role, label in (("user", "> "), ("assistant", "")):
            last = next((m for m in reversed(self.agent.messages) if m.get("role") == role
                         and text_of(m).strip()), None)
            if last is not None:
                self.note(label + text_of(last).strip(), "dim")

    # --- Acting on a line ------------------------------------------------------------------

    def handle(self, line: str) -> None:
        if not line.strip():
            return
        shell = parse_shell_line(line)
        if shell is not None:
            self.run_shell(*shell)
            return
        command = parse_command(line)
        if command is None:
            self.send(as_prompt(line))
            return
        run_command(self, command)

    def run_shell(self, command: str, excluded: bool) -> None:
        """`!cmd` / `!!cmd`: run it as the bash tool would, then record the message."""
        if not command:
            self.note("usage: !COMMAND runs it and the model sees the output; !!COMMAND "
                      "runs it for you only")
            return
        message = self.run_work(lambda abort: run_user_command(
            command, self.agent.cwd, abort, self.view, excluded, sandbox=sandbox_of(self.harness)))
        record(self.harness, message)
        if excluded:
            self.note("(not added to the context: the model does not see this output)", "dim")

    def run_work(self, work: Callable[[threading.Event], Any],
                 waiting: Optional[str] = None) -> Any:
        """Run `work(abort)` on the harness's worker until it is done, the spinner showing
        `waiting`; Esc and Ctrl-C abort it. Returns what it returned, raises what it raised."""
        self.view.wait(waiting)
        self.running, self.interrupted = True, False
        try:
            self.harness.start(work)
            self.watch_run()
        finally:
            self.running = False
            self.view.wait(None)
        return self.harness.outcome()

    def expand(self, text: str, as_message: bool = False) -> Optional[Union[str, Message]]:
        """The prompt as print and rpc modes expand it too (attach.expand_prompt): a
        leading /skill:name inlined, @path files attached, each file that could not be a
        one-line warning; None, after a note, for a skill that is not loaded. A message
        object when asked (steering is matched by identity)."""
        try:
            prompt, warnings = expand_prompt(text, self.agent.cwd, self.skills,
                                             "image" in self.agent.model.input)
        except SkillError as error:
            self.note(str(error))
            return None
        for warning in warnings:
            self.note(warning, "yellow")
        return user_message(prompt) if as_message and isinstance(prompt, str) else prompt

    def send(self, text: str) -> None:
        """Run a prompt and stay with it until it is over."""
        prompt = self.expand(text)
        if prompt is not None:
            self.run_prompt(prompt)

    def run_prompt(self, prompt: Union[str, Message, List[Message]]) -> None:
        self.running, self.interrupted = True, False
        try:
            self.harness.prompt(prompt)
            self.watch_run()
        finally:
            self.running = False
        self.after_run()

    def after_run(self) -> None:
        """The footer; then what is still queued: put back in the editor after an abort
        (the user decides again), sent as the next prompt otherwise."""
        self.view.show_footer(self.agent.model, always_allowed_text(self.harness.confirm_gate))
        if self.harness.stop_message:  # a run limit or a failed compaction ended the run
            self.note(self.harness.stop_message, "red")
        left, texts = self.take_queued()
        if left and self.interrupted:
            self.put_back("\n".join(texts))
            self.note(f"{len(left)} queued message(s) put back in the input", "dim")
        elif left and self.exit_code is None:
            self.run_prompt(left)
        elif self.notify and not self.interrupted and self.exit_code is None:
            self.screen.ring()  # done by itself: the prompt is the user's again

    # --- Stopping ----------------------------------------------------------------------------

    def _stop(self, signum: int, frame: Any) -> None:
        if not self.stopping:  # a second signal right after the first changes nothing
            self.stopping = True
            raise Stopped(signum)

    def shut_down(self) -> None:
        """Abort the run and wait (bounded) until its commands are killed; a second
        signal meanwhile is ignored, so that nothing is left running."""
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        self.harness.abort()  # the run, or a `!cmd` or a /compact
        self.harness.wait(SHUTDOWN_SECONDS)
