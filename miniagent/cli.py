"""The command line: parse the options, build an Agent, run one prompt, exit.

    miniagent [OPTIONS] [PROMPT...]          (or: python -m miniagent ...)

This is the outermost layer. It reads the user's wishes (flags, the prompt words,
piped stdin), picks a model (choose.py), builds the tools and the system prompt, wires
a front end to the event bus (render.py) and runs the prompt through the harness
(automatic retries). Then it turns the outcome into an exit code:

    0   the model answered
    1   the run ended in an error (printed on stderr, one line)
    2   a usage or configuration problem (nothing was sent to a model)
    130 stopped with Ctrl-C (143 by SIGTERM, 129 by SIGHUP: 128 + the signal)
    141 stdout was closed by its reader (`miniagent ... | head -1`)

Ctrl-C stops the current run (the Agent's abort), not the program: the run ends with
an "aborted" message and we exit cleanly. A second Ctrl-C while stopping exits at once.
SIGTERM and SIGHUP do the same, so that no command the agent started outlives it.

Left out: the interactive terminal (no prompt on a terminal), sessions and resume,
which later issues add as more front ends on the same Agent and harness.
"""

import argparse
import os
import select
import shutil
import signal
import sys
import tempfile
from typing import Any, Dict, List, Optional, TextIO

from . import __version__
from .agent import Agent
from .choose import resolve
from .harness import Harness
from .httperrors import one_line
from .messages import is_failed, text_of
from .models import ConfigError, list_models
from .prompt import build_system_prompt
from .providers.scripted import demo_script, load_script, scripted_model
from .render import JsonLines, StepPrinter, final_answer, for_terminal
from .tools import ALL_TOOLS, create_tools

