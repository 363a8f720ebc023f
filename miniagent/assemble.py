"""Assembling a run from the command line: which session, which model, which tools.

cli.py parses the flags; this file turns them into a ready Harness (an Agent with its
model, tools and system prompt, wrapped with retries, the session file and compaction).
It answers, in this order:

  1. Where do the tools work?      --cwd, or a fresh copy of the demo project
  2. Which session?                a new one (the default), --session FILE|ID,
                                   -c (the newest here), -r (pick one), --fork FILE[:ID],
                                   or none at all (--no-session: memory only)
  3. Which model?                  flags first; else what a resumed session last used,
                                   when its provider is still usable; else
                                   models/choose.py
  4. Which project context?       trust, settings, the sandbox, extensions, skills
                                   (project/; a sandbox the kernel cannot enforce
                                   stops the run: sandbox/confine.py)
  5. Which tools and prompt?       --tools / --exclude-tools, then the system prompt
  6. Which MCP servers?            mcp.json's, connecting in the background (mcp/)

Example: `miniagent -c -p "and now the tests"` opens the newest session of this
directory, restores its model and thinking level, and appends the new turn to its file.

Everything a front end needs goes into the Harness's constructor (the project, the
prompt builder, the --confirm gate); nothing is attached to it afterwards.

Left out: the flags' definitions (cli.py) and running the prompt (modes/).
"""

import argparse
import os
from dataclasses import replace
from functools import partial
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Callable, List, Optional, TextIO, Tuple

from .agent import Agent
from .models.choose import Resolved, is_own_server, own_key, resolve
from .harness.harness import Harness
from .harness.limits import RunLimits, cost_is_known
from .core.provider import Model
from .models.registry import unknown_max_tokens
from .models.thinking import clamp_level
from .errors import ConfigError, SessionError
from .modes.output import say, stderr_on_terminal
from .modes.confirm import ConfirmGate, compose_before_hooks, no_terminal_available, terminal_asker
from .session.ids import resolve_session
from .session.tree import (Session, find_most_recent, fork_session,
                           parse_fork_argument, session_dir_for)
from .project.resources import (Project, choose_tools, known_tools_named, load_project,
                                mcp_tool_filter, system_prompt_builder)
from .project.system_prompt import render_sections
from .project.settings import Settings, config_files
from .sandbox.confine import check_enforceable
from .compaction.estimate import CompactionSettings
from .models.window import probe_server
from .modes.terminal import for_terminal

if TYPE_CHECKING:  # for the reader and a type checker only: loaded when mcp.json has servers
    from .mcp.servers import McpServers


def read_prompt(words: List[str], piped_input: Optional[TextIO]) -> str:
    """The prompt words, with piped stdin (a diff, a log) placed before them."""
    piped = piped_input.read().strip() if piped_input is not None else ""
    return "\n\n".join(part for part in (piped, " ".join(words).strip()) if part)


DEMO_PROJECT = os.path.join(os.path.dirname(__file__), "core", "demo", "project")
# pip compiles every .py it installs, the demo's hello.py too: its __pycache__ is not the demo's
NOT_DEMO_FILES = shutil.ignore_patterns("__pycache__")


def prepare_cwd(args: argparse.Namespace) -> str:
    """The tools' working directory: a fresh copy of the demo project, --cwd, or here."""
    if args.demo:
        target = tempfile.mkdtemp(prefix="miniagent-demo-")
        shutil.copytree(DEMO_PROJECT, target, dirs_exist_ok=True, ignore=NOT_DEMO_FILES)
        return target
    cwd = os.path.abspath(os.path.expanduser(args.cwd or os.getcwd()))
    if not os.path.isdir(cwd):
        problem = "not a directory" if os.path.exists(cwd) else "no such directory"
        raise ValueError(f"--cwd {args.cwd}: {problem}")
    return cwd


