"""The interactive terminal: a read-eval-print loop around the harness.

    $ miniagent                      (a terminal, no -p, no --mode)
    miniagent 0.1.0 · anthropic/claude-sonnet-4-5 · /help for commands, Ctrl-D quits
    > why does test_app fail?
    ⠹ waiting for the model · 1s                          <- the live view (liveview.py)

The REPL is one loop with two halves, and the main thread owns the terminal in both:

  * at the prompt: `input()` with readline (line editing, history in
    ~/.miniagent/history, a pasted block arrives whole, a trailing backslash
    continues); the line is a command (slash.py, slash_session.py, an extension's),
    a `!cmd` for the shell (usershell.py), a `/skill:name` (skills.py) or a prompt,
    with `@path` attachments (attach.py);
  * while the agent works (the harness runs it on a worker thread): the main thread
    waits on the keyboard in short steps. The terminal is in its ordinary line mode
    then, so the kernel echoes and edits what is typed; each finished line is queued
    as a steering message (the model sees it after the running tool), unless a
    --confirm question is pending: then the line is its answer (questions.py).

Other work that takes a while (/compact, a branch summary, a `!cmd`) runs on the same
worker (`run_work`, the harness's `start`), so that Ctrl-C, handled on the main thread,
stops it as it stops a run.

Signals, each handled where it lands (the main thread):

    Ctrl-C while the agent works   abort the turn at once; more Ctrl-Cs change nothing;
                                   queued messages are put back in the input line
    Ctrl-C at the prompt           clears the line; on an empty line it says how to
                                   quit, and a second one (nothing typed between) quits
    Ctrl-D at an empty prompt      quit (exit status 0, as /quit)
    SIGTERM, SIGHUP                abort, wait for the running commands to be killed,
                                   exit 143 / 129; further signals are ignored meanwhile

Not print and rpc's rule (tools/hardening/reaper.catch_stop_signals: a second signal
quits at once): here Ctrl-C is an editing key, and no signal quits before the kill.

Left out: a full-screen interface, an input line that stays at the bottom while the
output scrolls, key bindings beyond readline's own, Windows (no readline there).
"""

import os
import readline
import select
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ... import __version__
from ..attach import expand_prompt
from ..confirm import always_allowed_text
from .liveview import LiveView
from ...errors import SkillError
from ...messages import Message, is_failed, text_of, user_message
from .lineinput import input_waiting, insert_text, save_history, set_up_readline
from .questions import PendingAnswer
from .slash import WHILE_RUNNING, as_prompt, canonical_name, parse_command, run_command
from ..terminal import Screen, for_terminal
from ..usershell import parse_shell_line, record, run_user_command

if TYPE_CHECKING:  # the contract the REPL drives; imported for the reader only
    from ...harness.harness import ConfirmationGate, Harness

SHUTDOWN_SECONDS = 5  # how long SIGTERM waits for the run to end before leaving anyway
KEYBOARD_POLL = 0.02  # seconds between looks at the run: its end is noticed within this


class Interrupted(KeyboardInterrupt):
    """Ctrl-C at the prompt; carries what was typed on the line at that moment."""

    def __init__(self, typed: str):
        super().__init__(typed)
        self.typed = typed


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
    """Run the REPL on `harness` (its agent and session are ready: cli.py and
    assemble.py built them from `args`) until the user quits; returns the exit status.
    `first_prompt` ("" for none) is sent first, as `miniagent "fix the tests"` asks.
    `skills` serve /skill:name, `extension_commands` (name -> extensions.Command) are
    listed by /help and run as /name; a --confirm gate (confirm.ConfirmGate) asks its
    questions through the REPL, which owns the keyboard. `replay` holds a replayed
    session's prompts (miniagent script): each is shown as typed and run in turn."""
    screen = Screen(sys.stdout)
    repl = Repl(harness, LiveView(screen), colour=screen.colour)
    repl.skills = list(skills)
    repl.extension_commands = dict(extension_commands or {})
    if confirm_gate is not None:
        confirm_gate.ask = repl.ask_confirmation
    unsubscribe = harness.agent.subscribe(repl.view)
    history = set_up_readline(bracketed_paste=screen.controls)
    try:
        if first_prompt:
            return repl.run([first_prompt])
        return repl.run(list(replay), echo=True)
    finally:
        unsubscribe()
        repl.view.close()
        save_history(history)


