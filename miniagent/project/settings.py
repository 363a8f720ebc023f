"""Settings: the user's standing choices, from a global file and a project file.

A flag is typed for one run; a setting is written down once. miniagent reads two
`settings.json` files, with pi's field names:

    ~/.miniagent/settings.json           the user's defaults, always read
    <project>/.miniagent/settings.json   the project's, read only when it is trusted

    {"defaultProvider": "ollama", "defaultModel": "qwen3:8b",
     "defaultThinkingLevel": "low", "tools": ["read", "bash", "grep"],
     "compaction": {"enabled": true, "reserveTokens": 16384, "keepRecentTokens": 20000},
     "shellPath": "/bin/zsh", "extensions": ["background", "tools/gate.py"],
     "sandbox": {"mode": "workspace", "writableRoots": ["~/.cache/pip"], "network": false},
     "planTools": ["mcp__docs__search"], "notify": true}

The project file wins, one level deep: a top-level value replaces the global one, and
inside `compaction` each key does, so a project can change `reserveTokens` alone and
keep the user's `enabled`. `extensions` add up: the user's, then the project's (a bundled
extension's name, or a file relative to the folder of the settings.json naming it).
`sandbox` is the exception: a project may only narrow it (a
stricter mode, fewer roots, no network), since a cloned repository that could widen its
own sandbox would make it worthless; a wider ask is ignored with one warning. Where a value finally comes from, strongest first:
command-line flag > what a resumed session recorded > project > global > the
`models.json` default. Only the last three meet here; the front end applies the rest.

Like models.json, a file is checked when it is read, and the first mistake is one line
naming the file and the field (the CLI exits 2 on it):

    /home/me/.miniagent/settings.json: compaction.reserveTokens must be an integer >= 0 (got "big")

This module also knows where a project's own configuration lives (`project_config_dir`),
because skills, extensions, the prompt and trust all ask the same question.

Left out: writing settings (edit the file), and pi's many other keys (themes, packages,
images): unknown keys are ignored, so a file shared with other tools still loads.
"""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ..compaction.estimate import CompactionSettings
from ..files.safeopen import read_json_file
from ..errors import ConfigError
from ..models.thinking import LEVELS
from ..sandbox import MODES

THINKING_LEVELS = LEVELS  # models/thinking.py: "off" to "max"


@dataclass
class SandboxSettings:
    """settings.json's "sandbox" (sandbox/: the modes). None: not set."""
    mode: Optional[str] = None
    writableRoots: Optional[List[str]] = None
    network: Optional[bool] = None


@dataclass
class Settings:
    """The merged settings. Field names are the file's keys, so one name means one thing
    in the file, the code and the docs. None means "not set": the next source decides."""
    defaultProvider: Optional[str] = None
    defaultModel: Optional[str] = None
    defaultThinkingLevel: Optional[str] = None
    tools: Optional[List[str]] = None
    """The default tool list, as `--tools` would give it."""
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    """enabled, reserveTokens, keepRecentTokens; a token count not set scales with the
    window (compaction.py: min(16,384, window / 4) and min(20,000, window / 2))."""
    shellPath: Optional[str] = None
    """The shell bash runs commands with, instead of the one found on PATH."""
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    """mode, writableRoots, network: what --sandbox and --sandbox-net choose by default."""
    extensions: List[str] = field(default_factory=list)
    """Extensions to load, as -e takes them: bundled names, and files made absolute."""
    planTools: Optional[List[str]] = None
    """More tools plan mode offers (the plan extension): an MCP server's, an extension's."""
    notify: Optional[bool] = None
    """A bell when a run ends or a question waits (modes/interactive/notify.py)."""
    warnings: List[str] = field(default_factory=list)
    """Lines to show at start-up: a project's ask to widen the sandbox, ignored."""



