"""Helpers the tests share: where the fixtures are, a scripted agent, small tools."""

from pathlib import Path

from miniagent.agent import Agent
from miniagent.providers.scripted import parse_script, scripted_model
from miniagent.tools import Tool, text_result

# Real data copied from ../shared/fixtures (see fixtures/README.md): the suite reads
# only these copies, so it passes from a bare clone.
FIXTURES = Path(__file__).resolve().parent / "fixtures"


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
