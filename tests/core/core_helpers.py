"""What the core's tests share, built from the core alone (tests/helpers.py builds the
product's Agent and tools, which these tests must not load)."""

from pathlib import Path

from miniagent.core.agent import Agent
from miniagent.core.scripted import parse_script, scripted_model
from miniagent.core.tools import Tool, text_result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"  # tests/fixtures


def make_agent(turns, tools=(), **kwargs):
    """A core Agent whose model replays `turns` (the scripted model's format)."""
    return Agent(model=scripted_model(parse_script(turns)), tools=list(tools), **kwargs)


def echo_tool(name="echo", execute=None, sequential=False):
    """A tool with one required string argument `v` that returns it."""
    schema = {"type": "object", "required": ["v"], "properties": {"v": {"type": "string"}}}
    return Tool(name, f"Echo v back ({name}).", schema,
                execute or (lambda call_id, args, ctx: text_result(args["v"])),
                sequential=sequential)


def answer(value, **usage):
    """A turn that answers with text; given `usage` (input=..., output=...), the turn
    reports those token counts and zero for the rest."""
    turn = {"content": [text(value)]}
    if usage:
        turn["usage"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **usage}
    return turn


def call(name, **arguments):
    return {"type": "toolCall", "name": name, "arguments": arguments}


def text(value):
    return {"type": "text", "text": value}
