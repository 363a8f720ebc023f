"""What the MCP tests share: the scripted fault server, started as a transport, and
the pids it leaves (or must not leave)."""

import os
import sys
from pathlib import Path
from typing import List

from miniagent.mcp.stdio import StdioTransport

FAULT_SERVER = str(Path(__file__).with_name("fault_server.py"))


def fault_transport(mode: str, tmp_path: Path, *more: str) -> StdioTransport:
    """The fault server in `mode`, writing its pids to tmp_path/pids."""
    env = dict(os.environ, FAULT_PID_FILE=str(tmp_path / "pids"))
    return StdioTransport(sys.executable, [FAULT_SERVER, mode, *more], env, str(tmp_path))


def server_pids(tmp_path: Path) -> List[int]:
    """Every pid the fault servers of this test wrote (wrapper: two)."""
    path = tmp_path / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []
