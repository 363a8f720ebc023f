"""The project a run works in: trust first, then what the project may bring.

A cloned repository can carry a `.miniagent/` folder with settings, skills, extensions
(Python code!) and a SYSTEM.md. Loading those is running someone else's code and
instructions, so the order matters:

    1. trust      --approve / --no-approve, else trust.json, else (terminal) ask once
    2. settings   global, then the project's when trusted (the project wins; its
                  sandbox may only be narrower), and the sandbox (flags over settings)
    3. extensions the bundled ones on by default, the global folder's, the project's
                  when trusted, settings' list, then each -e NAME|FILE
    4. tools      --tools / --exclude-tools / --no-tools, else settings, else the
                  defaults (+name / -name change them, `*` matches); names are checked
                  after extensions registered theirs
    5. skills and the system prompt (AGENTS.md files are read in every case: they are
                  text, shown to the model as the project's instructions)

Example: in an untrusted clone, `miniagent -p "..."` reads its AGENTS.md but imports
none of its extensions; `miniagent --approve -p "..."` loads them for that run only.

Left out: the rules themselves (trust.py, settings.py, extensions.py, skills.py,
system_prompt.py); this file only puts them in order for assemble.py.
"""

import argparse
from fnmatch import fnmatchcase
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from ..errors import ConfigError
from .extensions import Extensions
from ..files.home import miniagent_home
from .system_prompt import Sections, build_prompt_sections, read_text_or_file
from .settings import (Settings, config_files, extension_source, is_bundled_name,
                       load_settings)
from ..tools import ALL_TOOLS, DEFAULT_TOOLS, Unconfined, create_tools
from ..core.tools import Tool
from .trust import resolve_trust
from ..sandbox.confine import sandbox_for

if TYPE_CHECKING:  # the reader's and a type checker's: loaded only when skills exist
    from .skills import Skill


@dataclass
class Project:
    """What a run takes from its working directory and the miniagent home."""

    cwd: str
    home: Path
    trusted: bool
    settings: Settings
    extensions: Extensions
    skills: List["Skill"] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    sandbox: Unconfined = field(default_factory=Unconfined)
    """What confines bash, write and edit (sandbox/confine.py's Sandbox)."""


def load_project(args: argparse.Namespace, cwd: str,
                 ask_trust: Optional[Callable[[str, Path], bool]] = None) -> Project:
    """Decide trust, then load settings, extensions and skills in that order.
    `ask_trust(cwd, home) -> bool` is the terminal's: it asks about an undecided project
    (recording the answer) and otherwise returns what trust.json says."""
    home = miniagent_home()
    approve = True if args.approve else False if args.no_approve else None
    if approve is None and ask_trust is not None:
        trusted = ask_trust(cwd, home)  # asks (and records) only when undecided
    else:
        trusted = resolve_trust(cwd, home, approve)
    settings = load_settings(home, cwd, trusted)
    sandbox = sandbox_for(args.sandbox, args.sandbox_net, settings.sandbox, cwd)
    extensions = find_extensions(args, settings, home, cwd, trusted)
    skills, warnings = find_skills(home, cwd, trusted)
    return Project(cwd, home, trusted, settings, extensions, skills,
                   settings.warnings + list(extensions.warnings) + list(warnings), sandbox)


def find_extensions(args: argparse.Namespace, settings: Settings, home: Path, cwd: str,
                    trusted: bool) -> Extensions:
    """The extensions (extension_loader.py), whose loader is imported only when there
    is something to load (the start-up budget)."""
    sources = extension_sources(args, settings, home, cwd, trusted)
    if not sources:
        return Extensions()
    from .extension_loader import load_extensions
    return load_extensions(cwd, sources)


def extension_sources(args: argparse.Namespace, settings: Settings, home: Path, cwd: str,
                      trusted: bool) -> List[str]:
    """What to load, in this order, each once: the bundled extensions on by default
    (less --no-extension NAME), the .py files of the extension folders (the home's,
    then a trusted project's), settings' "extensions", then each -e. --no-extensions
    leaves out every file but -e's, and no bundled one.

    Example: -e background, nothing else -> ["checkpoints", "plan", "background"]
    """
    from ..extensions import BUNDLED, ON_BY_DEFAULT
    for name in args.no_extension:
        if name not in BUNDLED:
            raise ConfigError(f"--no-extension {name}: no bundled extension has that name "
                              f"(bundled: {', '.join(BUNDLED)})")
    files = not args.no_extensions
    sources = [name for name in ON_BY_DEFAULT if name not in args.no_extension]
    if files:
        sources += [str(path) for folder in config_files("extensions", home, cwd, trusted)
                    if folder.is_dir() for path in sorted(folder.glob("*.py")) if path.is_file()]
    sources += [source for source in settings.extensions
                if files or is_bundled_name(source)]
    given = [extension_source(entry, Path(cwd)) for entry in args.extension or ()]
    return list(dict.fromkeys(sources + given))  # one named twice (or on already) loads once


def find_skills(home: Path, cwd: str, trusted: bool) -> Tuple[List["Skill"], List[str]]:
    """The skills and their warnings (skills.py), whose reader is loaded only when a
    skills folder exists (the start-up budget)."""
    if not any(folder.is_dir() for folder in config_files("skills", home, cwd, trusted)):
        return [], []
    from .skills import load_skills
    return load_skills(home, cwd, trusted)


