"""The product's tools: the seven built-ins, hardened, and the registry that builds them.

The Tool contract (Tool, ToolResult, ToolContext, ToolError, argument validation) is
the core's: miniagent/core/tools.py, re-exported here because extensions import it from
`miniagent.tools`. read, bash, edit and write are the core's tools given hardened
operations through their seams (see each module); grep, find and ls exist only here.
`hardening/` holds what the seams are given: safe opening, BOM and CRLF, fuzzy matching,
process groups and the reaper, truncation with a saved copy.

The sandbox (sandbox/, the harness's) reaches bash, write and edit as one object with
three questions, asked at every call because /sandbox may change the mode mid-session:
`launcher()` (what goes before a command's argv), `refuse_write(path)` (None, or the
line a refused write returns) and `explain_failure(output)` (None, or the line a failed
command's result gains). `Unconfined` below answers them when there is no sandbox, and
says so to the front ends (`describe()`, `state()`).

Left out: tools from elsewhere (MCP servers: mcp/; extensions: project/extensions.py).
"""

import importlib
from typing import Any, Dict, List, Optional, Tuple

from ..core.tools import (Tool, ToolContext, ToolError, ToolResult, check_not_aborted,
                          text_result, validate_arguments)

__all__ = ["Tool", "ToolContext", "ToolError", "ToolResult", "check_not_aborted",
           "text_result", "validate_arguments", "DEFAULT_TOOLS", "ALL_TOOLS",
           "create_tools", "create_tool", "Unconfined"]

# --- Registry --------------------------------------------------------------------------------

DEFAULT_TOOLS = ["read", "bash", "edit", "write"]
ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


class Unconfined:
    """The sandbox the tools are given when there is none: commands start as they are,
    every write is allowed, a failure is only a failure (sandbox/confine.py: the real one)."""

    def launcher(self) -> Tuple[str, ...]:
        return ()

    def refuse_write(self, path: str) -> Optional[str]:
        return None

    def explain_failure(self, output: str) -> Optional[str]:
        return None

    def describe(self) -> str:
        return "off"

    def state(self) -> Dict[str, Any]:
        return {"mode": "off", "writableRoots": [], "network": False}


def create_tools(names: Optional[List[str]] = None, shell: Optional[str] = None,
                 sandbox: Unconfined = Unconfined()) -> List[Tool]:
    """Build the named tools (default: read, bash, edit, write); unknown names raise
    ValueError. `shell` is the one bash runs commands with (None: bash from PATH);
    `sandbox` confines bash, write and edit (see the module docstring)."""
    tools = []
    for name in names if names is not None else DEFAULT_TOOLS:
        if name not in ALL_TOOLS:
            raise ValueError(f"Unknown tool '{name}'. Available: {', '.join(ALL_TOOLS)}")
        tools.append(create_tool(name, shell, sandbox))
    return tools


def create_tool(name: str, shell: Optional[str] = None,
                sandbox: Unconfined = Unconfined()) -> Tool:
    """One built-in tool, from its module (tools/NAME.py), imported only now: a run
    that never offers grep never loads its matcher (the start-up budget). Each tool
    module imports this one, so the import cannot sit at the top either."""
    module = importlib.import_module(f"{__name__}.{name}")
    if name == "bash":
        return module.create_tool(shell, sandbox)
    return module.create_tool(sandbox) if name in ("write", "edit") else module.create_tool()
