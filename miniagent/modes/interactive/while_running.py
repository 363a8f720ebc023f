"""The REPL while the agent works: the keyboard stays live under the output.

The harness runs a prompt on its worker thread; the REPL's main thread keeps serving
the keyboard meanwhile (screen.watch), and each line typed is one of:

    the answer to a pending --confirm question   (the agent's thread waits for it:
                                                  questions.py hands it over)
    /followup TEXT, /quit                        the commands that work mid-run
    any other /command or !cmd                   "works at the prompt": nothing sent
    anything else                                steering: the model sees it after the
                                                  running tool (Alt+Enter: a follow-up,
                                                  sent when the agent is done)

Esc or Ctrl-C stops the run (`stop_run`); Up on an empty editor takes the queued lines
back (`take_back`). `WhileRunning` is a part of the Repl (interactive_mode.py), kept in
its own file because it is its own idea: the loop reads a line at the prompt, this
serves the keyboard during a run.

Left out: editing a queued message in place (take it back with Up).
"""

import threading
from typing import Any, List, Tuple

from ...core.messages import Message
from ..usershell import parse_shell_line
from .slash import WHILE_RUNNING, as_prompt, canonical_name, parse_command, run_command


class WhileRunning:
    """The Repl's run-time half (a mixin: it uses the Repl's harness, agent, screen,
    view, pending question, queue and note)."""

    queued: List[Tuple[Message, str, str]]
    _queue_lock: threading.Lock

    def watch_run(self) -> None:
        """Serve the keyboard until the run is over (screen.watch)."""
        self.pending.input_ended = False
        self.screen.watch(self.harness.wait, on_line=self.handle_while_running,
                          on_follow_up=lambda text: self.queue(text, follow_up=True),
                          on_stop=self.stop_run, take_back=self.take_back,
                          on_closed=self.pending.end_input)

    def stop_run(self) -> None:
        """Esc or Ctrl-C while the agent works: abort the turn (once is enough)."""
        self.interrupted = True
        if self.screen.live_area:
            self.view.wait("stopping")  # live until the run's end clears it
        else:
            self.note("stopping…", "dim")
        self.harness.abort()  # the run, or what run_work runs

    def _interrupt(self, signum: int, frame: Any) -> None:
        # A signal handler: it runs on the main thread between two steps of whatever it
        # does (perhaps inside the view's lock), so it only aborts (thread-safe) and lets
        # the screen's loop see the press (and call stop_run, for the "stopping" line).
        if self.running:
            self.interrupted = True
            self.harness.abort()
        self.screen.interrupt()

    def ask_confirmation(self, question: str) -> str:
        """The --confirm gate's `ask` in the REPL. The gate calls it on the agent's
        thread; the main thread, serving the keyboard, hands over the next line typed.
        Ctrl-C, Esc or the end of input answers "" (no)."""
        answer = self.pending.ask(question, self._show_question,
                                  cancelled=lambda: self.interrupted or self.stopping)
        self.view.hold(False)  # the clock of what runs starts again
        self.screen.question = None
        self.screen.changed()
        self.note(f"{question}{answer or ''}", "dim")
        return answer or ""

    def _show_question(self, question: str) -> None:
        self.view.hold(True)  # nothing runs until the answer: a still screen
        self.screen.question = question
        self.screen.changed()
        if self.notify:  # nothing runs until they answer (notify.py)
            self.screen.ring()

    def handle_while_running(self, line: str) -> None:
        if self.pending.offer(line):  # a pending question owns the line
            return
        if not line.strip():
            return
        command = parse_command(line)
        if command is not None and canonical_name(command.name) in WHILE_RUNNING:
            run_command(self, command)
        elif command is not None or parse_shell_line(line) is not None:
            what = f"/{command.name}" if command else "!command"
            self.note(f"{what} works at the prompt: wait for the agent, or press "
                      f"Esc to stop it", "dim")
        else:
            self.queue(as_prompt(line))

    def queue(self, text: str, follow_up: bool = False) -> None:
        """Queue a steering message (the model sees it after the running step) or a
        follow-up (sent when the agent is done), remembering what was typed and which
        kind it is (the line under the editor says it: "↳ steering: ...")."""
        message = self.expand(text, as_message=True)
        if message is None:
            return
        if follow_up:
            self.agent.follow_up(message)
        else:
            self.agent.steer(message)
        kind = "follow-up" if follow_up else "steering"
        with self._queue_lock:
            self.queued.append((message, text, kind))
        if not self.screen.live_area:  # the line mode draws no queue: one line says it
            self.note(f"  ↳ {kind}: {text}", "dim")
        self.screen.changed()

    def take_back(self) -> str:
        """Up on an empty editor while the agent works: the queued lines, unsent."""
        return "\n".join(self.take_queued()[1])

    def take_queued(self) -> Tuple[List[Message], List[str]]:
        """Every message still queued, taken out of the agent, and what was typed."""
        left = self.agent.clear_queues()
        with self._queue_lock:
            texts = [text for message, text, _ in self.queued if any(message is m for m in left)]
            self.queued = []
        return left, texts
