"""The core's tests run with the rest of the suite and alone (tests/core/test_core_alone.py
copies the core and this folder elsewhere): their helpers sit here, and fake_server one
folder up, importable either way."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
for folder in (HERE, os.path.dirname(HERE)):
    if folder not in sys.path:
        sys.path.insert(0, folder)


@pytest.fixture
def events():
    """A list that records events: agent.subscribe(events.append) (as tests/conftest.py's,
    which a run of the core's tests alone does not have)."""
    return []
