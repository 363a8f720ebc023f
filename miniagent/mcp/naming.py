"""What the model calls an MCP tool: `mcp__<server>__<tool>`, within 64 characters.

A server names its tools for itself (`get_current_time`, `read-file`); two servers may
both have a `search`. The model sees one flat list of tools, so each MCP tool gets a
name that says where it comes from, as pi, Codex and Claude Code name them:

    server "time", tool "get_current_time"   -> mcp__time__get_current_time
    server "my-docs", tool "read.page"        -> mcp__my_docs__read_page

Provider APIs accept 1-64 characters of letters, digits, `_` and `-` in a tool name,
so every other character becomes `_` (so does `-`, keeping the name a plain
identifier), and a name still too long, or one that two tools now share (`a-b` and
`a_b` both become `a_b`), ends in `_` and 8 hex digits of a hash of the server and
tool names: stable between runs, so a resumed session's calls still match. A server
may name a tool after another's hashed name; a hashed name that is taken too is
hashed again, with a counter, until it is free.

Left out: which tools are offered (servers.py) and what a call does (tools.py).
"""

import hashlib
import re
from fnmatch import fnmatchcase
from typing import Callable

MAX_TOOL_NAME = 64
"""The longest tool name the provider APIs accept."""

PREFIX = "mcp__"
RESOURCE_TOOLS = ("list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource")
"""The three tools that reach every server's resources (tools.py); they count as MCP
tools for --tools and --exclude-tools, as in pi."""


def tool_name(server: str, tool: str, taken: Callable[[str], bool] = lambda name: False) -> str:
    """The model's name for `tool` of `server`; `taken(name)` says another MCP tool
    already has that name.

    Example: tool_name("time", "now") -> "mcp__time__now"
    """
    name = re.sub(r"[^A-Za-z0-9_]", "_", f"{PREFIX}{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME and not taken(name):
        return name
    attempt = 0
    while True:
        seed = f"{server}\0{tool}" + (f"\0{attempt}" if attempt else "")
        digest = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:8]
        hashed = f"{name[:MAX_TOOL_NAME - len(digest) - 1]}_{digest}"
        if not taken(hashed):
            return hashed
        attempt += 1


def is_mcp_tool(name: str) -> bool:
    """Does this tool name belong to MCP (a server's tool or a resource tool)?"""
    return name.startswith(PREFIX) or name in RESOURCE_TOOLS


def may_name_mcp_tools(entry: str) -> bool:
    """Could this --tools / --exclude-tools entry name MCP tools? Their names are known
    only once the servers answer, so such an entry is not checked at start-up.

    Example: "mcp__git__*" -> True, "*_mcp_*" -> True (the resource tools), "rea*" -> False
    """
    return entry.startswith(PREFIX) or any(fnmatchcase(name, entry) for name in RESOURCE_TOOLS)
