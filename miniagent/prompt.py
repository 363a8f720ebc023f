"""The system prompt: the standing instructions sent before every conversation.

The model knows nothing about where it runs. The system prompt tells it: who it is (a
coding assistant in a terminal), which tools it has (one line each; the full contract
travels with each tool's JSON Schema), how to use them well, today's date and the
working directory. It is rebuilt for every run from the active tools, so switching
tools never leaves a stale list behind.

Example (tools read and bash, cwd /work/app):

    You are a coding assistant working in the user's terminal through miniagent. ...

    Tools:
    - read: Read a text file or an image.
    - bash: Run a shell command in the working directory.

    Guidelines:
    - Look at files with read rather than cat or sed.
    ...
    Current date: 2026-11-30
    Current working directory: /work/app

Left out here: project instructions (AGENTS.md), skills and directory trust, which
extend this prompt in a later step of the build.
"""

import datetime
import re
from typing import List

from .tools import Tool

INTRO = ("You are a coding assistant working in the user's terminal through miniagent. "
         "You help by reading files, running commands, editing code and writing new files. "
         "Work in small verified steps and report what you changed.")


def build_system_prompt(tools: List[Tool], cwd: str) -> str:
    """Assemble the prompt: intro, tool list, guidelines, date and working directory."""
    lines = [INTRO, "", "Tools:"]
    lines += [f"- {tool.name}: {first_sentence(tool.description)}" for tool in tools] or ["(none)"]
    lines += ["", "Guidelines:"]
    lines += [f"- {rule}" for rule in guidelines({tool.name for tool in tools})]
    lines += ["", f"Current date: {datetime.date.today().isoformat()}",
              f"Current working directory: {cwd}"]
    return "\n".join(lines)


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
