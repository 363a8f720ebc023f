"""The command line: parse the options, then hand over to the right front end.

    miniagent [OPTIONS] [PROMPT...]          (or: python -m miniagent ...)
    miniagent sessions | stats | ...         subcommands (subcommands/dispatch.py)

This is the outermost layer (after launch.py, which answers `--version` with nothing
imported) and the shortest route through the program:

    a subcommand as the first word?   -> subcommands/dispatch.py (no model, no HTTP library)
    parse the flags                   -> build_parser() below
    assemble the run                  -> assemble.py: session, model, tools, prompt
    run it                            -> modes/print_mode.py (print / JSON),
                                         modes/interactive/ (the terminal) or
                                         modes/rpc/ (--mode rpc)

Exit statuses (shared by every front end): 0 answered, 1 the run or a session failed,
2 a usage or configuration problem (nothing was sent to a model), 130 Ctrl-C, 143
SIGTERM, 129 SIGHUP, 141 stdout closed by its reader.

Left out: everything the flags switch on lives in the files named above; this one only
names the flags and dispatches.
"""

import argparse
import gc
import os
import signal
import sys
from typing import List, Optional, TextIO

from .errors import STOP_SIGNALS, ConfigError, QuitNow
from .models.thinking import LEVELS
from .launch import VERSION
from .modes.output import ArgumentParser, redact_stderr, say, stdout_failure, usage_error

NO_PROMPT = "no prompt: pass it as arguments or on stdin, or try --demo (see --help)"
SUBCOMMANDS = ("sessions", "stats", "export", "script", "mcp", "eval")

EXAMPLES = """\
examples:
  miniagent --demo                          offline demo: a scripted model fixes a bug
  miniagent -p "What does this repo do?"    answer on stdout (key from ANTHROPIC_API_KEY, ...)
  git diff | miniagent -p "Review this"     piped stdin is part of the prompt
  miniagent -c -p "Now add tests"           continue this directory's newest session
  miniagent --provider ollama --model qwen2.5-coder:7b -p "Add a docstring to app.py"
  miniagent --base-url http://127.0.0.1:8080/v1 -p "hi"    any OpenAI-compatible server
  miniagent --mode json -p "List the files" events as JSON lines, for programs
  miniagent --sandbox workspace             commands write only the project and temp folders
  miniagent --provider scripted --script turns.json -p "go"    replay a scripted model
  miniagent sessions                        this directory's sessions, newest first
  miniagent stats SESSION.jsonl             prompts, tool calls, tokens and cost
  miniagent sessions search "x509 error"    find where something was said
  miniagent export SESSION.jsonl            the session as one HTML page
  miniagent script SESSION.jsonl            a script that replays it offline
  miniagent mcp add time -- uvx mcp-server-time    an MCP server's tools in every run
  miniagent eval basic --model gpt-4o-mini  the built-in suite of coding tasks, checked
"""


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="miniagent", description="A minimal coding agent: a loop, a model, and tools.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("prompt", nargs="*", help="the prompt (piped stdin is added to it)")
    parser.add_argument("-p", "--print", action="store_true",
                        help="print only the final answer on stdout")
    parser.add_argument("--mode", choices=["text", "json", "rpc"], default="text",
                        help="json: every event as one JSON line on stdout; rpc: JSON "
                             "commands on stdin, events and responses on stdout")
    add_model_flags(parser)
    add_session_flags(parser)
    parser.add_argument("--max-turns", type=parse_positive_int, metavar="N",
                        help="stop after N model requests (per prompt in the terminal)")
    parser.add_argument("--max-cost", type=parse_cost, metavar="USD",
                        help="stop once the replies cost this many dollars")
    parser.add_argument("--list-models", action="store_true", help="list known models and exit")
    parser.add_argument("--script", metavar="FILE", help="script for --provider scripted")
    parser.add_argument("--demo", action="store_true",
                        help="run the offline demo in a fresh temporary project")
    parser.add_argument("--cwd", metavar="DIR", help="working directory for the tools")
    add_project_flags(parser)
    parser.add_argument("--version", action="version", version=VERSION)
    return parser


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", help="anthropic, openai, openrouter, deepseek, groq, "
                        "ollama, scripted, or one from ~/.miniagent/models.json")
    parser.add_argument("--model", help="model id (default: the provider's default model)")
    parser.add_argument("--base-url", help="server URL; without --provider: an OpenAI-compatible "
                        "server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    parser.add_argument("--max-tokens", type=parse_positive_int, metavar="N",
                        help="tokens one reply may write (default: the model's maxTokens; for "
                             "a model the registry does not know, a quarter of its window, "
                             "at most 16,384)")
    parser.add_argument("--thinking", choices=LEVELS,
                        help="reasoning effort for models that think (default: off, or what "
                             "a resumed session used)")


