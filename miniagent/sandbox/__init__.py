"""The sandbox: how an agent confines its hands (issue 32; the harness layer).

A command the model runs could write anywhere the user can and send anything anywhere:
prompt injection in a file the agent read is one `curl` away from the user's keys. With
`--sandbox read-only | workspace` every command the model runs is started by a small
launcher (launch.py) that restricts itself with Linux Landlock (landlock.py) and then
executes the shell, so the restriction holds for the shell and everything it starts:

    off        nothing is confined (the default, as in pi)
    read-only  commands read what the user can read, and write nowhere but a private
               temporary folder (and /dev/null, /dev/zero, /dev/full)
    workspace  commands also write the project folder, the temporary folders and the
               roots the user adds (settings' sandbox.writableRoots)

Network is off in both unless asked for (`--sandbox-net`, settings' "network": true):
TCP connect and bind are refused where the kernel's Landlock allows it (ABI 4 and up).
The in-process tools (write, edit) follow the same write roots, after resolving links.

This module is the policy: which mode, which roots, what the kernel can enforce. It
imports nothing of the agent; the harness hands the policy to the tools through the
core's process and file seams.

Left out: macOS (Seatbelt), UDP and Unix socket files (Landlock does not cover them;
docs/security.md says what stays possible), MCP servers and extensions (not confined).
"""

import os
import sys
from typing import NamedTuple, Optional, Tuple

MODES = ("off", "read-only", "workspace")


class Policy(NamedTuple):
    """What a confined command may do: the mode, where it may write, whether it may
    open TCP connections. `writable` holds real, absolute paths. (A NamedTuple, not a
    dataclass: the launcher imports this package before every command, and the
    dataclasses module alone would double its start-up time.)"""

    mode: str = "off"
    writable: Tuple[str, ...] = ()
    network: bool = False

    @property
    def confines(self) -> bool:
        return self.mode != "off"


def policy_for(mode: str, cwd: str, extra_roots: Tuple[str, ...] = (),
               network: bool = False) -> Policy:
    """The policy of a mode for a project folder. read-only writes only a private temp
    folder; workspace writes the project, the temp folders and `extra_roots`.

    Example: policy_for("workspace", "/src/app").writable
             -> ("/src/app", "/tmp", ...the user's TMPDIR...)
    """
    if mode not in MODES:
        raise ValueError(f"--sandbox {mode}: choose one of {', '.join(MODES)}")
    if mode == "off":
        return Policy()
    if mode == "read-only":
        roots = (private_temp(),)
    else:
        roots = (cwd, *temp_folders(), *extra_roots)
    return Policy(mode, tuple(dict.fromkeys(os.path.realpath(root) for root in roots)), network)


def temp_folders() -> Tuple[str, ...]:
    """The temporary folders a build or a test writes: /tmp, /var/tmp and TMPDIR."""
    import tempfile  # here, not above: the launcher imports this package before every command
    return tuple(dict.fromkeys(("/tmp", "/var/tmp", tempfile.gettempdir())))


def private_temp() -> str:
    """A fresh folder of our own, for read-only mode's commands (TMPDIR points there),
    removed with what they left in it when this process exits."""
    import atexit
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="miniagent-sandbox-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def allows_write(policy: Policy, path: str) -> bool:
    """May an in-process tool write `path`? Links are resolved first, so a link planted
    in the project that points out is outside.

    Example: allows_write(policy_for("workspace", "/src/app"), "/src/app/a.py") -> True
             allows_write(policy_for("workspace", "/src/app"), "/etc/passwd") -> False
    """
    if not policy.confines:
        return True
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip("/") + "/") for root in policy.writable)


def unavailable(policy: Policy) -> Optional[str]:
    """None when the kernel can enforce all `policy` asks, else one line naming what it
    cannot: not Linux, no Landlock, or (network off) an ABI too old to refuse TCP. The
    caller refuses to start on any line; a policy that allows the network does not ask
    for the TCP rule, so an older kernel is enough for it.

    Example: unavailable(policy_for("off", "/src/app")) -> None
    """
    if not policy.confines:
        return None
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux (Landlock); this is {sys.platform}"
    from . import landlock  # here: a run with the sandbox off never loads ctypes' kernel calls
    version = landlock.abi()
    if version < 1:
        return "this kernel has no Landlock (Linux 5.13+ with landlock in the LSM list)"
    if not policy.network and version < 4:
        return (f"this kernel's Landlock (ABI {version}) cannot refuse TCP connections "
                "(ABI 4, Linux 6.7+); allow the network (\"network\": true) to go on without")
    return None


# The launcher runs isolated (-I: no current folder or PYTHON* variables on its module
# path, so a project's own `miniagent/` folder cannot stand in for it; -S: no site
# packages to load) from the folder this package was loaded from, handed as argv[1].
BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
             "from miniagent.sandbox.launch import main; main(sys.argv[1:])")
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def launcher_argv(policy: Policy) -> Tuple[str, ...]:
    """What goes before a command's argv so that it starts confined; () when the
    policy confines nothing. In read-only mode the private temp folder (the one
    writable root) becomes the command's TMPDIR.

    Example: launcher_argv(policy_for("workspace", "/src/app", network=True))
             -> (python, "-I", "-S", "-c", BOOTSTRAP, PACKAGE_PARENT,
                 "--write", "/src/app", "--write", "/tmp", ..., "--net", "--")
    """
    if not policy.confines:
        return ()
    argv = [sys.executable, "-I", "-S", "-c", BOOTSTRAP, PACKAGE_PARENT]
    for root in policy.writable:
        argv += ["--write", root]
    if policy.network:
        argv.append("--net")
    if policy.mode == "read-only":
        argv += ["--tmp", policy.writable[0]]
    return (*argv, "--")