def build_harness(args: argparse.Namespace, cwd: str, on_terminal: bool,
                  interactive: bool = False, ask_trust=None) -> Harness:
    """Decide trust and load the project, open the session, pick the model, build the
    tools and the prompt, and wire the hooks (extensions, then --confirm)."""
    project = load_project(args, cwd, ask_trust if interactive else None)
    for warning in project.warnings:
        say(f"miniagent: warning: {warning}")
    check_enforceable(project.sandbox)  # a mode the kernel cannot hold stops here, exit 2
    if getattr(args, "plan", False) and "plan" not in project.extensions.commands:
        raise ConfigError("--plan needs the plan extension, which is not loaded; "
                          "drop --plan or load it (-e plan)")  # never a silent full-access run
    tools = choose_tools(args, project)
    if args.confirm and args.mode != "rpc" and no_terminal_available():
        raise ValueError("--confirm needs a terminal to ask on (none on stdin or /dev/tty)")
    session = open_session(args, cwd, on_terminal)
    for warning in session.warnings:
        say(f"miniagent: warning: {warning}")
    restored = session.build_context() if session.entries else None
    model, api_key = choose_model(args, restored and restored.model, project.settings)
    thinking = (args.thinking or (restored and restored.thinking_level)
                or project.settings.defaultThinkingLevel or "off")
    used = clamp_level(model, thinking)  # what runs is what the session records
    if used != thinking and args.thinking:
        say(f"miniagent: {model.id} does not reason; --thinking {thinking} is ignored"
            if not model.reasoning else
            f"miniagent: {model.id} has no thinking level {thinking}; {used} is used")
    thinking = used
    prompt_for = system_prompt_builder(args, project)
    new_agent = partial(Agent, model=model, tools=tools, thinking_level=thinking,
                        system_prompt=render_sections(prompt_for(tools)), api_key=api_key, cwd=cwd)
    gate = ConfirmGate(terminal_asker()) if args.confirm else None
    # A server given by URL can be restored from the session only with its URL.
    base_url = args.base_url
    if not (args.provider or args.model or args.base_url) and restored and restored.model:
        base_url = restored.model.get("baseUrl")
    mcp = start_mcp(args, project)
    if args.max_cost and not cost_is_known(model):
        say(f"miniagent: warning: no prices are known for {model.id}, so --max-cost "
            f"cannot apply (--max-turns can)")
    # Print mode answers and exits; the terminal compacts after a run, ready for the next.
    # The front ends need the rest: the terminal asks its own way (confirm_gate.ask),
    # lists skills and extension commands, and rebuilds the prompt when tools change.
    harness = Harness(new_agent, session, compaction=project.settings.compaction,
                      limits=RunLimits(args.max_turns, args.max_cost), base_url=base_url,
                      compact_after_run=interactive, project=project, prompt_for=prompt_for,
                      confirm_gate=gate, mcp=mcp)
    install_hooks(harness.agent, project, gate)
    project.extensions.flags = {"plan": getattr(args, "plan", False)}  # api.get_flag
    project.extensions.bind(harness, lambda names: known_tools_named(names, project))
    return harness


def start_mcp(args: argparse.Namespace, project: Project) -> Optional["McpServers"]:
    """Begin connecting the MCP servers of mcp.json (the project's only when trusted),
    unless --no-mcp; None when there is none to connect. Each failure is one warning."""
    files = config_files("mcp.json", project.home, project.cwd, project.trusted)
    if args.no_mcp or args.demo or not any(path.exists() for path in files):
        return None  # and the MCP package is never loaded (the start-up budget)
    from .mcp.config import load_servers
    configs, warnings = load_servers(project.home, project.cwd, project.trusted)
    for warning in warnings:
        say(f"miniagent: warning: {warning}")
    if not any(config.enabled for config in configs):
        return None
    from .mcp.servers import McpServers
    servers = McpServers(configs, project.cwd, project.trusted, keep=mcp_tool_filter(args),
                         on_warning=lambda line: say(f"miniagent: warning: {line}"))
    servers.start()
    return servers


def install_hooks(agent: Agent, project: Project, gate: Optional[ConfirmGate]) -> None:
    """Extensions' before-hooks first, then the --confirm question (`gate`), which shows
    the final arguments; the extensions' after-hooks; their event handlers."""
    extensions = project.extensions
    agent.before_tool_call = compose_before_hooks(extensions.before_tool_call, gate)
    agent.after_tool_call = extensions.after_tool_call
    extensions.subscribe_all(agent)


# --- Which session -------------------------------------------------------------------------

