"""The system prompt: the standing instructions sent before every conversation.

The model knows nothing about where it runs. The system prompt tells it, in named
sections (pi 1.6's names, so a session file records them the same way), in this order:

    preamble         who it is (a coding assistant in a terminal), or your own text instead:
                     `--system-prompt`, else SYSTEM.md (the project's when trusted, else
                     ~/.miniagent's)
    tools            the active tools, one line each (the full contract travels with each
                     tool's JSON Schema); a description cannot close the tag (wrappers.py)
    rules            advice that fits those tools
    addendum         text appended to it: `--append-system-prompt`, else APPEND_SYSTEM.md
    project_context  ~/.miniagent/AGENTS.md (or CLAUDE.md), then one AGENTS.md (or
                     CLAUDE.md) per directory from the filesystem root down to the working
                     directory, each wrapped in a tag naming its path, so the model can tell
                     a file's text from the user's live request
    skills           the skills it may read on demand (skills.py), when it has the read tool
    cwd              the working directory
    (extensions')    sections an extension adds for one prompt (its before_agent_start
                     handler's {"sections": {name: text}}, extensions.py), last

The preamble stands as it is; every other section is wrapped in a tag of its name, and
the sections are joined by blank lines. A section with nothing to say is left out.

The order is about caching. Servers cache the longest unchanged prefix of a request, so
the prompt must not change while nothing changed: there is NO date in it (a model that
needs the date runs `date`), and two builds on different days are identical. What
differs most between projects (the directory) comes last. The prompt is rebuilt whenever
the active tools change, so a tool list is never stale. A session file records the
sections by name (session/system_entry.py), so a change is written as a small patch.

Example (tools read and bash, cwd /work/app, one AGENTS.md):

    You are a coding assistant working in the user's terminal through miniagent. ...

    <tools>
    - read: Read a file.
    - bash: Run a bash command in the working directory.
    </tools>

    <rules>
    - Use bash to explore: ls, rg or grep, find.
    - Look at files with read rather than cat or sed, and read a file before you edit it.
    - Be concise, and name file paths clearly.
    </rules>

    <project_context>
    ...
    <project_instructions path="/work/app/AGENTS.md">
    Run the tests with make test.
    </project_instructions>
    </project_context>

    <cwd>
    /work/app
    </cwd>

A project's AGENTS.md is read even when the project is not trusted (trust.py): it is
text the model weighs, not code, and it is marked as coming from a file.

Left out: prompt templates, pi's section of links to its own documentation, and
warnings for an unreadable AGENTS.md (it is skipped).
"""

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from ..files.home import miniagent_home
from ..errors import ConfigError
from .settings import config_files
from ..files.safeopen import TEXT_LIMIT, read_regular
from ..core.tools import Tool
from .wrappers import defuse_closing_tags, quote_attribute

if TYPE_CHECKING:  # the reader's and a type checker's: loaded only when skills exist
    from .skills import Skill

INTRO = ("You are a coding assistant working in the user's terminal through miniagent. "
         "You help by reading files, running commands, editing code and writing new files. "
         "Work in small verified steps and report what you changed.")
CONTEXT_NAMES = ("AGENTS.md", "CLAUDE.md")  # one per directory; the first one found wins
CONTEXT_INTRO = ("The files below hold standing instructions: the user's own, then the "
                 "project's from the outermost directory in. They are reference material "
                 "for this work, not the user's current request; where they disagree with "
                 "the user's messages, the messages win.")


Sections = Dict[str, str]  # section name -> its text as sent (tagged, but the preamble)


def build_system_prompt(tools: List[Tool], cwd: str, **options) -> str:
    """The prompt as one text: build_prompt_sections, rendered."""
    return render_sections(build_prompt_sections(tools, cwd, **options))


def build_prompt_sections(tools: List[Tool], cwd: str, *, home: Optional[Path] = None,
                          trusted: bool = False, custom_prompt: Optional[str] = None,
                          append_prompt: Optional[str] = None,
                          skills: Sequence["Skill"] = ()) -> Sections:
    """The sections in the order the module docstring gives, empty ones left out.

    `custom_prompt` / `append_prompt` are the flags' texts (see read_text_or_file); when
    None, SYSTEM.md / APPEND_SYSTEM.md are looked for. `trusted` lets the project's
    .miniagent/ folder count.
    """
    home = Path(home) if home is not None else miniagent_home()
    names = {tool.name for tool in tools}
    if append_prompt is None:
        append_prompt = nearest_file("APPEND_SYSTEM.md", cwd, home, trusted)
    texts = {"preamble": custom_prompt if custom_prompt is not None
             else nearest_file("SYSTEM.md", cwd, home, trusted) or INTRO,
             "tools": tool_list(tools),
             "rules": "\n".join(f"- {rule}" for rule in guidelines(names)),
             "addendum": append_prompt,
             "project_context": context_section(cwd, home),
             # a skill is useless to a model that cannot read its file
             "skills": skills_section(skills) if "read" in names else "",
             "cwd": defuse_closing_tags(cwd)}
    sections = {}
    for name, text in texts.items():
        if text and text.strip():
            text = text.strip("\n")
            sections[name] = text if name == "preamble" else tagged(name, text)
    return sections


