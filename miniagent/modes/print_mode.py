"""Print and JSON modes: run one prompt to its end, then turn the outcome into an exit code.

    miniagent -p "What does this repo do?"        the answer on stdout
    miniagent --mode json -p "List the files"     every event as a JSON line on stdout
    echo "fix it" | miniagent                     steps on stderr, answer on stdout

The front end is a subscriber to the agent's events (render.py): `JsonLines` for
programs, `StepPrinter` for people. The run itself belongs to the harness (retries,
the session file, compaction). What this file adds is what a process in a pipeline
needs:

    0   the model answered
    1   the run ended in an error or hit a run limit (one line on stderr)
    130 stopped with Ctrl-C (143 by SIGTERM, 129 by SIGHUP: 128 + the signal)
    141 stdout was closed by its reader (`miniagent ... | head -1`)

A stop signal aborts the run, not the program: the provider stops reading, bash kills
its process group, and the run ends with an "aborted" message that the session keeps.
A second signal quits at once, after killing the commands still running.

Left out: the interactive terminal (interactive/), which runs many prompts.
"""

import argparse
import signal
import sys
from typing import Any, Dict, List, Optional

from ..harness.harness import Harness
from ..core.messages import is_failed, text_of
from ..files.text import one_line
from .output import reader_gone, say, silence_stdout, stdout_failure
from ..harness.limits import summary_line
from .render import JsonLines, StepPrinter, cost_text, final_answer, for_terminal
from ..tools.hardening.reaper import catch_stop_signals
from ..sandbox.confine import sandbox_of
from ..project.extension_context import LineUI, NoUI, begin_extensions


def run(harness: Harness, prompts: List[str], args: argparse.Namespace) -> int:
    """Run the prompts (one, or a replayed session's) with the chosen front end and
    return the exit status."""
    agent = harness.agent
    stdout_failed: List[OSError] = []  # set when writing the JSON lines failed

    def stop(signum: int) -> None:  # the first stop signal (a second one quits)
        say("\nStopping... (Ctrl-C again quits at once)" if signum == signal.SIGINT
            else "\nStopping...")
        harness.abort()

    def stdout_broke(error: OSError) -> None:  # `... | head -1`, a full disk
        if not stdout_failed:
            stdout_failed.append(error)
            silence_stdout()
            harness.abort()  # no point running tools for nobody

    if args.mode == "json":
        jsonl = JsonLines(sys.stdout, on_closed=stdout_broke)
        if harness.session.persist:  # as pi: the session header is the first line
            jsonl(harness.session.header)
        agent.subscribe(jsonl)
    else:  # -p shows only retry notices, so a rate-limited minute is not silent
        sandbox = sandbox_of(harness).describe()
        if sandbox != "off":  # what confines the commands, said once
            say(f"miniagent: sandbox: {sandbox}")
        progress = sys.stderr or open("/dev/null", "w")  # stderr may be closed (2>&-)
        agent.subscribe(StepPrinter(progress, show_steps=not args.print or args.demo))
    # Extensions' messages: one line on stderr in print mode; JSON mode has no UI (as pi).
    begin_extensions(harness, NoUI() if args.mode == "json" else LineUI(say))
    received = catch_stop_signals(stop)  # the stop signals that arrived
    earlier = None  # the answer before this prompt's run: never shown as its answer
    for number, prompt in enumerate(prompts):
        if number:  # a replayed session's next prompt: the previous answer first
            answer = answer_of_run(agent.messages, earlier)
            if received or stdout_failed or harness.stop_message or answer is None or \
                    is_failed(answer):
                break
            try:
                show_answer(harness, args)
            except OSError as error:
                return stdout_failure(error)
        earlier = final_answer(agent.messages)
        harness.prompt(prompt, keep_counting=number > 0)  # limits count per process
        while not harness.wait(0.5):  # a timeout, so that signal handlers get to run
            # A reader that left while a tool runs quietly would be noticed only at the
            # next event, perhaps minutes later; the pipe itself can tell us now.
            if args.mode == "json" and not stdout_failed and reader_gone(sys.stdout):
                stdout_broke(BrokenPipeError())
    if stdout_failed:
        return stdout_failure(stdout_failed[0])
    code = report(harness, args, 128 + received[0] if received else None, earlier)
    if args.mode == "text" and not args.print:  # what the run used, on stderr
        say(summary_line(harness.limits, cost_text(harness.limits.cost, agent.model)))
    return code


def answer_of_run(messages: List[Dict[str, Any]],
                  earlier: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The last reply, if this run wrote it: a run that ended before the model
    answered (a failure around it) must not pass off the session's last answer as its
    own. None when the run has no reply."""
    last = final_answer(messages)
    return None if last is earlier else last


def report(harness: Harness, args: argparse.Namespace, stopped_by: Optional[int],
           earlier: Optional[Dict[str, Any]]) -> int:
    """Print the outcome (answer on stdout, error on stderr) and choose the exit code;
    `earlier` is the answer before this run (see answer_of_run)."""
    last = answer_of_run(harness.agent.messages, earlier)
    if stopped_by is not None:
        say("miniagent: stopped; the run was aborted.")
        return stopped_by
    if harness.stop_message:  # a run limit, a failed compaction or session write ended it
        if last is not None and last.get("stopReason") == "stop" and args.mode != "json":
            try:  # an answer received (and paid for) is never dropped: it, then the error
                show_answer(harness, args)
            except OSError as error:
                return stdout_failure(error)
        say("miniagent: " + harness.stop_message)
        return 1
    if last is None or is_failed(last):
        error = (last or {}).get("errorMessage") or "the run ended without an answer"
        say("miniagent: " + one_line(error))
        return 1
    if last.get("stopReason") == "length":
        say("miniagent: warning: the answer was cut off by the model's output token limit")
    if args.mode == "json":
        return 0
    try:
        show_answer(harness, args)
    except OSError as error:
        return stdout_failure(error)
    return 0


def show_answer(harness: Harness, args: argparse.Namespace) -> None:
    """The last answer's text on stdout (nothing in JSON mode: the events hold it)."""
    last = final_answer(harness.agent.messages)
    if args.mode != "json" and last is not None:
        print(answer_text(last, for_a_terminal=sys.stdout.isatty()), flush=True)


def answer_text(message: Dict[str, Any], for_a_terminal: bool) -> str:
    """The answer's text blocks, one per line. On a terminal, control characters are
    made visible: a model quoting a hostile file must not drive the user's terminal."""
    text = text_of(message)
    return for_terminal(text) if for_a_terminal else text