def choose_tools(args: argparse.Namespace, project: Project) -> List[Tool]:
    """The active tools: the flags, else settings.json's list, else the defaults; then
    the tools extensions registered. A list is read as pi 1.6 reads it:

        read,grep,'*'     plain names and `*` patterns: exactly these tools
        +grep,-write      only +name / -name: the default selection, changed (in order)

    (settings.json's list may mix them: its plain names replace the defaults, then its
    +/- entries apply). An unknown name, or a pattern that matches none, is a usage
    error (ValueError)."""
    known = known_tools(project)
    defaults = DEFAULT_TOOLS + known[len(ALL_TOOLS):]
    if project.settings.tools is not None:
        defaults = select_names(project.settings.tools, defaults, known, "settings.json's tools")
    if args.no_tools:
        names: List[str] = []
    elif args.tools:
        names = listed_names(args.tools, defaults, project, "--tools")
    else:
        names = defaults
    excluded = select_names(split_names(args.exclude_tools or ""), [], known, "--exclude-tools")
    return tools_named([name for name in names if name not in excluded], project)


def known_tools(project: Project) -> List[str]:
    """The built-in tools, then those extensions registered."""
    return ALL_TOOLS + [tool.name for tool in project.extensions.tools
                        if tool.name not in ALL_TOOLS]


def listed_names(value: str, base: List[str], project: Project, source: str) -> List[str]:
    """A typed list (--tools, /tools): all plain (names, patterns) or all +/-, not mixed."""
    entries = split_names(value)
    if any(map(is_modifier, entries)) and not all(map(is_modifier, entries)):
        raise ValueError(f"{source}: tool names cannot be mixed with +name or -name entries")
    return select_names(entries, base, known_tools(project), source)


def is_modifier(entry: str) -> bool:
    return entry.startswith(("+", "-"))


def select_names(entries: List[str], base: List[str], known: List[str], source: str) -> List[str]:
    """Plain entries (names, `*` patterns) replace `base`; then each +name adds a tool
    and each -name removes one, in order. Every entry must name a known tool.

    Example: (["+grep", "-write"], ["read", "bash", "edit", "write"], ...) ->
             ["read", "bash", "edit", "grep"];  (["*"], ...) -> every known tool
    """
    plain = [entry for entry in entries if not is_modifier(entry)]
    names = [name for entry in plain for name in _matching(entry, known, source)] if plain \
        else list(base)
    for entry in filter(is_modifier, entries):
        name = entry[1:]
        if "*" in name or name not in known:  # exact names: a pattern here is a typo'd list
            raise ValueError(f"{source}: '{entry}' names no tool (+name and -name take exact "
                             f"names); the tools are: {', '.join(known)}")
        if entry.startswith("+") and name not in names:
            names.append(name)
        elif entry.startswith("-") and name in names:
            names.remove(name)
    return list(dict.fromkeys(names))  # a server refuses two tools of one name


def _matching(entry: str, known: List[str], source: str) -> List[str]:
    """The known tools an entry names: itself, or those a `*` pattern matches (fnmatch).
    An MCP name (`mcp__...`) is checked later, against what the servers offer."""
    found = [name for name in known if fnmatchcase(name, entry)]
    if found:
        return found
    from ..mcp.naming import may_name_mcp_tools  # loaded only for an entry no tool matches
    if may_name_mcp_tools(entry):
        return []
    raise ValueError(f"{source}: unknown tool '{entry}'; the tools are: {', '.join(known)}")


def mcp_tool_filter(args: argparse.Namespace) -> Callable[[str], bool]:
    """Which MCP tools the model is offered, by name, as pi decides it: all of them,
    unless a --tools entry starts with `mcp__` (then those the `mcp__` entries match);
    --exclude-tools removes its matches, and --no-tools removes every one.

    Example: --tools read,'mcp__time__*' keeps mcp__time__now and drops mcp__git__log;
             --tools read,bash keeps both (it names no MCP tool)
    """
    chosen = [entry for entry in split_names(args.tools or "") if entry.startswith("mcp__")]
    excluded = split_names(args.exclude_tools or "")

    def keep(name: str) -> bool:
        if args.no_tools or any(fnmatchcase(name, entry) for entry in excluded):
            return False
        return not chosen or any(fnmatchcase(name, entry) for entry in chosen)
    return keep


def tools_named(names: List[str], project: Project) -> List[Tool]:
    """The tools of these (checked) names, in order: built-in ones, or registered by an
    extension (which wins)."""
    registered = {tool.name: tool for tool in project.extensions.tools}
    built = {tool.name: tool for tool in create_tools(
        [name for name in names if name not in registered], project.settings.shellPath,
        project.sandbox)}
    return [registered.get(name) or project.extensions.extended(built[name]) for name in names]


def known_tools_named(names: List[str], project: Project) -> List[Tool]:
    """The tools of those names that exist (api.set_active_tools ignores the others)."""
    return tools_named([name for name in names if name in known_tools(project)], project)


def split_names(value: str) -> List[str]:
    """ "read, bash,,grep" -> ["read", "bash", "grep"] """
    return [name.strip() for name in value.split(",") if name.strip()]


def system_prompt_builder(args: argparse.Namespace,
                          project: Project) -> Callable[[List[Tool]], Sections]:
    """A function from the active tools to the system prompt's sections, so the prompt
    can be rebuilt whenever the tools change (its tool list and rules follow them)."""
    custom = read_text_or_file(args.system_prompt) if args.system_prompt else None
    append = read_text_or_file(args.append_system_prompt) if args.append_system_prompt else None

    def build(tools: List[Tool]) -> Sections:
        return build_prompt_sections(tools, project.cwd, home=project.home,
                                   trusted=project.trusted, custom_prompt=custom,
                                   append_prompt=append, skills=project.skills)
    return build
