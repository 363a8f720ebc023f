"""The sandbox as the tools meet it: one object the harness builds and hands down.

The policy (sandbox/__init__.py) says what a confined command may do; this module
turns it into the three answers the tools ask for at every call (tools/__init__.py):

    launcher()              what goes before bash's argv: the launcher that confines
    refuse_write(path)      None, or the tool error a write outside the roots gets:
        "Not written: /etc/x is outside the sandbox's writable roots (--sandbox
         workspace: /src/app, /tmp). Ask the user, or write inside the project."
    explain_failure(output) None, or the line a failed command's result gains when its
                            output reads like a denial ("Blocked means said"):
        "(The sandbox (--sandbox workspace) may have refused this: it allows writes
         only in /src/app, /tmp and no network. Ask the user rather than retrying.)"

A denial inside a command is a plain permission error: the kernel does not say who
refused. So the note says "may have", and only when the command failed and its output
has one of the words below; the model is told to ask rather than to find a way round.
With --confirm we do not offer to run the command unconfined: an offer is one more
question to get wrong, and the user can always widen the sandbox with /sandbox.

The mode can change mid-session (/sandbox MODE), so the object holds the policy and
the tools ask it each time; `change(mode)` checks first that the kernel can enforce
the new mode (`unavailable`), as start-up does (`check_enforceable`). An extension may
narrow it for a while (`narrow("read-only", "plan mode")`: plan mode's bash), never
widen it; the narrowed policy is the one in force until `narrow(None)` lifts it.

Left out: the confinement itself (launch.py, landlock.py).
"""

import os
from typing import Any, Dict, Optional, Tuple

from ..errors import ConfigError
from ..tools import Unconfined
from . import Policy, allows_write, launcher_argv, policy_for, unavailable

DENIED = ("Permission denied", "Operation not permitted", "Read-only file system")
NO_NETWORK = ("Connection refused", "Network is unreachable")
STRICTNESS = ("off", "workspace", "read-only")  # each confines more than the one before


class Sandbox(Unconfined):
    """The session's sandbox: a policy for the project folder `cwd`, with the user's
    extra roots and network choice kept for /sandbox MODE."""

    def __init__(self, mode: str, cwd: str, extra_roots: Tuple[str, ...] = (),
                 network: bool = False):
        self.cwd, self.extra_roots, self.network = cwd, extra_roots, network
        self.policy = policy_for(mode, cwd, extra_roots, network)
        self.narrowed: Optional[Tuple[Policy, str]] = None  # (policy, why): an extension's

    @property
    def in_force(self) -> Policy:
        """The policy the tools obey: an extension's narrower one while it holds."""
        return self.narrowed[0] if self.narrowed else self.policy

    def label(self) -> str:
        """How a refusal names the mode: '--sandbox workspace', 'read-only, for plan mode'."""
        if self.narrowed:
            return f"{self.narrowed[0].mode}, for {self.narrowed[1]}"
        return f"--sandbox {self.policy.mode}"

    def launcher(self) -> Tuple[str, ...]:
        return launcher_argv(self.in_force) if self.in_force.confines else ()

    def refuse_write(self, path: str) -> Optional[str]:
        policy = self.in_force
        if allows_write(policy, path):
            return None
        instead = ", or write inside the project" if policy.mode == "workspace" else ""
        return (f"Not written: {path} is outside the sandbox's writable roots "
                f"({self.label()}: {', '.join(policy.writable)}). Ask the user{instead}.")

    def explain_failure(self, output: str) -> Optional[str]:
        policy = self.in_force
        words = DENIED + (() if policy.network else NO_NETWORK)
        if not policy.confines or not any(word in output for word in words):
            return None
        network = "network" if policy.network else "no network"
        return (f"(The sandbox ({self.label()}) may have refused this: it allows writes "
                f"only in {', '.join(policy.writable)} and {network}. "
                f"Ask the user rather than retrying.)")

    def narrow(self, mode: Optional[str], reason: str = "") -> Optional[str]:
        """An extension's stricter mode until narrow(None) (plan mode: "read-only");
        None when it is in force, else the line saying why the kernel cannot hold it
        (nothing changes then). A mode wider than the user's raises ValueError: an
        extension may narrow the sandbox, never widen it."""
        if mode is None:
            self.narrowed = None
            return None
        if STRICTNESS.index(mode) < STRICTNESS.index(self.policy.mode):
            raise ValueError(f"sandbox {mode} is wider than the user's {self.policy.mode}")
        policy = policy_for(mode, self.cwd, self.extra_roots, self.network)
        problem = policy.confines and unavailable(policy)
        if problem:
            return f"sandbox {mode}: {problem}"
        self.narrowed = (policy, reason or "an extension")
        return None

    def describe(self) -> str:
        """'workspace (writes: project, temp; network off)', or 'off'; what the kernel
        cannot confine is named too, never left out in silence (signals below ABI 6).
        An extension's narrowing says whose: 'read-only (...), for plan mode'."""
        policy = self.in_force
        if not policy.confines:
            return "off"
        if policy.mode == "read-only":
            writes = "a private temp folder"
        else:
            writes = ", ".join(("project", "temp", *self.extra_roots))
        from . import landlock  # only a sandbox that confines asks the kernel
        signals = "" if landlock.abi() >= 6 else f"; signals not confined (Landlock ABI {landlock.abi()})"
        whose = f", for {self.narrowed[1]}" if self.narrowed else ""
        return (f"{policy.mode} (writes: {writes}; "
                f"network {'on' if policy.network else 'off'}{signals}){whose}")

    def state(self) -> Dict[str, Any]:
        """rpc's get_state "sandbox": {mode, writableRoots, network}, as in force."""
        policy = self.in_force
        return {"mode": policy.mode, "writableRoots": list(policy.writable),
                "network": policy.network}

    def change(self, mode: str) -> Optional[str]:
        """Switch to `mode` for the rest of the session (/sandbox MODE); the line saying
        why not when the kernel cannot enforce it (the mode is then unchanged)."""
        policy = policy_for(mode, self.cwd, self.extra_roots, self.network)
        problem = policy.confines and unavailable(policy)
        if problem:
            return f"--sandbox {mode}: {problem}"
        self.policy = policy
        return None


def sandbox_of(harness: Any) -> Unconfined:
    """The session's sandbox, for the front ends (the project's; none for a Harness
    built without a project, as a library user may)."""
    return harness.project.sandbox if harness.project else Unconfined()


def sandbox_for(flag_mode: Optional[str], flag_network: bool, settings: Any, cwd: str) -> Sandbox:
    """The run's sandbox: the flags win over settings.json's "sandbox" (SandboxSettings);
    the default is off."""
    mode = flag_mode or settings.mode or "off"
    roots = tuple(expand_root(root, cwd) for root in settings.writableRoots or ())
    return Sandbox(mode, cwd, roots, flag_network or bool(settings.network))


def expand_root(root: str, cwd: str) -> str:
    """'~/.cache/pip' -> '/home/me/.cache/pip'; a relative root is the project's."""
    return os.path.join(cwd, os.path.expanduser(root))


def check_enforceable(sandbox: Sandbox) -> None:
    """At start-up: a mode other than off that the kernel cannot enforce stops the run
    (never weaker in silence): ConfigError, one line, exit 2."""
    policy = sandbox.policy
    problem = policy.confines and unavailable(policy)
    if problem:
        raise ConfigError(f"--sandbox {policy.mode}: {problem}")

