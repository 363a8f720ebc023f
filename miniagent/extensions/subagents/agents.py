"""Agent definitions: a Markdown file names a kind of sub-agent and says how it works.

The shape is the one pi's example and Claude Code use: front matter, then the text the
sub-agent's system prompt gains.

    ---
    name: scout
    description: Finds where things are in the code, quickly
    tools: read, grep, find, ls
    model: qwen2.5-coder:7b
    ---
    You look things up and answer with paths and line numbers, nothing else.

They are read from ~/.miniagent/agents/*.md and, in a trusted project only, from
<project>/.miniagent/agents/*.md (a project's file of the same name wins: it is read
last). An untrusted project's folder is never read: a definition chooses tools.

A file is someone else's text: only regular files up to 64 KB are read, a name is
a short word, and a file that breaks a rule is left out with one line saying why.

Left out: YAML beyond `key: value` lines; per-agent thinking levels and MCP servers.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

MAX_BYTES = 64 * 1024
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


@dataclass
class AgentDefinition:
    name: str
    description: str = ""
    tools: List[str] = field(default_factory=list)  # empty: the default, read-only ones
    model: str = ""  # empty: the parent's
    prompt: str = ""  # added to the sub-agent's system prompt
    source: str = ""


def load_agents(folders: Sequence[Path]) -> Tuple[Dict[str, AgentDefinition], List[str]]:
    """The definitions in `folders` (weakest first), by name, and one line per file
    left out."""
    agents: Dict[str, AgentDefinition] = {}
    problems: List[str] = []
    for folder in folders:
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            try:
                agent = parse_agent(read_bounded(path), str(path))
            except ValueError as problem:
                problems.append(f"agent definition {path} left out: {problem}")
                continue
            agents[agent.name] = agent
    return agents, problems


def read_bounded(path: Path) -> str:
    """A regular file's text, up to MAX_BYTES (a FIFO or a device would block or never end)."""
    if not path.is_file():
        raise ValueError("not a regular file")
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // 1024} KB")
    return data.decode("utf-8", errors="replace")


def parse_agent(text: str, source: str) -> AgentDefinition:
    """A definition from a file's text. For example:
        "---\\nname: scout\\ntools: read, grep\\n---\\nBe brief." ->
        AgentDefinition(name="scout", tools=["read", "grep"], prompt="Be brief.")
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in [l.strip() for l in lines[1:]]:
        raise ValueError("it does not open with front matter between --- lines")
    end = 1 + [l.strip() for l in lines[1:]].index("---")
    fields: Dict[str, str] = {}
    for line in lines[1:end]:
        key, colon, value = line.partition(":")
        if colon and key.strip():
            fields[key.strip().lower()] = value.strip()
    name = fields.get("name", "")
    if not NAME.match(name):
        raise ValueError("its name must be one word of letters, digits, - or _")
    tools = [tool.strip() for tool in fields.get("tools", "").split(",") if tool.strip()]
    return AgentDefinition(name, fields.get("description", ""), tools,
                           fields.get("model", ""), "\n".join(lines[end + 1:]).strip(), source)
