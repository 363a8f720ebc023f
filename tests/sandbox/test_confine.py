"""The sandbox as the tools meet it (sandbox/confine.py): the words a refused write and
a denied command get, the start-up line, /sandbox's change, and flags over settings.
The kernel's part (unavailable, launcher_argv) is stood in for here: its own tests are
test_landlock.py and test_launch.py."""

import os

import pytest

from miniagent.errors import ConfigError
from miniagent.project.settings import SandboxSettings
from miniagent.sandbox.confine import Sandbox, check_enforceable, sandbox_for


def test_a_write_outside_the_roots_is_refused_naming_the_sandbox(tmp_path):
    project = tmp_path / "app"
    project.mkdir()
    sandbox = Sandbox("workspace", str(project))
    assert sandbox.refuse_write(str(project / "a.py")) is None
    refused = sandbox.refuse_write("/etc/x")
    assert refused.startswith("Not written: /etc/x is outside the sandbox's writable roots "
                              f"(--sandbox workspace: {os.path.realpath(project)}, /tmp")
    assert refused.endswith("Ask the user, or write inside the project.")
    (project / "out").symlink_to("/etc")  # a link planted in the project that points out
    assert sandbox.refuse_write(str(project / "out" / "x")) is not None
    assert Sandbox("read-only", str(project)).refuse_write(str(project / "a.py")).endswith(
        "Ask the user.")
    assert Sandbox("off", str(project)).refuse_write("/etc/x") is None


def test_a_failure_that_reads_like_a_denial_gets_the_note(tmp_path):
    sandbox = Sandbox("workspace", str(tmp_path))
    note = sandbox.explain_failure("touch: cannot touch '/etc/x': Permission denied")
    assert note.startswith("(The sandbox (--sandbox workspace) may have refused this: it "
                           "allows writes only in ")
    assert note.endswith(" and no network. Ask the user rather than retrying.)")
    assert sandbox.explain_failure("curl: (7) Connection refused")
    assert sandbox.explain_failure("AssertionError: 1 != 2") is None
    with_network = Sandbox("workspace", str(tmp_path), network=True)
    assert with_network.explain_failure("curl: (7) Connection refused") is None
    assert Sandbox("off", str(tmp_path)).explain_failure("Permission denied") is None


def test_the_start_up_line_and_the_state(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIAGENT_SANDBOX_ABI", "7")  # the lines of a kernel that scopes signals
    assert Sandbox("workspace", str(tmp_path)).describe() == \
        "workspace (writes: project, temp; network off)"
    assert Sandbox("workspace", str(tmp_path), ("/data",), True).describe() == \
        "workspace (writes: project, temp, /data; network on)"
    assert Sandbox("read-only", str(tmp_path)).describe() == \
        "read-only (writes: a private temp folder; network off)"
    assert Sandbox("off", str(tmp_path)).describe() == "off"
    monkeypatch.setenv("MINIAGENT_SANDBOX_ABI", "5")  # never weaker in silence
    assert Sandbox("workspace", str(tmp_path)).describe() == \
        "workspace (writes: project, temp; network off; signals not confined (Landlock ABI 5))"
    state = Sandbox("workspace", str(tmp_path)).state()
    assert state["mode"] == "workspace" and state["network"] is False
    assert state["writableRoots"][0] == os.path.realpath(tmp_path)


def test_a_mode_the_kernel_cannot_enforce_stops_start_up_and_a_change(tmp_path, kernel):
    kernel.problem = "this kernel has no Landlock (Linux 5.13 or later needed)"
    with pytest.raises(ConfigError) as refused:
        check_enforceable(Sandbox("workspace", str(tmp_path)))
    assert str(refused.value) == ("--sandbox workspace: this kernel has no Landlock "
                                  "(Linux 5.13 or later needed)")
    check_enforceable(Sandbox("off", str(tmp_path)))  # off asks the kernel nothing
    sandbox = Sandbox("off", str(tmp_path))
    assert sandbox.change("read-only") == f"--sandbox read-only: {kernel.problem}"
    assert sandbox.policy.mode == "off"  # unchanged
    kernel.problem = None
    assert sandbox.change("read-only") is None and sandbox.policy.mode == "read-only"
    assert sandbox.launcher() == ("env", "MINIAGENT_CONFINED=1")


def test_the_flags_win_over_settings_and_roots_are_expanded(tmp_path):
    settings = SandboxSettings("read-only", ["data"], True)
    chosen = sandbox_for(None, False, settings, str(tmp_path))
    assert (chosen.policy.mode, chosen.policy.network) == ("read-only", True)
    flagged = sandbox_for("workspace", False, settings, str(tmp_path))
    assert flagged.policy.mode == "workspace"
    assert os.path.realpath(tmp_path / "data") in flagged.policy.writable
    assert sandbox_for(None, False, SandboxSettings(), str(tmp_path)).policy.mode == "off"
    assert sandbox_for(None, True, SandboxSettings("workspace"), str(tmp_path)).policy.network


def test_an_extension_narrows_the_sandbox_for_a_while_and_never_widens_it(tmp_path, kernel):
    sandbox = Sandbox("workspace", str(tmp_path))
    assert sandbox.narrow("read-only", "plan mode") is None
    assert sandbox.in_force.mode == "read-only" and sandbox.policy.mode == "workspace"
    refused = sandbox.refuse_write(str(tmp_path / "a.py"))
    assert "(read-only, for plan mode: " in refused
    assert sandbox.describe().endswith(", for plan mode")
    assert sandbox.state()["mode"] == "read-only"
    assert sandbox.narrow(None) is None and sandbox.refuse_write(str(tmp_path / "a.py")) is None
    with pytest.raises(ValueError):
        Sandbox("read-only", str(tmp_path)).narrow("workspace", "x")
    kernel.problem = "this kernel has no Landlock"
    off = Sandbox("off", str(tmp_path))
    assert off.narrow("read-only", "plan mode") == "sandbox read-only: this kernel has no Landlock"
    assert off.in_force.mode == "off"  # unchanged: the caller falls back (plan's allow-list)
