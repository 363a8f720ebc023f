"""Skills: instructions the model loads only when a task needs them.

A skill is a folder with a `SKILL.md`: a few lines of front matter saying what it is
for, then the instructions (and maybe scripts beside it). The system prompt lists only
each skill's name, description and file; when a task matches, the model reads the file
with its `read` tool. A hundred skills thus cost a hundred lines of prompt, not a
hundred documents. The user can also pull one in by hand: `/skill:name [args]`.

    ~/.miniagent/skills/review/SKILL.md          always loaded
    <project>/.miniagent/skills/deploy/SKILL.md  loaded only when the project is trusted

    ---
    name: review
    description: Review a diff for bugs, naming and missing tests.
    ---
    Read the diff with `git diff`, then ...

The front matter is read by a small reader of our own, not a YAML library: `key: value`
lines, optional quotes around the value, and indented lines continuing the previous
value. `description` is required; `name` defaults to the folder's name;
`disable-model-invocation: true` keeps a skill out of the prompt (usable by hand only).
A file that breaks these rules is skipped with a warning naming it; the rest load.
On a name clash the project's skill wins over the global one, with a warning.

Left out: YAML's other forms (lists, `|` blocks), skill files other than SKILL.md,
and pi's extra places (`.agents/skills`, `--skill`, settings entries).
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import SkillError
from ..files.safeopen import TEXT_LIMIT, read_regular
from .settings import config_files
from .wrappers import defuse_closing_tags, escape_text, quote_attribute

SKILL_FILE = "SKILL.md"
NAME_RULE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # e.g. "pdf-tools"


@dataclass
class Skill:
    name: str
    description: str
    path: Path
    """The SKILL.md file; the model reads it, and relative paths in it start at its folder."""
    body: str
    """The instructions without the front matter (what /skill:name inlines)."""
    listed: bool = True
    """False for `disable-model-invocation: true`: usable by hand, not shown to the model."""


def load_skills(home: Path, cwd: str, trusted: bool) -> Tuple[List[Skill], List[str]]:
    """The skills from the project (when trusted) and the home folder, and one warning
    line per file that was skipped or looks wrong."""
    roots = list(reversed(config_files("skills", home, cwd, trusted)))  # the project's first
    skills: Dict[str, Skill] = {}
    warnings: List[str] = []
    for path in [file for root in roots for file in find_skill_files(root)]:
        try:
            skill = read_skill(path)
        except ValueError as exc:
            warnings.append(f"skipped skill {path}: {exc}")
            continue
        warnings += [f"skill {path}: {problem}" for problem in name_problems(skill)]
        if skill.name in skills:  # the first wins: project before home
            warnings.append(f"skipped skill {path}: the name {skill.name!r} is taken by "
                            f"{skills[skill.name].path}")
            continue
        skills[skill.name] = skill
    return list(skills.values()), warnings


def find_skill_files(root: Path) -> List[Path]:
    """Every SKILL.md under root, in a stable order; a folder holding one is a skill, so
    its subfolders (the skill's own files) are not searched. Hidden folders are skipped."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        if SKILL_FILE in files:
            found.append(Path(folder) / SKILL_FILE)
            subfolders.clear()
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
    return found


def read_skill(path: Path) -> Skill:
    """Parse one SKILL.md; ValueError says what is wrong with it."""
    try:
        text = read_regular(str(path), TEXT_LIMIT).decode("utf-8-sig")  # not a FIFO
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot be read ({exc})") from None
    fields, body = split_front_matter(text)
    description = fields.get("description", "")
    if not description:
        raise ValueError("the front matter needs a description: line")
    return Skill(name=fields.get("name") or path.parent.name, description=description,
                 path=path, body=body.strip(),
                 listed=fields.get("disable-model-invocation", "").lower() != "true")


def split_front_matter(text: str) -> Tuple[Dict[str, str], str]:
    """The `---` block at the top as a dict, and the text after it.

    Example: "---\\nname: a\\ndescription: Does\\n  things.\\n---\\nBody"
          -> ({"name": "a", "description": "Does things."}, "Body")
    """
    lines = text.split("\n")
    if lines[0].strip() != "---":
        raise ValueError("no front matter: the file must start with a --- line")
    fields: Dict[str, str] = {}
    key: Optional[str] = None
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == "---":
            return fields, "\n".join(lines[number:])
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and key is not None:  # an indented line continues the value
            fields[key] = (fields[key] + " " + line.strip()).strip()
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or not key or " " in key:
            raise ValueError(f"line {number}: expected 'key: value', got {line.strip()[:40]!r}")
        fields[key] = unquote(value.strip())
    raise ValueError("the front matter has no closing --- line")


def unquote(value: str) -> str:
    """'"a: b"' -> 'a: b'; a value without matching quotes stays as it is."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def name_problems(skill: Skill) -> List[str]:
    """Warnings only (the skill still loads), as pi gives them."""
    problems = []
    if not NAME_RULE.fullmatch(skill.name) or len(skill.name) > 64:
        problems.append(f"the name {skill.name!r} should be lowercase letters, digits and "
                        f"single hyphens, at most 64 characters")
    if skill.name != skill.path.parent.name:
        problems.append(f"the name {skill.name!r} differs from its folder "
                        f"{skill.path.parent.name!r}")
    return problems


def format_skills(skills: Sequence[Skill]) -> str:
    """The prompt's skill list, or "" when no skill is listed.

    Example:
        The skills below hold instructions for particular tasks. ...
        <available_skills>
          <skill>
            <name>review</name>
            <description>Review a diff for bugs.</description>
            <location>/home/me/.miniagent/skills/review/SKILL.md</location>
          </skill>
        </available_skills>
    """
    listed = [skill for skill in skills if skill.listed]
    if not listed:
        return ""
    lines = ["The skills below hold instructions for particular tasks. When a task matches "
             "a skill's description, read its file with the read tool first, then follow "
             "it. A relative path inside a skill file starts at that file's folder.",
             "", "<available_skills>"]
    for skill in listed:
        lines += ["  <skill>", f"    <name>{escape_text(skill.name)}</name>",
                  f"    <description>{escape_text(skill.description)}</description>",
                  f"    <location>{escape_text(str(skill.path))}</location>", "  </skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: Sequence[Skill]) -> Optional[str]:
    """Turn "/skill:name [args]" into the skill's instructions followed by the args.

    Returns None when the text is not a skill command (send it unchanged); raises
    SkillError for an unknown name. Example, "/skill:review the last commit" ->

        <skill name="review" location="/home/me/.miniagent/skills/review/SKILL.md">
        Relative paths below start at /home/me/.miniagent/skills/review.

        Read the diff with `git diff`, then ...
        </skill>

        the last commit
    """
    command = re.match(r"/skill:(\S*)\s*(.*)", text, re.DOTALL)
    if command is None:
        return None
    name, args = command.groups()
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        known = ", ".join(s.name for s in skills) or "none are loaded"
        raise SkillError(f"Unknown skill {name!r}. Available skills: {known}.")
    inside = f"Relative paths below start at {skill.path.parent}.\n\n{skill.body}"
    expanded = (f"<skill name={quote_attribute(skill.name)} location={quote_attribute(str(skill.path))}>\n"
                f"{defuse_closing_tags(inside)}\n</skill>")  # the body cannot close it
    return expanded + ("\n\n" + args.strip() if args.strip() else "")
