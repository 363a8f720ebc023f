"""Shared test helpers: a scripted agent and small tools."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # lets tests import fake_server and friends

from miniagent.agent import Agent  # noqa: E402
from miniagent.providers.scripted import parse_script, scripted_model  # noqa: E402
from miniagent.tools import Tool, text_result  # noqa: E402

SHARED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared")
FIXTURES = os.path.normpath(os.path.join(SHARED, "fixtures"))


def make_agent(turns, tools=(), **kwargs):
    """An Agent whose model replays `turns` (the scripted model's format)."""
    return Agent(model=scripted_model(parse_script(turns)), tools=list(tools), **kwargs)


def echo_tool(name="echo", execute=None, sequential=False):
    """A tool with one required string argument `v` that returns it."""
    schema = {"type": "object", "required": ["v"], "properties": {"v": {"type": "string"}}}
    return Tool(name, f"Echo v back ({name}).", schema,
                execute or (lambda call_id, args, ctx: text_result(args["v"])),
                sequential=sequential)


def call(name, **arguments):
    return {"type": "toolCall", "name": name, "arguments": arguments}


def text(value):
    return {"type": "text", "text": value}


@pytest.fixture
def events():
    """A list that records events: agent.subscribe(events.append)."""
    return []
