"""pytest set-up: the tests folder is importable (helpers, fake_server), shared fixtures."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # lets tests import helpers and fake_server


@pytest.fixture
def events():
    """A list that records events: agent.subscribe(events.append)."""
    return []