def add_project_flags(parser: argparse.ArgumentParser) -> None:
    from .tools import ALL_TOOLS  # here, not at the top: `--version` never builds a parser
    tools = parser.add_mutually_exclusive_group()
    tools.add_argument("--tools", metavar="LIST",
                       help=f"comma-separated tools (default: read,bash,edit,write; "
                            f"available: {','.join(ALL_TOOLS)})")
    tools.add_argument("--no-tools", action="store_true", help="no tools at all")
    parser.add_argument("--exclude-tools", metavar="LIST", help="tools to leave out")
    parser.add_argument("--confirm", action="store_true",
                        help="ask before bash, edit and write run (y / n / a: always)")
    parser.add_argument("--plan", action="store_true",
                        help="start in plan mode: read-only tools, the model answers with a "
                             "plan (the plan extension)")
    parser.add_argument("--sandbox", choices=["off", "read-only", "workspace"],
                        help="confine commands, write and edit (Linux Landlock): read-only "
                             "writes nowhere, workspace writes the project and temp folders "
                             "(default: settings.json's sandbox.mode, else off)")
    parser.add_argument("--sandbox-net", action="store_true",
                        help="let sandboxed commands open network connections")
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument("--approve", action="store_true",
                       help="trust this project's .miniagent/ for this run (not recorded)")
    trust.add_argument("--no-approve", action="store_true",
                       help="do not load this project's .miniagent/ for this run")
    parser.add_argument("-e", "--extension", action="append", metavar="NAME|FILE",
                        help="load a bundled extension by name (see /extensions) or a "
                             "Python file with setup(api); repeatable")
    parser.add_argument("--no-extension", action="append", metavar="NAME", default=[],
                        help="leave out a bundled extension that is on by default; repeatable")
    parser.add_argument("--no-extensions", action="store_true",
                        help="load no extension files (from ~/.miniagent, the project or "
                             "settings); bundled ones stay as they are")
    parser.add_argument("--no-mcp", action="store_true",
                        help="connect no MCP server (mcp.json) and offer no MCP tool")
    parser.add_argument("--system-prompt", metavar="TEXT|FILE",
                        help="replace the opening of the system prompt")
    parser.add_argument("--append-system-prompt", metavar="TEXT|FILE",
                        help="add text to the system prompt")


