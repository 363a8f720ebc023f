"""pytest set-up: the tests folder is importable (helpers, fake_server), shared fixtures."""

import compileall
import os
import re
import signal
import sys

import pytest

from miniagent.errors import STOP_SIGNALS

sys.path.insert(0, os.path.dirname(__file__))  # lets tests import helpers and fake_server
# pytest rewrites each test module's asserts on import, and caches the result only where
# bytecode may be written: under PYTHONDONTWRITEBYTECODE (set in CI and on the project's
# machine) every run, in every worker, rewrote all of them again (about 4 s each).
sys.dont_write_bytecode = False


def pytest_sessionstart(session):
    """Compile the package once, before any test: about a hundred tests start `python -m
    miniagent`, and where PYTHONDONTWRITEBYTECODE is set each of them would compile every
    module it imports again (~70 ms a start). Python reads the compiled files either way;
    the setting only stops it writing them. The eval suite's task files and the demo's
    project are data: a __pycache__ among them would be package data too."""
    package = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "miniagent")
    compileall.compile_dir(package, quiet=1, rx=re.compile(r"/evals/basic/|/core/demo/project/"))


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory, monkeypatch):
    """Every test gets its own miniagent home and temp folder: sessions, trust and
    history never land in the user's ~/.miniagent, and the demo's project copies
    (miniagent-demo-*) land in pytest's own temporary folders, which pytest removes.
    Both sit outside the test's tmp_path, so a test that lists tmp_path sees only
    what it made."""
    home = tmp_path_factory.mktemp("miniagent-home")
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("MINIAGENT_HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(temp))
    return home


@pytest.fixture(autouse=True)
def no_server_reached_yet():
    """Every test starts as a fresh process would: no server has answered it yet
    (transport.REACHED decides whether a refused connection is worth retrying). The
    transport is not imported for tests that never load it."""
    transport = sys.modules.get("miniagent.http.transport")
    if transport is not None:
        transport.REACHED.clear()


@pytest.fixture(autouse=True)
def stop_signal_handlers_put_back():
    """A test that runs a front end directly (print_mode.run, not main(), which puts
    them back) leaves its stop-signal handlers installed; the next test's Ctrl-C must
    meet Python's own, as a fresh process's would."""
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


@pytest.fixture
def home(private_home):
    """The test's miniagent home (MINIAGENT_HOME points there already)."""
    return private_home


@pytest.fixture
def events():
    """A list that records events: agent.subscribe(events.append)."""
    return []


@pytest.fixture
def kernel(monkeypatch):
    """A stand-in for the kernel's sandbox, for tests of the wiring: it enforces
    everything (set `.problem` to a line to make it refuse), and a confined command is
    started through `env MINIAGENT_CONFINED=1`, so a test sees it went through the
    launcher. tests/sandbox/ runs the real Landlock."""
    from miniagent.sandbox import confine

    class Kernel:
        problem = None
    monkeypatch.setattr(confine, "unavailable", lambda policy: Kernel.problem)
    monkeypatch.setattr(confine, "launcher_argv",
                        lambda policy: ("env", "MINIAGENT_CONFINED=1"))
    return Kernel