EXAMPLES = """\
examples:
  miniagent --demo                          offline demo: a scripted model fixes a bug
  miniagent -p "What does this repo do?"    answer on stdout (key from ANTHROPIC_API_KEY, ...)
  git diff | miniagent -p "Review this"     piped stdin is part of the prompt
  miniagent --provider ollama --model qwen2.5-coder:7b -p "Add a docstring to app.py"
  miniagent --base-url http://127.0.0.1:8080/v1 -p "hi"    any OpenAI-compatible server
  miniagent --mode json -p "List the files" events as JSON lines, for programs
  miniagent --provider scripted --script turns.json -p "go"    replay a scripted model
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="miniagent", description="A minimal coding agent: a loop, a model, four tools.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prompt", nargs="*", help="the prompt (piped stdin is added to it)")
    parser.add_argument("-p", "--print", action="store_true",
                        help="print only the final answer on stdout")
    parser.add_argument("--mode", choices=["text", "json"], default="text",
                        help="json: every event as one JSON line on stdout")
    parser.add_argument("--provider", help="anthropic, openai, openrouter, deepseek, groq, "
                        "ollama, scripted, or one from ~/.miniagent/models.json")
    parser.add_argument("--model", help="model id (default: the provider's default model)")
    parser.add_argument("--base-url", help="server URL; without --provider: an OpenAI-compatible "
                        "server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    parser.add_argument("--thinking", choices=["off", "minimal", "low", "medium", "high"],
                        default="off", help="reasoning effort for models that think")
    parser.add_argument("--list-models", action="store_true", help="list known models and exit")
    parser.add_argument("--script", metavar="FILE", help="script for --provider scripted")
    parser.add_argument("--demo", action="store_true",
                        help="run the offline demo in a fresh temporary project")
    parser.add_argument("--cwd", metavar="DIR", help="working directory for the tools")
    parser.add_argument("--tools", metavar="LIST",
                        help=f"comma-separated tools (default: read,bash,edit,write; "
                             f"available: {','.join(ALL_TOOLS)})")
    parser.add_argument("--version", action="version", version=f"miniagent {__version__}")
    return parser


def main(argv: Optional[List[str]] = None, stdin: Optional[TextIO] = None) -> int:
    args = build_parser().parse_args(argv)
    if sys.stdout is None:  # started with stdout closed (>&-): the answer would be lost
        return usage_error("stdout is closed: there is nowhere to write the answer")
    stdin = stdin or sys.stdin  # None when the process was started without one
    on_terminal = stdin is not None and stdin.isatty()
    try:
        if args.list_models:
            print(list_models(provider=args.provider))
            return 0
        prompt = "" if args.demo else read_prompt(args.prompt, None if on_terminal else stdin)
        cwd = prepare_cwd(args)
        if not prompt and not args.demo:
            return usage_error("no prompt: pass it as arguments or on stdin, or try --demo "
                               "(see --help)"
                               if not on_terminal else
                               "the interactive terminal is not built yet: pass a prompt "
                               "(miniagent -p \"...\") or try --demo")
        agent = build_agent(args, cwd)
    except (ConfigError, ValueError) as exc:
        return usage_error(str(exc))
    except KeyboardInterrupt:  # Ctrl-C while the piped prompt was still being read
        return 130
    if args.demo:
        prompt = agent.model.script.prompt
        say(f"Demo project copied to {cwd}")
    code = run(agent, prompt, args)
    if args.demo:
        say(f"The demo edited {os.path.join(cwd, 'hello.py')} (it stays on disk).")
    return code


def read_prompt(words: List[str], piped_input: Optional[TextIO]) -> str:
    """The prompt words, with piped stdin (a diff, a log) placed before them."""
    piped = piped_input.read().strip() if piped_input is not None else ""
    return "\n\n".join(part for part in (piped, " ".join(words).strip()) if part)


def prepare_cwd(args: argparse.Namespace) -> str:
    """The tools' working directory: a fresh copy of the demo project, --cwd, or here."""
    if args.demo:
        target = tempfile.mkdtemp(prefix="miniagent-demo-")
        source = os.path.join(os.path.dirname(__file__), "demo", "project")
        shutil.copytree(source, target, dirs_exist_ok=True)
        return target
    cwd = os.path.abspath(os.path.expanduser(args.cwd or os.getcwd()))
    if not os.path.isdir(cwd):
        problem = "not a directory" if os.path.exists(cwd) else "no such directory"
        raise ValueError(f"--cwd {args.cwd}: {problem}")
    return cwd


def build_agent(args: argparse.Namespace, cwd: str) -> Agent:
    """Pick the model and key, build the tools and the system prompt."""
    api_key = None
    if args.demo:
        model = scripted_model(demo_script())
    elif args.provider == "scripted" or args.script:
        if not args.script:
            raise ValueError("--provider scripted needs --script FILE")
        model = scripted_model(load_script(args.script))
    else:
        chosen = resolve(provider=args.provider, model_id=args.model, base_url=args.base_url,
                         api_key=args.api_key)
        for warning in chosen.warnings:
            say(f"miniagent: {warning}")
        model, api_key = chosen.model, chosen.api_key
        if args.thinking != "off" and not model.reasoning:
            say(f"miniagent: {model.id} does not reason; --thinking {args.thinking} is "
                f"ignored")
    names = [n.strip() for n in args.tools.split(",") if n.strip()] if args.tools else None
    tools = create_tools(names)
    return Agent(model=model, tools=tools, system_prompt=build_system_prompt(tools, cwd),
                 thinking_level=args.thinking, api_key=api_key, cwd=cwd)


# Signals that mean "stop": Ctrl-C, `kill` / `timeout`, and a closed terminal. Each
# aborts the run, so that bash kills its process group instead of leaving commands
# running after we are gone (they run in their own session: the terminal's hangup
# would not reach them).
STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
PIPE_CLOSED = 141  # the exit status of a program killed by SIGPIPE, as shells report it