def open_session(args: argparse.Namespace, cwd: str, on_terminal: bool) -> Session:
    """The session this run appends to (see the module docstring for the choices)."""
    folder = args.session_dir or session_dir_for(cwd)
    if args.no_session or args.demo:
        return Session.create(cwd, persist=False)
    if args.fork:
        path, entry_id = parse_fork_argument(args.fork)
        return fork_session(path, entry_id, cwd=cwd, session_dir=folder)
    if args.session:
        return Session.open(resolve_session(args.session, cwd, args.session_dir), cwd=cwd,
                            session_dir=folder)
    if args.resume:
        if not on_terminal:
            raise ValueError("-r/--resume needs a terminal to pick a session; use "
                             "--session FILE|ID or -c instead")
        return Session.open(pick_session(cwd, folder), cwd=cwd, session_dir=folder)
    if args.continue_:
        newest = find_most_recent(folder)
        if newest:
            return Session.open(newest, cwd=cwd, session_dir=folder)
        say("miniagent: no earlier session in this directory; starting a new one")
    return Session.create(cwd, session_dir=folder)


def pick_session(cwd: str, folder: str) -> str:
    """-r: a numbered list of this directory's recent sessions, then a number."""
    from .modes.picker import choose_number, numbered, recent_sessions, session_row
    found = recent_sessions(cwd, folder)
    if not found:
        raise SessionError("no sessions in this directory yet")
    print(numbered([session_row(info) for info in found]), file=sys.stderr)
    chosen = choose_number(read_answer, len(found), "Resume which session?", say)
    if chosen is None:
        raise SessionError("no session chosen")
    return found[chosen].path


def read_answer(question: str) -> str:
    """A typed line, in the terminal's editor (Ctrl-C quits); closed input is an empty
    answer."""
    from .modes.interactive.screen import ask_once  # only -r asks: loaded for it alone
    return ask_once(question) or ""


# --- Which model ---------------------------------------------------------------------------

def choose_model(args: argparse.Namespace, recorded: Optional[dict],
                 settings: Settings) -> Tuple[Model, Optional[str]]:
    """The model and key (pick_model), with --max-tokens as its maxTokens for this run."""
    model, api_key = pick_model(args, recorded, settings)
    if args.max_tokens:
        model = replace(model, max_tokens=args.max_tokens)
    return model, api_key


def pick_model(args: argparse.Namespace, recorded: Optional[dict],
               settings: Settings) -> Tuple[Model, Optional[str]]:
    """The model and key. Strongest first: the flags, what a resumed session last used
    (when its provider is still usable), settings.json, the registry's default."""
    if args.demo or args.provider == "scripted" or args.script:
        return scripted_choice(args)
    announce = announcer()
    flags_given = args.provider or args.model or args.base_url
    if recorded and not flags_given and recorded.get("provider") != "scripted":
        try:
            chosen = restore_model(recorded, args.api_key, announce)
        except ConfigError as exc:
            say(f"miniagent: cannot restore the session's model {recorded.get('provider')}/"
                f"{recorded.get('modelId')} ({exc}); choosing as usual")
        else:
            return probe_window_or_warn(chosen, announce, settings.compaction)
    if flags_given or not (settings.defaultProvider or settings.defaultModel):
        return probe_window_or_warn(resolve(provider=args.provider, model_id=args.model,
                                            base_url=args.base_url, api_key=args.api_key,
                                            on_ask=announce), announce, settings.compaction)
    try:  # settings.json's choice, used only when no flag names a model or a server
        chosen = resolve(provider=settings.defaultProvider, model_id=settings.defaultModel,
                         api_key=args.api_key, on_ask=announce)
    except ConfigError as exc:
        raise ConfigError(f"settings.json (defaultProvider {settings.defaultProvider!r}, "
                          f"defaultModel {settings.defaultModel!r}): {exc}") from None
    return probe_window_or_warn(chosen, announce, settings.compaction)


def scripted_choice(args: argparse.Namespace) -> Tuple[Model, None]:
    """The offline model: the demo's script, or --script FILE's (loaded only then)."""
    from .core.scripted import demo_script, scripted_model
    from .providers.scripts import load_script  # a user's file, checked
    if args.demo:
        return scripted_model(demo_script()), None
    if not args.script:
        raise ValueError("--provider scripted needs --script FILE")
    return scripted_model(load_script(args.script)), None


def announcer() -> Callable[[str], None]:
    """What says, once per server, that start-up is waiting for it: a server that never
    answers would otherwise leave a blank screen for seconds. The line is for a person
    watching (stderr on a terminal); a script's log is spared it. Ctrl-C stops the wait
    (cli.start turns it into exit status 130)."""
    told = set()

    def announce(url: str) -> None:
        if url not in told and stderr_on_terminal():
            told.add(url)
            say(f"miniagent: asking {for_terminal(url)} about the models it serves... "
                f"(Ctrl-C to stop)")
    return announce


def restore_model(recorded: dict, api_key: Optional[str],
                  on_ask: Optional[Callable[[str], None]] = None) -> Resolved:
    """The model a session file records. Its baseUrl is data from a file that may come
    from anyone, so it gets the user's key only when it is the user's own server for
    that provider; any other is called with no key, and one line says so."""
    provider, url = recorded.get("provider"), recorded.get("baseUrl")
    if not isinstance(provider, str) or not isinstance(url, (str, type(None))):
        raise ConfigError("its provider or baseUrl is not text")
    keyless = bool(url) and not is_own_server(provider, url)
    if keyless and own_key(provider, api_key):
        say(f"miniagent: the session's server {for_terminal(url)} is not one you configured "
            f"for {provider}, so it gets no API key (name it with --base-url to send yours)")
    return resolve(provider=provider, model_id=recorded.get("modelId"), base_url=url,
                   api_key=None if keyless else api_key, keyless=keyless, on_ask=on_ask)


def model_for(harness: Harness, provider: str, model_id: str) -> Tuple[Resolved, Optional[str]]:
    """Another model for a running session (the terminal's /model, rpc's set_model), and
    the base URL to record with it: a model of the same provider keeps its server and
    key; another provider is chosen as `--provider NAME --model ID` would choose it."""
    current = harness.agent.model
    if provider != current.provider:
        return resolve(provider=provider, model_id=model_id), None
    chosen = resolve(provider=provider, model_id=model_id, base_url=current.base_url or None,
                     api_key=harness.agent.api_key)
    return chosen, harness.base_url


def probe_window_or_warn(chosen: Resolved, on_ask: Optional[Callable[[str], None]] = None,
                         compaction: Optional[CompactionSettings] = None
                         ) -> Tuple[Model, Optional[str]]:
    """The chosen model, with the window its server serves when the registry does not
    know the model: the answer remembered from an earlier run (models/window_cache.py),
    or asked of the server (models/window.py; on_ask(url) hears first) and remembered,
    its having none too; when there is one, the guess's warnings are not needed,
    otherwise they are printed the first time the model is used (window_cache.py); and one line warns when its chat template cannot
    call tools (llama.cpp's /props). Such a model's replies are bounded by
    registry.unknown_max_tokens, within `compaction`'s reserve for that window."""
    model = chosen.model
    window = None
    for notice in chosen.notices:
        say(f"miniagent: {notice}")
    if not chosen.known and model.api == "openai-completions":
        from .models.window_cache import known_tools, known_window, remember_window  # only here
        window = known_window(model.base_url, model.id)
        if window is None:
            if on_ask is not None:
                on_ask(model.base_url)
            served = probe_server(model.base_url, model.id, chosen.api_key)
            window = served.window or 0  # 0: none served, not asked again
            remember_window(model.base_url, model.id, window, served.tools)
        if not known_tools(model.base_url, model.id):
            say(f"miniagent: warning: the chat template of {for_terminal(model.base_url)} "
                f"cannot call tools, so {for_terminal(model.id)} will only answer in text "
                f"(give llama-server a --chat-template-file that handles tools)")
    if window:
        model = replace(model, context_window=window)
    elif chosen.warnings:
        from .models.window_cache import first_warning  # only here
        for warning in chosen.warnings if first_warning(model.base_url, model.id) else []:
            say(f"miniagent: {warning}")
    if not chosen.known:
        reserve, _ = (compaction or CompactionSettings()).for_window(model.context_window)
        model = replace(model, max_tokens=unknown_max_tokens(model.context_window, reserve))
    return model, chosen.api_key