def add_session_flags(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()  # one way to choose the session
    which.add_argument("--session", metavar="FILE|ID", type=non_empty,
                       help="open this session file (created if missing) or session id prefix")
    which.add_argument("--no-session", action="store_true",
                       help="keep the conversation in memory only")
    which.add_argument("-c", "--continue", dest="continue_", action="store_true",
                       help="continue the newest session of this directory")
    which.add_argument("-r", "--resume", action="store_true",
                       help="pick one of this directory's sessions to continue")
    which.add_argument("--fork", metavar="FILE[:ENTRY]", type=non_empty,
                       help="start a new session from a copy of FILE (up to ENTRY)")
    parser.add_argument("--session-dir", metavar="DIR",
                        help="where session files go (default: ~/.miniagent/sessions/<cwd>)")


def parse_positive_int(value: str) -> int:
    """argparse type for --max-turns and --max-tokens: a whole number of at least 1."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1 (got {value!r})")
    return number


def parse_cost(value: str) -> float:
    """argparse type for --max-cost: US dollars, more than zero."""
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of dollars > 0 (got {value!r})")
    return number


def non_empty(value: str) -> str:
    """argparse type: a file name or id may not be empty (`--session ""`)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def main(argv: Optional[List[str]] = None, stdin: Optional[TextIO] = None) -> int:
    """Run the command line `argv` (None: this process's own, as the console script and
    `python -m miniagent` do) and return the exit status.

    A caller passing argv keeps its process to itself, and may call main() again: the
    stop-signal handlers a run installs are put back afterwards, and a second stop
    signal returns its status instead of ending the process."""
    own_process = argv is None
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    try:
        return run_command_line(sys.argv[1:] if own_process else argv, stdin, own_process)
    except QuitNow as quit:  # a second stop signal (tools/hardening/reaper.py)
        if own_process:
            from .tui.terminal import restore_all  # os._exit skips atexit and finally
            restore_all()
            os._exit(quit.code)  # not waiting for threads: one may be deep in a huge file
        return quit.code
    finally:
        if not own_process:
            for signum, handler in before.items():
                signal.signal(signum, handler)


def run_command_line(argv: List[str], stdin: Optional[TextIO], own_process: bool) -> int:
    """main()'s work: a subcommand, the cheap flags, or a run."""
    redact_stderr()  # before any key is read: no line on stderr may carry it
    if argv and argv[0] in SUBCOMMANDS:  # only as the first word: "-- stats" is a prompt
        if own_process and argv[0] == "mcp":  # `mcp list` starts servers: a run's sweep
            from .tools.hardening.reaper import adopt_orphans
            adopt_orphans()
        from .subcommands.dispatch import run_subcommand
        try:
            return run_subcommand(argv[0], argv[1:])
        except BrokenPipeError as error:  # `miniagent sessions | head -1`
            return stdout_failure(error)
    args = build_parser().parse_args(argv)
    if sys.stdout is None:  # started with stdout closed (>&-): the answer would be lost
        return usage_error("stdout is closed: there is nowhere to write the answer")
    stdin = stdin or sys.stdin  # None when the process was started without one
    on_terminal = stdin is not None and stdin.isatty()
    if args.list_models:
        from .models.registry import list_models
        try:
            print(list_models(provider=args.provider))
        except ConfigError as exc:
            return usage_error(str(exc))
        return 0
    return start(args, stdin, on_terminal, own_process)


def expand(harness, text: str):
    """A prompt as the terminal would send it: a /skill:name inlined, @path files
    attached (a file that cannot be is named in a warning, and the word stays)."""
    from .modes.attach import expand_prompt
    prompt, warnings = expand_prompt(text, harness.agent.cwd, harness.project.skills,
                                     "image" in harness.agent.model.input)
    for warning in warnings:
        say(f"miniagent: warning: {warning}")
    return prompt


def says_it_cannot_fit(harness) -> bool:
    """One line, before any request, when the system prompt and tools alone exceed the
    model's window (compaction/overhead.py); True then."""
    from .compaction.overhead import overhead_too_big
    agent = harness.agent
    line = overhead_too_big(agent.system_prompt, agent.tools, agent.model.context_window)
    if line:
        say(f"miniagent: {line}")
    return line is not None


def start(args: argparse.Namespace, stdin: Optional[TextIO], on_terminal: bool,
          own_process: bool = False) -> int:
    """Assemble the run (a Harness, assemble.py) and hand it to its front end: rpc
    (--mode rpc), the terminal (a terminal on both ends, no -p), or print / JSON mode
    for the rest, whose prompts (the argument, a piped stdin, the demo's or a replayed
    script's) are expanded first as the terminal would (/skill:name, @path). Returns
    the exit status. The model and session machinery is imported here, after the cheap
    flags have been answered.

    When the process is ours (`own_process`), nothing its commands start may outlive
    it: it adopts their orphans and sweeps them up at exit (tools/hardening/reaper.py);
    and what start-up built is frozen out of the garbage collector's sight (gc.freeze)."""
    if own_process:
        from .tools.hardening.reaper import adopt_orphans
        adopt_orphans()
    from .assemble import build_harness, prepare_cwd, read_prompt
    from .errors import SessionError
    try:
        rpc = args.mode == "rpc"  # stdin carries the protocol, never the prompt
        prompt = "" if args.demo or rpc else read_prompt(args.prompt,
                                                         None if on_terminal else stdin)
        cwd = prepare_cwd(args)
        interactive = (on_terminal and sys.stdout.isatty() and not args.print
                       and args.mode == "text")
        if not (prompt or args.demo or interactive or rpc or args.script):
            return usage_error(NO_PROMPT)
        ask_trust = None
        if interactive:  # the terminal asks once about an undecided project's .miniagent/
            from .modes.interactive.questions import ask_trust
        harness = build_harness(args, cwd, on_terminal, interactive, ask_trust)
    except (ConfigError, ValueError) as exc:
        return usage_error(str(exc))
    except SessionError as exc:
        say(f"miniagent: {exc}")
        return 1
    except KeyboardInterrupt:  # Ctrl-C while the piped prompt or a server was awaited
        return 130
    if own_process:  # what start-up built lives until exit: no collection need scan it
        gc.freeze()  # again, nor the interpreter's at exit (tens of ms on every run)
    try:
        return run_front_end(harness, args, prompt, cwd, interactive, rpc)
    finally:
        harness.close()  # the MCP servers stop: no process of theirs is left


def run_front_end(harness, args: argparse.Namespace, prompt: str, cwd: str,
                  interactive: bool, rpc: bool) -> int:
    """The assembled run, handed to rpc, the terminal, or print / JSON mode."""
    from .errors import SkillError
    from .modes.print_mode import run
    if says_it_cannot_fit(harness) and not (interactive or rpc):
        return 1  # every request would fail; the terminal stays open for /model
    if rpc:
        from .modes.rpc.rpc_mode import run_rpc
        return run_rpc(harness)
    if interactive:
        from .modes.interactive.interactive_mode import run_interactive
        project = harness.project
        script = harness.agent.model.script  # a replayed session plays its prompts
        if args.demo:  # the demo plays its prompt in the REPL, which then stays open
            say(f"Demo project copied to {cwd}")
        return run_interactive(harness, args, prompt, skills=project.skills,
                               extension_commands=project.extensions.commands,
                               confirm_gate=harness.confirm_gate,
                               replay=[script.prompt] if args.demo else
                               script.prompts if script else ())
    prompts = [prompt] if prompt else []
    if args.demo:
        prompts = [harness.agent.model.script.prompt]
        say(f"Demo project copied to {cwd}")
    elif not prompts:  # a replayed session: its recorded prompts, in order
        prompts = harness.agent.model.script.prompts
        if not prompts:
            return usage_error(NO_PROMPT + "; the script has no \"prompts\" to play")
    try:
        prompts = [expand(harness, text) for text in prompts]  # /skill:name, @path
    except SkillError as exc:
        return usage_error(str(exc))
    code = run(harness, prompts, args)
    if args.demo:
        say(f"The demo edited {os.path.join(cwd, 'hello.py')} (it stays on disk).")
    return code
