"""providers/scripts.py: a user's script file is checked before the core replays it.

The core's parse_script trusts what it is given; the product's (what `from miniagent
import parse_script, load_script` and `--script FILE` use) names the first problem
with its turn, refuses bad prompts, and removes lone surrogates.
"""

import doctest

import pytest

import miniagent
from helpers import make_agent
from miniagent.providers import scripts
from miniagent.providers.scripts import load_script, parse_script

TEXT = {"type": "text", "text": "Let me look."}


def test_the_docstring_example_runs():
    result = doctest.testmod(scripts)
    assert result.attempted > 0 and result.failed == 0


def test_the_library_names_are_the_checking_ones():
    assert miniagent.parse_script is parse_script and miniagent.load_script is load_script


def test_bad_scripts_are_refused_with_the_turn_named():
    bad = [
        ([{"content": [{"type": "toolCall", "arguments": {}}]}], '"name" string'),
        ([{"content": [], "delayMs": "fast"}], "delayMs"),
        ([{"content": [], "usage": {"input": "many"}}], "usage"),
        ([{"content": [], "stopReason": "bogus"}], "stopReason"),
        ([{"content": [{"type": "image"}]}], "not one of"),
        ({"turns": "nope"}, "list of turns"),
    ]
    for script, problem in bad:
        with pytest.raises(ValueError, match=problem):
            parse_script(script, "s.json")


@pytest.mark.parametrize("prompts", ["Fix it", [1, 2], {"a": "b"}])
def test_prompts_that_are_not_a_list_of_strings_are_refused(prompts):
    with pytest.raises(ValueError, match='s.json: "prompts" must be a list of strings'):
        parse_script({"prompts": prompts, "turns": []}, "s.json")


def test_a_good_script_is_the_cores_script():
    script = parse_script({"prompts": ["Fix it"], "afterwards": "Done.", "turns": [{"content": [TEXT]}]})
    assert (script.prompts, script.afterwards, len(script.turns)) == (["Fix it"], "Done.", 1)


def test_lone_surrogates_in_a_script_are_removed():
    agent = make_agent([{"content": [{"type": "text", "text": "bad \ud83d char"}]}])
    agent.prompt("go")
    assert agent.messages[-1]["content"] == [{"type": "text", "text": "bad  char"}]


def test_a_missing_or_broken_file_is_one_line_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="Cannot read script .*none.json: No such file"):
        load_script(str(tmp_path / "none.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match="Script .*broken.json is not valid JSON: "):
        load_script(str(broken))
