"""The system prompt lists the active tools, advice that fits them, the date and cwd."""

import datetime

from miniagent.prompt import build_system_prompt, first_sentence
from miniagent.tools import ALL_TOOLS, create_tools


def test_default_tools_are_listed_with_matching_guidelines():
    prompt = build_system_prompt(create_tools(), "/work/app")
    tool_lines = [line for line in prompt.split("\n") if line.startswith("- ")][:4]
    assert [line.split(":")[0] for line in tool_lines] == ["- read", "- bash", "- edit", "- write"]
    assert "Use bash to explore" in prompt and "grep, find and ls tools" not in prompt
    assert prompt.endswith(f"Current date: {datetime.date.today().isoformat()}\n"
                           f"Current working directory: /work/app")


def test_search_tools_change_the_advice_and_no_tools_says_none():
    prompt = build_system_prompt(create_tools(ALL_TOOLS), "/w")
    assert "- find: Find files by glob pattern, e.g. '*.py'" in prompt
    assert "Prefer the grep, find and ls tools" in prompt
    assert "Tools:\n(none)" in build_system_prompt([], "/w")


def test_first_sentence_ignores_abbreviations():
    assert first_sentence("Read a file. Supports images.") == "Read a file."
    assert first_sentence("Find files by glob, e.g. *.py. Fast.") == "Find files by glob, e.g. *.py."
