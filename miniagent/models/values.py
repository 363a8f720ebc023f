"""Config values: how models.json's `apiKey` and header values become the text sent.

A key should not have to be pasted into a file. So a value in models.json is read as
pi 1.6 reads it, in one of three forms:

    "sk-local-123"            the value itself, literally
    "$LMSTUDIO_KEY"           an environment variable (also "${LMSTUDIO_KEY}", and inside
                              text: "Bearer $TOKEN"); "$$" is a literal "$", "$!" a "!"
    "!pass show lmstudio"     a shell command: its output, stripped (first char "!")

A variable that is unset (or only whitespace), or a command that fails or prints
nothing, leaves the value unresolved (None): the caller says what is missing. An MCP
server's `env` and `headers` (mcp/config.py) read them as pi does there instead: an
unset variable is empty text (`unset_ok`), since many servers run fine without one.

A command runs only for the provider a run uses, once, when miniagent starts. It comes
from the user's own file alone: miniagent reads no models.json from a project, so a
cloned repository cannot make it run anything here.

Before pi 1.6 (and miniagent 0.x), a value in capitals (`MY_KEY`) named a variable. It
is now the key itself; when such a variable is set, `legacy_warning()` says so once,
with the spelling that reads it (`$MY_KEY`).

Left out: pi's per-process command cache across requests (we resolve once per run),
Windows shells, and OAuth or key files.
"""

import re
import subprocess
from typing import Mapping, Optional

COMMAND_TIMEOUT = 10.0  # seconds: a password manager waiting for a touch is given up on
_REFERENCE = re.compile(r"\$(?:(\$)|(!)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_OLD_STYLE_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def is_command(spec: str) -> bool:
    return spec.startswith("!")


def resolve_value(spec: Optional[str], env: Mapping[str, str],
                  unset_ok: bool = False) -> Optional[str]:
    """The text a value stands for, or None when it cannot be had now.

    Examples: "$KEY" with KEY=abc -> "abc";  "Bearer ${KEY}" -> "Bearer abc";
    "$KEY" with KEY unset -> None (with unset_ok: "");  "cost$$" -> "cost$";
    "!echo hi" -> "hi"
    """
    if not spec:
        return None
    if is_command(spec):
        return run_command(spec[1:])
    return expand_variables(spec, env, unset_ok)


def expand_variables(spec: str, env: Mapping[str, str],
                     unset_ok: bool = False) -> Optional[str]:
    """`$NAME` and `${NAME}` replaced by their values; None if any is unset, unless
    `unset_ok` (then an unset variable is replaced by nothing)."""
    missing = []

    def substitute(match: "re.Match[str]") -> str:
        dollar, bang, braced, bare = match.groups()
        if dollar or bang:
            return dollar or bang
        value = (env.get(braced or bare) or "").strip()
        if not value:
            missing.append(braced or bare)
        return value
    text = _REFERENCE.sub(substitute, spec)
    return None if missing and not unset_ok else text


def variables_named(spec: Optional[str]) -> list:
    """The variables a value reads, for the hint "set X": "$A-${B}" -> ["A", "B"]."""
    if not spec or is_command(spec):
        return []
    return [braced or bare for _, _, braced, bare in _REFERENCE.findall(spec) if braced or bare]


def run_command(command: str) -> Optional[str]:
    """A command's standard output, stripped; None if it fails, times out or prints
    nothing. Its stderr goes to the terminal: a password manager may ask there."""
    try:
        done = subprocess.run(command, shell=True, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, timeout=COMMAND_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.decode("utf-8", "replace").strip()
    return text if done.returncode == 0 and text else None


def legacy_warning(spec: Optional[str], env: Mapping[str, str], where: str) -> Optional[str]:
    """A one-line notice for an old-style variable name that is now read literally.

    Example: ("MY_KEY", {"MY_KEY": "x"}, "providers.lab.apiKey") ->
    'warning: models.json providers.lab.apiKey "MY_KEY" is now the key itself, not the
    variable MY_KEY; write "$MY_KEY" to read the variable'
    """
    if not spec or not _OLD_STYLE_NAME.match(spec) or not (env.get(spec) or "").strip():
        return None
    return (f'warning: models.json {where} "{spec}" is now the key itself, not the variable '
            f'{spec}; write "${spec}" to read the variable')
