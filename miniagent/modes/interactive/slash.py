"""Slash commands: the lines of the REPL that talk to miniagent instead of the model.

A line is a command only when its first word is `/` followed by letters, digits and
dashes. Everything else is a prompt, so paths and jokes reach the model untouched:

    /model gpt-4.1          command "model", argument "gpt-4.1"
    /etc/hosts is wrong     a prompt (the first word has a second "/")
    //help                  the prompt "/help" (a doubled slash escapes the command)
    /frobnicate             "unknown command": a hint, and nothing is sent
    /hepl                   "unknown command /hepl: did you mean /help?"

The table is a plain dict, name -> SlashCommand(run, description, aliases): `/clear`
runs `/new` and `/exit` runs `/quit`, the names other agents taught their users. A
command that is not known gets the nearest known names (difflib's close matches). A
command is a short
function taking the REPL and the rest of the line (interactive_mode.py's `Repl`: it has
`harness`, `agent`, `running`, `note(text, style=None)`, `send(text)` (run a prompt to
its end), `queue(text, follow_up=False)`, `run_work(fn)` (run fn(abort) so that Ctrl-C
stops it), `for_input` (text put in the next input line) and `exit_code` (set it to
leave)). Adding one is two steps:

    def show_cwd(repl, argument):
        repl.note(repl.agent.cwd)

    SLASH_COMMANDS["cwd"] = SlashCommand(show_cwd, "show the working directory")

While the agent works, only the commands in WHILE_RUNNING are run; any other line is
a steering message. The session commands (/session, /compact, /resume, /tree, ...) are
in slash_session.py and /model in slash_model.py; an extension's commands
(extensions.py) come after the table's, and `/skill:name ARGS` sends a skill's
instructions with ARGS (the REPL expands a prompt as print and rpc modes do:
attach.expand_prompt).

`command_items` lists the commands with their help for Tab (completion.py).

Left out: aliases of the user's own, prompt templates.
"""

import difflib
import re
import shutil
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Tuple)

from . import slash_session
from .slash_model import change_model
from ...files.home import miniagent_home
from ...extensions import listing
from ...models.thinking import LEVELS as THINKING_LEVELS
from ...project.resources import listed_names, tools_named
from ...project.trust import is_trusted, project_has_resources, record_trust
from ...sandbox import MODES
from ...sandbox.confine import Sandbox, sandbox_of

if TYPE_CHECKING:  # the REPL the commands drive (it imports this module)
    from .interactive_mode import Repl

COMMAND_WORD = re.compile(r"/[A-Za-z0-9-]+")


class CommandLine(NamedTuple):
    """A line that is a command: "/model gpt-4.1" -> name "model", argument "gpt-4.1"."""
    name: str
    argument: str


class SlashCommand(NamedTuple):
    """One entry of the table: what runs, the line /help shows for it, other names."""
    run: Callable[["Repl", str], None]
    description: str
    aliases: Tuple[str, ...] = ()


def parse_command(line: str) -> Optional[CommandLine]:
    """The command and its argument if the line is a command, else None.

    Examples: "/model  gpt-4.1" -> ("model", "gpt-4.1"); "/quit" -> ("quit", "");
              "/etc/hosts is wrong" -> None; "//text" -> None
    """
    words = line.strip().split(None, 1)
    if not words or not COMMAND_WORD.fullmatch(words[0]):
        return None
    return CommandLine(words[0][1:], words[1].strip() if len(words) > 1 else "")


def as_prompt(line: str) -> str:
    """The text a non-command line sends: a leading "//" stands for "/"."""
    return line[1:] if line.startswith("//") else line


def run_command(repl: "Repl", command: CommandLine) -> None:
    """Run a command line: the table's command (by name or alias), else an
    extension's, else a hint naming the nearest known commands."""
    name, argument = canonical_name(command.name), command.argument
    if name in SLASH_COMMANDS:
        SLASH_COMMANDS[name].run(repl, argument)
    elif name in repl.extension_commands:
        run_extension_command(repl, name, argument)
    else:
        known = [*SLASH_COMMANDS, *all_aliases(), *repl.extension_commands]
        repl.note(unknown_command_text(name, known))


def canonical_name(name: str) -> str:
    """The table's name for an alias ("clear" -> "new"); any other name unchanged."""
    return next((table_name for table_name, command in SLASH_COMMANDS.items()
                 if name in command.aliases), name)


def all_aliases() -> Iterable[str]:
    return (alias for command in SLASH_COMMANDS.values() for alias in command.aliases)


def unknown_command_text(name: str, known: Iterable[str]) -> str:
    """What an unknown command gets: the nearest known names, else where to look.

    Examples: ("hepl", [..."help"...]) -> "unknown command /hepl: did you mean /help?"
              ("nme", [..."name", "new"...]) -> "... did you mean /name or /new?"
    """
    near = difflib.get_close_matches(name, list(known), n=3)
    if near:
        return f"unknown command /{name}: did you mean {' or '.join('/' + n for n in near)}?"
    return (f"unknown command /{name}: /help lists the commands (start the line with // "
            f"to send it to the model as it is)")