def tagged(name: str, text: str) -> str:
    """A section as sent: 'rules', '- Be concise.' -> '<rules>\\n- Be concise.\\n</rules>'."""
    body = text.strip("\n")
    return f"<{name}>\n{body}\n</{name}>"


def skills_section(skills: Sequence["Skill"]) -> str:
    """The list of skills (skills.py), or "" without any: a run with no skills never
    loads their reader (the start-up budget)."""
    if not skills:
        return ""
    from .skills import format_skills
    return format_skills(skills)


def render_sections(sections: Sections) -> str:
    """The prompt text the model gets: the sections in order, a blank line between."""
    return "\n\n".join(text for text in sections.values() if text)


def tool_list(tools: List[Tool]) -> str:
    """One line per tool: its name and the first sentence of its description, which
    cannot close our tags (an MCP server writes its own: wrappers.py)."""
    lines = [f"- {tool.name}: {defuse_closing_tags(first_sentence(tool.description))}"
             for tool in tools]
    return "\n".join(lines) or "(none)"


def nearest_file(name: str, cwd: str, home: Path, trusted: bool) -> Optional[str]:
    """The text of a trusted project's NAME (SYSTEM.md, APPEND_SYSTEM.md), else the
    home's, or None when neither exists."""
    for path in reversed(config_files(name, home, cwd, trusted)):  # the nearest first
        if path.is_file():
            return read_text(path)
    return None


def context_files(cwd: str, home: Path) -> List[Path]:
    """The global AGENTS.md (or CLAUDE.md), then one per directory from the root down to
    cwd; each file once, even if the home folder lies on that path.

    Example (home /h/.miniagent, cwd /w/app; files /w/AGENTS.md, /w/app/CLAUDE.md):
        -> [/w/AGENTS.md, /w/app/CLAUDE.md]
    """
    cwd_path = Path(os.path.realpath(cwd))
    folders = [Path(home)] + list(reversed(cwd_path.parents)) + [cwd_path]
    found: List[Path] = []
    seen = set()  # real paths: a symlinked AGENTS.md is still one file
    for folder in folders:
        path = next((folder / name for name in CONTEXT_NAMES if (folder / name).is_file()), None)
        if path is not None and os.path.realpath(path) not in seen:
            seen.add(os.path.realpath(path))
            found.append(path)
    return found


def context_section(cwd: str, home: Path) -> str:
    """The context files, each in a tag naming its path; "" when there are none. A
    file's text cannot close the tags around it (wrappers.py)."""
    parts = []
    for path in context_files(cwd, home):
        text = read_text(path)
        if text is not None:
            parts.append(f"<project_instructions path={quote_attribute(str(path))}>\n"
                         f"{defuse_closing_tags(text.strip())}\n</project_instructions>")
    if not parts:
        return ""
    return "\n".join([CONTEXT_INTRO, *parts])


def read_text(path: Path) -> Optional[str]:
    """A context file's text; None if it cannot be read (it is left out, not fatal).
    A clone may plant a FIFO or a link to a device under that name: regular files only."""
    try:
        return read_regular(str(path), TEXT_LIMIT).decode("utf-8-sig", errors="replace")
    except OSError:
        return None


def read_text_or_file(value: str) -> str:
    """`--system-prompt` and `--append-system-prompt` take text or a file's path.

    Examples: "Answer in French."  -> "Answer in French."
              "prompts/review.md"  -> the content of that file (when it exists)
    """
    if not os.path.isfile(os.path.expanduser(value)):  # isfile: False for long text too
        return value
    try:
        return Path(os.path.expanduser(value)).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{value}: cannot be read ({exc})") from None


def guidelines(names: set) -> List[str]:
    """Advice that depends on which tools are active."""
    rules = []
    if "bash" in names and not names & {"grep", "find", "ls"}:
        rules.append("Use bash to explore: ls, rg or grep, find.")
    if names & {"grep", "find", "ls"}:
        rules.append("Prefer the grep, find and ls tools to bash for exploring files: they "
                     "respect .gitignore and bound their output.")
    if "read" in names:
        rules.append("Look at files with read rather than cat or sed, and read a file "
                     "before you edit it.")
    if "edit" in names:
        rules.append("Use edit for targeted changes: each edits[].oldText must match the file "
                     "exactly and once; keep it short but unique, and put several changes "
                     "to one file into one edit call (they must not overlap).")
    if "write" in names:
        rules.append("Use write only for new files or complete rewrites.")
    rules.append("Be concise, and name file paths clearly.")
    return rules


def first_sentence(text: str) -> str:
    """The first sentence, which is how each tool's description starts by convention.

    Examples: 'Read a file. Supports images.'          -> 'Read a file.'
              'Find files by glob, e.g. *.py. Fast.'   -> 'Find files by glob, e.g. *.py.'
    """
    head = text.strip().split("\n")[0]
    # A sentence ends at ". " before a capital letter, so "e.g. *.py" does not end one.
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", head, maxsplit=1)[0]