class Repl:
    def __init__(self, harness: "Harness", view: LiveView, colour: bool = False):
        self.harness = harness
        self.agent = harness.agent
        self.view = view
        # \001 and \002 tell readline that the codes between them take no room on screen.
        self.prompt = "\001\x1b[1;36m\002> \001\x1b[0m\002" if colour else "> "
        self.exit_code: Optional[int] = None  # set by /quit
        self.running = False
        self.interrupted = False  # Ctrl-C during this run
        self.armed = False  # an empty-line Ctrl-C was pressed: the next one quits
        self.queued: List[Tuple[Message, str]] = []  # steering sent, with the typed text
        self.for_input = ""  # text put back in the input line at the next prompt
        self.stopping = False  # SIGTERM or SIGHUP arrived
        self.skills: List[Any] = []  # for /skill:name (skills.Skill)
        self.extension_commands: Dict[str, Any] = {}  # name -> extensions.Command
        self.pending = PendingAnswer()  # a --confirm question waiting for a typed line

    def note(self, text: str, style: Optional[str] = None) -> None:
        self.view.note(for_terminal(text), style)

    # --- The loop --------------------------------------------------------------------------

    def run(self, first_prompts: List[str], echo: bool = False) -> int:
        """Run `first_prompts` (shown as typed when `echo`), then serve input to the end."""
        # Ctrl-C raises only inside input() (see read_input); anywhere else it is
        # "stop the run", which is harmless when nothing runs.
        signal.signal(signal.SIGINT, self._interrupt_run)
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGHUP, self._stop)
        try:
            self.greet()
            for line in first_prompts:
                if echo:  # a replay: each prompt shown as if it had been typed
                    self.view.note(f"> {line}")
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
            line = self.read_input()
        except Interrupted as interrupt:
            self.view.note("")  # leave the line that was being edited
            if interrupt.typed.strip() or not self.armed:
                self.armed = not interrupt.typed.strip()
                if self.armed:
                    self.note("(Ctrl-C again to quit, or Ctrl-D, or /quit)", "dim")
                return
            self.exit_code = 0
            return
        if line is None:  # Ctrl-D at an empty prompt
            if not self.view.screen.controls:
                self.view.note("")  # with bracketed paste on, readline ends the line itself
            self.exit_code = 0
            return
        self.armed = False
        self.handle(line)

    def greet(self) -> None:
        model = self.agent.model
        self.note(f"miniagent {__version__} · {model.provider}/{model.id} · /help for "
                  f"commands, Ctrl-D quits", "dim")
        self.show_last_exchange()

    def show_last_exchange(self) -> None:
        """On a resumed session: the last prompt and the last answer, as a reminder."""
        for role, label in (("user", "> "), ("assistant", "")):
            last = next((m for m in reversed(self.agent.messages) if m.get("role") == role
                         and text_of(m).strip()), None)
            if last is not None:
                self.note(label + text_of(last).strip(), "dim")

    # --- Input at the prompt ---------------------------------------------------------------

    def read_input(self) -> Optional[str]:
        """One input, possibly of several lines: a trailing backslash asks for the next
        line, and a pasted block arrives whole. None on Ctrl-D at an empty prompt."""
        lines: List[str] = []
        prompt = self.prompt
        while True:
            if self.for_input:
                put_back, self.for_input = self.for_input, ""
                readline.set_pre_input_hook(lambda: insert_text(put_back))
            signal.signal(signal.SIGINT, self._interrupt_at_prompt)
            try:
                line = input(prompt)
            except EOFError:
                return "\n".join(lines) if lines else None
            finally:
                signal.signal(signal.SIGINT, self._interrupt_run)
                readline.set_pre_input_hook(None)
            if line.endswith("\\"):
                lines.append(line[:-1])
                prompt = "· "
                continue
            lines.append(line)
            # Without bracketed paste a pasted block arrives line by line: the lines
            # already waiting are the rest of it.
            if self.view.screen.controls or not input_waiting():
                return "\n".join(lines)
            prompt = ""

    def _interrupt_at_prompt(self, signum: int, frame: Any) -> None:
        raise Interrupted(readline.get_line_buffer())

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
            command, self.agent.cwd, abort, self.view, excluded))
        record(self.harness, message)
        if excluded:
            self.note("(not added to the context: the model does not see this output)", "dim")

    def run_work(self, work: Callable[[threading.Event], Any],
                 waiting: Optional[str] = None) -> Any:
        """Run `work(abort)` on the harness's worker until it is done, the spinner showing
        `waiting`; Ctrl-C aborts it. Returns what it returned, raises what it raised."""
        self.view.wait(waiting)
        try:
            self.harness.start(work)
            while not self.harness.wait(KEYBOARD_POLL):  # short waits: signals run between
                pass
        finally:
            self.view.wait(None)
        return self.harness.outcome()

    def expand(self, text: str, as_message: bool = False) -> Optional[Union[str, Message]]:
        """The prompt as print and rpc modes expand it too (attach.expand_prompt): a
        leading /skill:name inlined, @path files attached, each file that could not be a
        one-line warning; None, after a note, for a skill that is not loaded. A message
        object when asked (steering is matched by identity)."""
        try:
            prompt, warnings = expand_prompt(text, self.agent.cwd, self.skills)
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

    def _interrupt_run(self, signum: int, frame: Any) -> None:
        # Only flags here: the main thread may be inside the view's lock right now.
        self.interrupted = True
        self.harness.abort()  # the run, or what run_work runs

    def watch_run(self) -> None:
        """Wait for the run to end, queueing each line typed meanwhile as steering."""
        fd = sys.stdin.fileno()
        typed = b""
        keyboard = True  # False after Ctrl-D: nothing more to read during this run
        self.pending.input_ended = False  # a terminal still reads after a Ctrl-D
        told = False
        while not self.harness.wait(0 if keyboard else KEYBOARD_POLL):
            if self.interrupted and not told:
                told = True
                self.note("stopping…", "dim")
            if not keyboard or not select.select([fd], [], [], KEYBOARD_POLL)[0]:
                continue
            data = os.read(fd, 4096)
            keyboard = bool(data)
            if not keyboard:
                self.pending.end_input()  # a pending question is answered "no"
            *lines, typed = (typed + data).split(b"\n")
            for line in lines:
                text = line.decode("utf-8", errors="replace")
                if not self.pending.offer(text):  # a pending question owns the line
                    self.handle_while_running(text)
        if self.interrupted and not told:  # the run stopped before the loop looked again
            self.note("stopping…", "dim")
        self.for_input = typed.decode("utf-8", errors="replace")

    def ask_confirmation(self, question: str) -> str:
        """The --confirm gate's `ask` in the REPL. The gate calls it on the agent's
        thread; the main thread, reading the keyboard, hands over the next line typed.
        Ctrl-C or the end of input answers "" (no)."""
        answer = self.pending.ask(question, self.view.ask,
                                  cancelled=lambda: self.interrupted or self.stopping)
        self.view.answered(line_ended=answer is not None)
        return answer or ""

    def handle_while_running(self, line: str) -> None:
        if not line.strip():
            return
        command = parse_command(line)
        if command is not None and canonical_name(command.name) in WHILE_RUNNING:
            run_command(self, command)
        elif command is not None or parse_shell_line(line) is not None:
            what = f"/{command.name}" if command else "!command"
            self.note(f"{what} works at the prompt: wait for the agent, or press "
                      f"Ctrl-C to stop it", "dim")
        else:
            self.queue(as_prompt(line))

    def queue(self, text: str, follow_up: bool = False) -> None:
        """Queue a steering message (the model sees it after the running step) or a
        follow-up (sent when the agent is done), remembering what was typed."""
        message = self.expand(text, as_message=True)
        if message is None:
            return
        if follow_up:
            self.agent.follow_up(message)
        else:
            self.agent.steer(message)
        self.queued.append((message, text))
        when = "when the agent is done" if follow_up else "after the running step"
        self.note(f"queued: {text} (the model sees it {when})", "dim")

    def after_run(self) -> None:
        """The footer; then what is still queued: put back in the input line after an
        abort (the user decides again), sent as the next prompt otherwise."""
        self.view.show_footer(self.agent.model, always_allowed_text(self.harness.confirm_gate))
        if self.harness.stop_message:  # a run limit or a failed compaction ended the run
            self.note(self.harness.stop_message, "red")
        left = self.agent.clear_queues()
        texts = [text for message, text in self.queued if any(message is m for m in left)]
        self.queued = []
        if left and self.interrupted:
            self.for_input = "\n".join(texts + [self.for_input]).strip("\n")
            self.note(f"{len(left)} queued message(s) put back in the input line", "dim")
        elif left and self.exit_code is None:
            self.run_prompt(left)

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