# --- The commands ----------------------------------------------------------------------------

def show_help(repl: "Repl", argument: str) -> None:
    width = max(len(name) for name in SLASH_COMMANDS) + 2
    lines = [f"  /{name:<{width}}{command.description}{also_named(command)}"
             for name, command in SLASH_COMMANDS.items()]
    lines += [f"  /{name:<{width}}{command.description} (from {command.source})"
              for name, command in repl.extension_commands.items()]
    lines += [f"  /skill:{skill.name:<{max(1, width - 6)}}{skill.description}"
              for skill in repl.skills]
    lines += ["", "  @path         attach a file to the prompt (text or an image)",
              "  !command      run it in the shell; the model sees the output (!! it does not)",
              "  //text        send a line that starts with /",
              "  Ctrl-J        a new line (or \\ then Enter); Tab completes /commands, @paths",
              "  Esc, Ctrl-C   stop the agent; Ctrl-C at an empty prompt twice: quit",
              "  Enter         while the agent works: queue a steering message",
              "  Alt+Enter     while the agent works: queue a follow-up (or /followup)",
              "  Ctrl+O        show the last folded tool result whole",
              "  Ctrl+V        paste the clipboard's image (through wl-paste or xclip)"]
    repl.note("\n".join(lines))


def also_named(command: SlashCommand) -> str:
    """Example: the aliases ("clear",) -> " (alias /clear)"."""
    if not command.aliases:
        return ""
    return f" (alias {', '.join('/' + alias for alias in command.aliases)})"


def command_items(extension_commands: Mapping[str, Any],
                  skills: Sequence[Any]) -> List[Tuple[str, str]]:
    """What Tab offers after "/" (completion.py): each command with its line of help,
    the aliases too (a user of other agents types "/cl" for /clear), then the
    extensions' commands and the skills.

    Example: [("/help", "list the commands"), ..., ("/clear", "start a new session
    (same as /new)"), ..., ("/skill:review", "review the staged change")]
    """
    items = [(f"/{name}", command.description) for name, command in SLASH_COMMANDS.items()]
    items += [(f"/{alias}", f"{command.description} (same as /{name})")
              for name, command in SLASH_COMMANDS.items() for alias in command.aliases]
    items += [(f"/{name}", command.description) for name, command in extension_commands.items()]
    items += [(f"/skill:{skill.name}", skill.description) for skill in skills]
    return items


def set_thinking(repl: "Repl", argument: str) -> None:
    agent = repl.agent
    if not argument:
        repl.note(f"thinking: {agent.thinking_level} (levels: {', '.join(THINKING_LEVELS)})")
        return
    if argument not in THINKING_LEVELS:
        repl.note(f"unknown level '{argument}': use one of {', '.join(THINKING_LEVELS)}")
        return
    level = repl.harness.set_thinking(argument)
    if level != argument:  # clamped to the model's levels (models/thinking.py)
        lacks = "does not reason" if not agent.model.reasoning else f"has no level {argument}"
        repl.note(f"thinking: {level} ({agent.model.id} {lacks})")
    else:
        repl.note(f"thinking: {level}")


def list_tools(repl: "Repl", argument: str) -> None:
    """/tools: the active tools; /tools read,grep: only these from now on, /tools +ls:
    one more (the system prompt is rebuilt to match)."""
    if argument and repl.harness.project is not None:
        project, active = repl.harness.project, [tool.name for tool in repl.agent.tools]
        try:
            tools = tools_named(listed_names(argument, active, project, "/tools"), project)
        except ValueError as exc:
            repl.note(str(exc))
            return
        repl.harness.set_tools(tools)
    lines = [f"  {tool.name:<6} {tool.description.split('. ')[0].strip()}"
             for tool in repl.agent.tools]
    repl.note("\n".join(lines) or "no tools: the model can only talk")


def show_mcp(repl: "Repl", argument: str) -> None:
    """/mcp: this run's MCP servers, their state, tools and errors (as `miniagent mcp
    list` shows them, without connecting again)."""
    servers = repl.harness.mcp
    if servers is None:
        repl.note("no MCP servers in this run (miniagent mcp add NAME -- CMD ARGS... adds "
                  "one to ~/.miniagent/mcp.json; --no-mcp turns them off)")
        return
    from ...subcommands.mcp_command import status_lines
    columns = shutil.get_terminal_size((100, 24)).columns
    repl.note("\n".join(status_lines(servers.statuses(), columns - 1)))


def queue_follow_up(repl: "Repl", argument: str) -> None:
    if not argument:
        repl.note("usage: /followup TEXT (sent when the agent has finished)")
    elif repl.running:
        repl.queue(argument, follow_up=True)
    else:
        repl.send(argument)  # nothing to wait for: it is simply the next prompt


