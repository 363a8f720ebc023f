"""The project a run works in: trust first, then what the project may bring.

A cloned repository can carry a `.miniagent/` folder with settings, skills, extensions
(Python code!) and a SYSTEM.md. Loading those is running someone else's code and
instructions, so the order matters:

    1. trust      --approve / --no-approve, else trust.json, else (terminal) ask once
    2. settings   global, then the project's when trusted (the project wins)
    3. extensions global, then the project's when trusted, then -e FILE
    4. tools      --tools / --exclude-tools / --no-tools, else settings, else the
                  defaults; names are checked after extensions registered theirs
    5. skills and the system prompt (AGENTS.md files are read in every case: they are
                  text, shown to the model as the project's instructions)

Example: in an untrusted clone, `miniagent -p "..."` reads its AGENTS.md but imports
none of its extensions; `miniagent --approve -p "..."` loads them for that run only.

Left out: the rules themselves (trust.py, settings.py, extensions.py, skills.py,
system_prompt.py); this file only puts them in order for assemble.py.
"""

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

from .extensions import Extensions, load_extensions
from ..files.home import miniagent_home
from .system_prompt import Sections, build_prompt_sections, read_text_or_file
from .settings import Settings, load_settings
from .skills import Skill, load_skills
from ..tools import ALL_TOOLS, DEFAULT_TOOLS, Tool, create_tools
from .trust import resolve_trust


@dataclass
class Project:
    """What a run takes from its working directory and the miniagent home."""

    cwd: str
    home: Path
    trusted: bool
    settings: Settings
    extensions: Extensions
    skills: List[Skill] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)


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
    extensions = load_extensions(home, cwd, trusted, args.extension or (),
                                 enabled=not args.no_extensions)
    skills, warnings = load_skills(home, cwd, trusted)
    return Project(cwd, home, trusted, settings, extensions, skills,
                   list(extensions.warnings) + list(warnings))


def choose_tools(args: argparse.Namespace, project: Project) -> List[Tool]:
    """The active tools: the flags, else settings.json's list, else the defaults; then
    the tools extensions registered. An unknown name is a usage error (ValueError)."""
    registered = [tool.name for tool in project.extensions.tools if tool.name not in ALL_TOOLS]
    source = "--tools"
    if args.no_tools:
        names: List[str] = []
    elif args.tools:
        names = split_names(args.tools)
    elif project.settings.tools:
        names, source = list(project.settings.tools), "settings.json's tools"
    else:
        names = DEFAULT_TOOLS + registered
    excluded = split_names(args.exclude_tools) if args.exclude_tools else []
    tools_named(excluded, project, "--exclude-tools")  # checks the names
    return tools_named([name for name in names if name not in excluded], project, source)


def tools_named(names: List[str], project: Project, source: str) -> List[Tool]:
    """The tools of these names, each once, in the order first named: built-in ones, or
    registered by an extension (which wins). An unknown name raises ValueError naming
    `source` (the flag or file it came from) and the tools there are."""
    registered = {tool.name: tool for tool in project.extensions.tools}
    known = ALL_TOOLS + [name for name in registered if name not in ALL_TOOLS]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"{source}: unknown tool '{unknown[0]}'; the tools are: "
                         f"{', '.join(known)}")
    names = list(dict.fromkeys(names))  # a server refuses two tools of one name
    built = {tool.name: tool for tool in create_tools(
        [name for name in names if name not in registered], project.settings.shellPath)}
    return [registered.get(name) or built[name] for name in names]


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
