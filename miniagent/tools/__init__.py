"""The product's tools: the seven built-ins, hardened, and the registry that builds them.

The Tool contract (Tool, ToolResult, ToolContext, ToolError, argument validation) is
the core's: miniagent/core/tools.py, re-exported here because extensions import it from
`miniagent.tools`. read, bash, edit and write are the core's tools given hardened
operations through their seams (see each module); grep, find and ls exist only here.
`hardening/` holds what the seams are given: safe opening, BOM and CRLF, fuzzy matching,
process groups and the reaper, truncation with a saved copy.

Left out: tools from elsewhere (MCP servers: mcp/; extensions: project/extensions.py).
"""

import importlib
from typing import List, Optional

from ..core.tools import (Tool, ToolContext, ToolError, ToolResult, check_not_aborted,
                          text_result, validate_arguments)

__all__ = ["Tool", "ToolContext", "ToolError", "ToolResult", "check_not_aborted",
           "text_result", "validate_arguments", "DEFAULT_TOOLS", "ALL_TOOLS",
           "create_tools", "create_tool"]

# --- Registry --------------------------------------------------------------------------------

DEFAULT_TOOLS = ["read", "bash", "edit", "write"]
ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def create_tools(names: Optional[List[str]] = None, shell: Optional[str] = None) -> List[Tool]:
    """Build the named tools (default: read, bash, edit, write); unknown names raise
    ValueError. `shell` is the one bash runs commands with (None: bash from PATH)."""
    tools = []
    for name in names if names is not None else DEFAULT_TOOLS:
        if name not in ALL_TOOLS:
            raise ValueError(f"Unknown tool '{name}'. Available: {', '.join(ALL_TOOLS)}")
        tools.append(create_tool(name, shell))
    return tools


def create_tool(name: str, shell: Optional[str] = None) -> Tool:
    """One built-in tool, from its module (tools/NAME.py), imported only now: a run
    that never offers grep never loads its matcher (the start-up budget). Each tool
    module imports this one, so the import cannot sit at the top either."""
    module = importlib.import_module(f"{__name__}.{name}")
    return module.create_tool(shell) if name == "bash" else module.create_tool()
