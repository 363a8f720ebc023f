"""The miniagent home: one folder for everything miniagent keeps between runs.

Every file that outlives a run lives under one folder, ~/.miniagent, or the folder
$MINIAGENT_HOME names (the tests give each test its own). This module is the one place
that knows the layout, so a reader sees all of it at once:

    ~/.miniagent/
        models.json       your providers and models, merged over the built-in list
        settings.json     global settings (a trusted project may add its own)
        trust.json        which project folders you trusted, or refused
        windows.json      the windows local servers said they serve, asked once a day
        history.jsonl     the REPL's input history, one JSON string per entry
        history           the history of before (readline's), read once if .jsonl is not there
        sessions/         one folder per project, one JSONL file per session
        sessions.sqlite   the search index beside the session files

The knobs a slow machine (or a test) turns are environment variables too, read by
`seconds_from_env`: MINIAGENT_READ_TIMEOUT (http/transport.py), MINIAGENT_GREP_TIMEOUT
(tools/hardening/regex_worker.py).

Left out: a project's own `.miniagent/` folder (settings, skills, extensions), which
belongs to the project and is found by project/settings.py.
"""

import os
from pathlib import Path
from typing import Mapping, Optional


def miniagent_home(env: Optional[Mapping[str, str]] = None) -> Path:
    """~/.miniagent, or $MINIAGENT_HOME."""
    env = os.environ if env is None else env
    return Path(env.get("MINIAGENT_HOME") or Path.home() / ".miniagent")


def models_file(env: Optional[Mapping[str, str]] = None) -> Path:
    return miniagent_home(env) / "models.json"


def trust_file(home: Path) -> Path:
    return Path(home) / "trust.json"


def windows_file() -> Path:
    return miniagent_home() / "windows.json"


def history_file() -> Path:
    return miniagent_home() / "history.jsonl"


def old_history_file() -> Path:
    return miniagent_home() / "history"


def sessions_root() -> str:
    """~/.miniagent/sessions (or under $MINIAGENT_HOME)."""
    return os.path.join(miniagent_home(), "sessions")


def index_path(home: Optional[str] = None) -> str:
    """The search index, beside the session folders."""
    return os.path.join(str(home or miniagent_home()), "sessions.sqlite")


def seconds_from_env(name: str, default: float) -> float:
    """A positive number of seconds from the environment variable `name`; `default`
    when it is unset, not a number, or not positive."""
    try:
        seconds = float(os.environ.get(name, default))
    except ValueError:
        return default
    return seconds if seconds > 0 else default
