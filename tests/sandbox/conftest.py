"""The sandbox tests' set-up: real commands run through the real launcher, on this kernel.

They skip only where the kernel has no Landlock, even under CI=true: a kernel cannot be
installed by CI. (The MINIAGENT_SANDBOX_ABI test switch is ignored for that decision.)

Where "outside" lives: every test's TMPDIR and tmp_path are under /tmp, which the
workspace mode's real policy lets commands write, so a file written "outside the
project" but under /tmp would prove nothing. The tests therefore hand the launcher a
policy of their own: the project and a private temp folder are the only writable roots,
and "outside" is the project's sibling under tmp_path, which no root covers. So the
walls are tested exactly, nothing is written beyond pytest's temp folders, and a
failure cannot leave a file in the user's home or the repository. Which roots each mode
chooses is policy_for's business, tested on its own.
"""

import os
import subprocess

import pytest

from miniagent.sandbox import Policy, launcher_argv, landlock


def kernel_abi() -> int:
    """The ABI the kernel itself speaks, whatever the test switch says."""
    saved = os.environ.pop(landlock.TEST_ABI, None)
    try:
        return landlock.abi()
    finally:
        if saved is not None:
            os.environ[landlock.TEST_ABI] = saved


KERNEL_ABI = kernel_abi()
NO_LANDLOCK = "this kernel has no Landlock (Linux 5.13+ with landlock in the LSM list)"


def pytest_collection_modifyitems(items):
    """Every test in this folder needs Landlock; skip them all, saying why, without it."""
    if KERNEL_ABI == 0:
        for item in items:
            if os.sep + "sandbox" + os.sep in str(item.fspath):
                item.add_marker(pytest.mark.skip(reason=NO_LANDLOCK))


@pytest.fixture(autouse=True)
def the_kernels_own_abi(monkeypatch):
    """The walls tested are this kernel's: a test switch left in the environment is
    removed (a test that wants it sets it again)."""
    monkeypatch.delenv(landlock.TEST_ABI, raising=False)


@pytest.fixture
def require_abi():
    """require_abi(4, "refusing TCP"): skip a test of a rule this kernel's ABI predates."""
    def require(version: int, what: str):
        if KERNEL_ABI < version:
            pytest.skip(f"{what} needs Landlock ABI {version}; this kernel has {KERNEL_ABI}")
    return require


class Box:
    """A project folder, its sibling "outside", and a private temp folder, with a way
    to run a shell command confined to them."""

    def __init__(self, root):
        self.project = root / "project"
        self.outside = root / "outside"
        self.temp = root / "temp"
        for folder in (self.project, self.outside, self.temp):
            folder.mkdir()

    def policy(self, mode="workspace", network=False) -> Policy:
        if mode == "read-only":
            return Policy(mode, (str(self.temp),), network)
        return Policy(mode, (str(self.project), str(self.temp)), network)

    def run(self, command, mode="workspace", network=False, env=None):
        """`/bin/sh -c command` in the project, through the launcher; the result."""
        environment = {**os.environ, "TMPDIR": str(self.temp), **(env or {})}
        argv = [*launcher_argv(self.policy(mode, network)), "/bin/sh", "-c", command]
        return subprocess.run(argv, cwd=self.project, env=environment, capture_output=True,
                              text=True, timeout=120)

    def outside_files(self):
        return sorted(os.listdir(self.outside))


@pytest.fixture
def box(tmp_path):
    return Box(tmp_path)