def run(agent: Agent, prompt: str, args: argparse.Namespace) -> int:
    """Run the prompt with the chosen front end; a stop signal aborts the run, not the
    program: the run ends with an "aborted" message and we exit cleanly."""
    harness = Harness(agent)
    received: List[int] = []  # the stop signals that arrived
    stdout_failed: List[OSError] = []  # set when writing the JSON lines failed

    def stop(signum: int, frame: Any) -> None:
        if received:
            # A second signal: the user really wants out, now. os._exit, because a
            # normal exit would wait for tool threads (a grep of a huge file) to end.
            os._exit(128 + signum)
        received.append(signum)
        say("\nStopping... (Ctrl-C again quits at once)" if signum == signal.SIGINT
            else "\nStopping...")
        harness.abort()

    def stdout_broke(error: OSError) -> None:  # `... | head -1`, a full disk
        if not stdout_failed:
            stdout_failed.append(error)
            silence_stdout()
            harness.abort()  # no point running tools for nobody

    progress = sys.stderr or open(os.devnull, "w")  # stderr may be closed (2>&-)
    if args.mode == "json":
        agent.subscribe(JsonLines(sys.stdout, on_closed=stdout_broke))
    else:  # -p shows only retry notices, so a rate-limited minute is not silent
        agent.subscribe(StepPrinter(progress, show_steps=not args.print or args.demo))
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    harness.prompt(prompt)
    while not harness.wait(0.5):  # a timeout, so that signal handlers get to run
        # A reader that left while a tool runs quietly would be noticed only at the next
        # event, perhaps minutes later; the pipe itself can tell us now.
        if args.mode == "json" and not stdout_failed and reader_gone(sys.stdout):
            stdout_broke(BrokenPipeError())
    if stdout_failed:
        return stdout_failure(stdout_failed[0])
    return report(agent, args, 128 + received[0] if received else None)


def report(agent: Agent, args: argparse.Namespace, stopped_by: Optional[int]) -> int:
    """Print the outcome (answer on stdout, error on stderr) and choose the exit code."""
    last = final_answer(agent.messages)
    if stopped_by is not None:
        say("miniagent: stopped; the run was aborted.")
        return stopped_by
    if last is None or is_failed(last):
        error = (last or {}).get("errorMessage") or "the run ended without an answer"
        say("miniagent: " + one_line(error))
        return 1
    if last.get("stopReason") == "length":
        say("miniagent: warning: the answer was cut off by the model's output token limit")
    if args.mode == "json":
        return 0
    try:
        print(answer_text(last, for_a_terminal=sys.stdout.isatty()), flush=True)
    except OSError as error:
        return stdout_failure(error)
    return 0


def answer_text(message: Dict[str, Any], for_a_terminal: bool) -> str:
    """The answer's text blocks, one per line. On a terminal, control characters are
    made visible: a model quoting a hostile file must not drive the user's terminal."""
    text = text_of(message)
    return for_terminal(text) if for_a_terminal else text


def stdout_failure(error: OSError) -> int:
    """The exit status when stdout could not be written: a reader that went away is
    normal in a pipeline (141, silently); anything else (a full disk) is an error."""
    silence_stdout()
    if isinstance(error, BrokenPipeError):
        return PIPE_CLOSED
    say(f"miniagent: cannot write to stdout: {error.strerror or error}")
    return 1


def say(text: str) -> None:
    """A line on stderr, which may be gone already (a closed terminal, 2>&-)."""
    if sys.stderr is None:
        return
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def reader_gone(stream: TextIO) -> bool:
    """True when `stream` is a pipe whose reading end was closed: poll() reports an
    error on the writing end. A terminal or a file never does."""
    try:
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLOUT)
    except (OSError, ValueError):  # no file descriptor (a test's StringIO)
        return False
    return any(events & select.POLLERR for _, events in poller.poll(0))


def silence_stdout() -> None:
    """Point stdout at /dev/null: once writing has failed, Python's own flush at exit
    would otherwise fail again with a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    os.close(devnull)


def usage_error(text: str) -> int:
    say(f"miniagent: {text}")
    return 2
