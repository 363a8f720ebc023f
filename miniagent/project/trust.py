"""Trust: which directories may give the agent code and standing instructions.

`git clone` puts a stranger's files on your disk. If miniagent loaded the clone's
`.miniagent/` folder unasked, its author could run Python in your session (an
extension), rewrite the agent's instructions (SYSTEM.md, a skill) or pick the shell
(settings). So a project's `.miniagent/` resources load only once you trust the
directory. Its AGENTS.md / CLAUDE.md are always read: they are plain text, shown to the
model as the project's reference material, never run.

The answers live in `~/.miniagent/trust.json`, one real path (symlinks resolved) per
decision:

    {"/home/me/src": true, "/home/me/src/vendor-fork": false}

Looking a directory up walks from it towards the root and stops at the nearest recorded
ancestor, so the nearer `false` above beats the farther `true`:

    /home/me/src/app              -> True   (from /home/me/src)
    /home/me/src/vendor-fork/lib  -> False  (from /home/me/src/vendor-fork)
    /tmp/clone                    -> None   (undecided, which loads as untrusted)

`--approve` / `--no-approve` decide for one run and record nothing; the REPL asks once
for an undecided project that has something to load, and records the answer. Two
miniagent processes may record at the same moment, so a write takes a lock file, reads
the file again under the lock, and replaces it atomically (a reader never sees half a
file, and neither answer is lost).

Left out: trusting single files or resources one by one, and Windows (fcntl locks).
"""

import fcntl
import json
import os
from pathlib import Path
from typing import Dict, Optional

from ..files.atomic import replace_atomically
from ..files.home import miniagent_home, trust_file
from ..errors import ConfigError
from ..files.safeopen import read_json_file
from .settings import project_config_dir

# What counts as "something to load" in a project's .miniagent/ folder.
PROJECT_RESOURCES = ("settings.json", "skills", "extensions", "SYSTEM.md", "APPEND_SYSTEM.md",
                     "mcp.json")


def is_trusted(cwd: str, home: Path) -> Optional[bool]:
    """The nearest recorded answer for cwd or an ancestor: True, False, or None (undecided)."""
    decisions = read_decisions(home)
    directory = Path(os.path.realpath(cwd))
    for candidate in [directory, *directory.parents]:
        if str(candidate) in decisions:
            return decisions[str(candidate)]
    return None


def record_trust(cwd: str, trusted: bool, home: Path) -> None:
    """Write the answer for cwd into trust.json, keeping every other process's answers."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "trust.json.lock", "w") as lock:
        # The lock makes read-change-write one step: without it two processes could both
        # read the old file and the second write would drop the first one's answer.
        fcntl.flock(lock, fcntl.LOCK_EX)
        decisions = read_decisions(home)
        decisions[os.path.realpath(cwd)] = bool(trusted)
        replace_atomically(trust_file(home), json.dumps(decisions, indent=2, sort_keys=True) + "\n")


def project_has_resources(cwd: str, home: Optional[Path] = None) -> bool:
    """Does the project's .miniagent/ hold anything trust would unlock? (Worth asking?)"""
    folder = project_config_dir(cwd, home or miniagent_home())
    return folder is not None and any((folder / name).exists() for name in PROJECT_RESOURCES)


def should_ask(cwd: str, home: Path) -> bool:
    """The REPL asks once: the project is undecided and has something to load."""
    return (project_config_dir(cwd, home) is not None and is_trusted(cwd, home) is None
            and project_has_resources(cwd, home))


def resolve_trust(cwd: str, home: Path, approve_flag: Optional[bool]) -> bool:
    """Load the project's resources this run? `--approve` (True) or `--no-approve` (False)
    decides outright; otherwise the recorded answer, where undecided means no."""
    if approve_flag is not None:
        return approve_flag
    if project_config_dir(cwd, home) is None:  # the home folder: global, always loaded
        return True
    return is_trusted(cwd, home) is True


def read_decisions(home: Path) -> Dict[str, bool]:
    """trust.json as a dict; a missing file is no decisions, a damaged one an error (we
    must not guess, nor overwrite the user's answers)."""
    path = trust_file(home)
    if not path.exists():
        return {}
    data = read_json_file(path)
    if not isinstance(data, dict) or not all(isinstance(v, bool) for v in data.values()):
        raise ConfigError(f"{path}: must be an object mapping directories to true or false; "
                          f"fix or delete it")
    return data

