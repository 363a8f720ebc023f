"""Where the real reference MCP servers live, for the tests that talk to them.

They are test tools, not dependencies: `.ci/run` installs them under
$MINIAGENT_TEST_MCP (default ~/.cache/miniagent-ci/mcp-servers). A test that needs one
fails under CI=true when it is absent, and is skipped elsewhere.
"""

import os
from pathlib import Path
from typing import List

import pytest

# Each server's executable, relative to the install root.
EXECUTABLES = {
    "time": "venv/bin/mcp-server-time",
    "git": "venv/bin/mcp-server-git",
    "everything": "npm/node_modules/.bin/mcp-server-everything",
}


def servers_root() -> Path:
    default = Path.home() / ".cache" / "miniagent-ci" / "mcp-servers"
    return Path(os.environ.get("MINIAGENT_TEST_MCP") or default)


def reference_server(name: str) -> List[str]:
    """The argv that starts reference server `name` ("time", "git" or "everything")."""
    path = servers_root() / EXECUTABLES[name]
    if not os.access(path, os.X_OK):
        reason = f"MCP reference server {name!r} not found at {path} (`.ci/run` installs them)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return [str(path)]