def show_or_set_trust(repl: "Repl", argument: str) -> None:
    """/trust, /trust yes|no: whether this project's .miniagent/ folder may load."""
    cwd, home = repl.agent.cwd, miniagent_home()
    if argument in ("yes", "no"):
        record_trust(cwd, argument == "yes", home)
        repl.note(f"recorded: {cwd} is {'trusted' if argument == 'yes' else 'not trusted'}"
                  f"; this takes effect when miniagent next starts here")
        return
    if argument:
        repl.note("usage: /trust shows it; /trust yes or /trust no changes it")
        return
    decided = is_trusted(cwd, home)
    state = {True: "trusted", False: "not trusted", None: "undecided (not trusted)"}[decided]
    resources = ("its .miniagent/ folder has resources to load" if project_has_resources(cwd)
                 else "its .miniagent/ folder has nothing to load")
    repl.note(f"{cwd}: {state}; {resources}. /trust yes or /trust no changes it")


def reset_confirm(repl: "Repl", argument: str) -> None:
    """/confirm: the tools answered "a" (always) are asked about again."""
    gate = repl.harness.confirm_gate
    if gate is None:
        repl.note("--confirm is off: nothing is asked (start miniagent with --confirm)")
        return
    names = gate.reset_always()
    repl.note(f"--confirm asks again before each {' and '.join(names)} call" if names else
              "--confirm: no tool was always allowed; every call is asked about")


def show_or_set_sandbox(repl: "Repl", argument: str) -> None:
    """/sandbox: the mode and where commands may write; /sandbox MODE: another mode for
    the rest of the session, if the kernel can enforce it (sandbox/confine.py)."""
    sandbox = sandbox_of(repl.harness)
    if argument and not isinstance(sandbox, Sandbox):
        repl.note("this run has no sandbox to change")
        return
    if argument not in ("",) + MODES:
        repl.note(f"usage: /sandbox shows it; /sandbox {'|'.join(MODES)} changes it")
        return
    problem = sandbox.change(argument) if argument else None
    if problem:
        repl.note(problem, "red")
        return
    roots = sandbox.state()["writableRoots"]
    repl.note(f"sandbox: {sandbox.describe()}" +
              (f"\n  writable: {', '.join(roots)}" if roots else ""))


def run_extension_command(repl: "Repl", name: str, argument: str) -> None:
    command = repl.extension_commands[name]
    try:
        said = command.run(argument)
    except Exception as error:  # an extension's bug must not end the REPL
        repl.note(f"/{name} (from {command.source}) failed: {type(error).__name__}: "
                  f"{error}", "red")
        return
    if isinstance(said, str) and said:
        repl.note(said)


def show_extensions(repl: "Repl", argument: str) -> None:
    loaded = repl.harness.project.extensions.loaded if repl.harness.project else []
    repl.note("\n".join(listing(loaded)))


def quit_repl(repl: "Repl", argument: str) -> None:
    repl.exit_code = 0
    repl.harness.abort()  # when the agent works: stop it before leaving


SLASH_COMMANDS: Dict[str, SlashCommand] = {
    "help": SlashCommand(show_help, "list the commands"),
    "model": SlashCommand(change_model,
                          "[N|NAME] pick a model (the usable ones first), or switch to one"),
    "thinking": SlashCommand(set_thinking, "[LEVEL] show or set the reasoning effort"),
    "tools": SlashCommand(list_tools,
                          "[LIST] show the tools the model may call, or choose them"),
    "session": SlashCommand(slash_session.show_session,
                            "the session's file, id, messages, tokens and cost"),
    "name": SlashCommand(slash_session.name_session, "NAME give the session a name"),
    "compact": SlashCommand(slash_session.compact_now,
                            "[FOCUS] summarise the older conversation now"),
    "new": SlashCommand(slash_session.start_new_session, "start a new session", ("clear",)),
    "resume": SlashCommand(slash_session.resume_session,
                           "[QUERY] continue another session of this project"),
    "fork": SlashCommand(slash_session.fork_session,
                         "a new session from before one of this branch's prompts"),
    "tree": SlashCommand(slash_session.show_tree,
                         "[ID] show the session's branches, or move to an entry"),
    "export": SlashCommand(slash_session.export_session,
                           "[FILE.md|FILE.html] write the session out"),
    "search": SlashCommand(slash_session.search, "WORDS find them in this project's sessions"),
    "mcp": SlashCommand(show_mcp, "the MCP servers: state, tools, errors"),
    "extensions": SlashCommand(show_extensions, "the bundled extensions (on or off) and files"),
    "trust": SlashCommand(show_or_set_trust, "[yes|no] show or change this project's trust"),
    "sandbox": SlashCommand(show_or_set_sandbox,
                            "[off|read-only|workspace] show or change what confines commands"),
    "confirm": SlashCommand(reset_confirm, "ask again about the tools --confirm always allows"),
    "followup": SlashCommand(queue_follow_up,
                             "TEXT queue a message for when the agent is done"),
    "quit": SlashCommand(quit_repl, "leave (also Ctrl-D)", ("exit",)),
}
WHILE_RUNNING = ("followup", "quit")