# What each field must be: a test, and the words for the error (as models/registry.py does it).
def is_name(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


_NAME = (is_name, "be a non-empty string")
_TOKENS = (lambda v: type(v) is int and v >= 0, "be an integer >= 0")  # type(): True is an int
FIELDS = {
    "defaultProvider": _NAME,
    "defaultModel": _NAME,
    "defaultThinkingLevel": (lambda v: v in THINKING_LEVELS,
                             "be one of " + ", ".join(THINKING_LEVELS)),
    "tools": (lambda v: isinstance(v, list) and all(is_name(name) for name in v),
              "be a list of tool names"),
    "compaction": (lambda v: isinstance(v, dict), "be an object"),
    "shellPath": _NAME,
    "sandbox": (lambda v: isinstance(v, dict), "be an object"),
    "extensions": (lambda v: isinstance(v, list) and all(is_name(name) for name in v),
                   "be a list of extension names or files"),
    "planTools": (lambda v: isinstance(v, list) and all(is_name(name) for name in v),
                  "be a list of tool names"),
    "notify": (lambda v: isinstance(v, bool), "be true or false"),
}
COMPACTION_FIELDS = {
    "enabled": (lambda v: isinstance(v, bool), "be true or false"),
    "reserveTokens": _TOKENS,
    "keepRecentTokens": _TOKENS,
}
SANDBOX_FIELDS = {
    "mode": (lambda v: v in MODES, "be one of " + ", ".join(MODES)),
    "writableRoots": (lambda v: isinstance(v, list) and all(map(is_name, v)),
                      "be a list of folders"),
    "network": (lambda v: isinstance(v, bool), "be true or false"),
}
STRICTNESS = {"off": 0, "workspace": 1, "read-only": 2}  # a project may only go up


def project_config_dir(cwd: str, home: Path) -> Optional[Path]:
    """The project's `.miniagent/` folder, or None when it is the miniagent home itself.

    Started in your home directory, `~/.miniagent` is both "the project's folder" and the
    global one; it counts as global (always loaded, loaded once, nothing to trust).

    Examples (home /home/me/.miniagent):
        cwd /home/me/app -> /home/me/app/.miniagent
        cwd /home/me     -> None
    """
    candidate = Path(os.path.realpath(cwd)) / ".miniagent"
    if os.path.realpath(candidate) == os.path.realpath(home):
        return None
    return candidate


def config_files(name: str, home: Path, cwd: str, trusted: bool) -> List[Path]:
    """Where a configuration file of this name is read, weakest first: the home's, then
    the project's when the project is trusted (settings.json, mcp.json).

    Example: ("mcp.json", ~/.miniagent, ~/app, True) -> [~/.miniagent/mcp.json,
             ~/app/.miniagent/mcp.json]
    """
    project = project_config_dir(cwd, home)
    return [Path(home) / name] + ([project / name] if trusted and project is not None else [])


def load_settings(home: Path, cwd: str, trusted: bool) -> Settings:
    """Read the global file and, when trusted, the project's; merge; check. Raises
    ConfigError naming the file and field of the first mistake."""
    merged: Dict[str, Any] = {}
    sandbox, warnings, extensions = SandboxSettings(), [], []
    for index, path in enumerate(config_files("settings.json", home, cwd, trusted)):
        if path.exists():
            read = read_settings_file(path)
            extensions += [extension_source(entry, path.parent)
                           for entry in read.pop("extensions", [])]
            asked = SandboxSettings(**read.pop("sandbox", {}))
            if index == 0:  # the user's own file sets the sandbox as it likes
                sandbox = asked
            else:
                sandbox, widened = narrow_sandbox(sandbox, asked)
                warnings += [f"{path}: sandbox {', '.join(widened)} ignored: a project may "
                             f"only narrow the sandbox"] if widened else []
            merge_one_level(merged, read)
    given = merged.pop("compaction", {})
    compaction = CompactionSettings(enabled=given.get("enabled", True),
                                    reserve_tokens=given.get("reserveTokens"),
                                    keep_recent_tokens=given.get("keepRecentTokens"))
    return Settings(compaction=compaction, sandbox=sandbox, warnings=warnings,
                    extensions=extensions, **merged)


def extension_source(entry: str, folder: Path) -> str:
    """A bundled extension's name as it is; a file made absolute from `folder`.

    Examples (folder /home/me/.miniagent): "background" -> "background",
             "tools/gate.py" -> "/home/me/.miniagent/tools/gate.py"
    """
    if is_bundled_name(entry):
        return entry
    return str(folder / os.path.expanduser(entry))


def is_bundled_name(entry: str) -> bool:
    """A name (-e background) rather than a file (-e ./gate.py): no "/", no ".py"."""
    return "/" not in entry and not entry.endswith(".py")


def narrow_sandbox(user: SandboxSettings,
                   project: SandboxSettings) -> Tuple[SandboxSettings, List[str]]:
    """(the sandbox a trusted project's settings leave, what they asked to widen). A
    stricter mode, a subset of the user's roots and network false are taken; the rest
    is named in the second value.

    Example: user {mode: workspace, roots: [/data]} + project {mode: off, roots: [/etc],
             network: false} -> ({workspace, [], network false}, ["mode 'off'", "root /etc"])
    """
    widened = []
    mode = user.mode
    if project.mode is not None:
        if STRICTNESS[project.mode] >= STRICTNESS[user.mode or "off"]:
            mode = project.mode
        else:
            widened.append(f"mode {project.mode!r}")
    roots = user.writableRoots
    if project.writableRoots is not None:
        allowed = user.writableRoots or []
        roots = [root for root in project.writableRoots if root in allowed]
        widened += [f"root {root}" for root in project.writableRoots if root not in allowed]
    network = user.network
    if project.network is False:
        network = False
    elif project.network and not user.network:
        widened.append("network true")
    return SandboxSettings(mode, roots, network), widened


def read_settings_file(path: Path) -> Dict[str, Any]:
    """One settings.json, checked; only the keys we know are returned."""
    data = read_json_file(path)
    source = str(path)
    check(data, (lambda v: isinstance(v, dict), "be an object"), source, "the file")
    known = {key: value for key, value in data.items() if key in FIELDS}
    for key, value in known.items():
        check(value, FIELDS[key], source, key)
    compaction = known.get("compaction", {})
    known["compaction"] = {key: value for key, value in compaction.items()
                           if key in COMPACTION_FIELDS}
    for key, value in known["compaction"].items():
        check(value, COMPACTION_FIELDS[key], source, f"compaction.{key}")
    known["sandbox"] = {key: value for key, value in known.get("sandbox", {}).items()
                        if key in SANDBOX_FIELDS}
    for key, value in known["sandbox"].items():
        check(value, SANDBOX_FIELDS[key], source, f"sandbox.{key}")
    return known


def merge_one_level(base: Dict[str, Any], override: Dict[str, Any]) -> None:
    """Project over global: objects merge key by key, anything else is replaced.

    Example: {"tools": ["read"], "compaction": {"enabled": False}}
           + {"tools": ["bash"], "compaction": {"reserveTokens": 4000}}
          -> {"tools": ["bash"], "compaction": {"enabled": False, "reserveTokens": 4000}}
    """
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value


def check(value: Any, rule: Any, source: str, where: str) -> None:
    ok, what = rule
    if not ok(value):
        got = json.dumps(value, ensure_ascii=False)
        got = got if len(got) < 60 else got[:56] + "..."
        raise ConfigError(f"{source}: {where} must {what} (got {got})")
