"""The harness's session moves: new, fork, the tree with a branch summary, model changes."""

from functools import partial
from dataclasses import replace

import pytest

from helpers import answer, echo_tool, make_agent
from miniagent.compaction.estimate import CompactionSettings
from miniagent.harness.harness import Harness, NothingToCompact
from miniagent.session.stats import SUMMARIES, file_stats
from miniagent.session.tree import Session


def user_texts(agent):
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "user"]


def make_harness(tmp_path, turns):
    return Harness(partial(make_agent, turns, cwd=str(tmp_path)),
                   Session.create(str(tmp_path), session_dir=str(tmp_path / "s")))


def test_fork_ends_before_the_chosen_prompt_and_gives_its_text_back(tmp_path):
    harness = make_harness(tmp_path, [answer("one"), answer("two")])
    harness.run("first")
    harness.run("second")
    old = harness.session
    second = next(e for e in old.entries if e["type"] == "message"
                  and e["message"]["content"][0]["text"] == "second")
    assert harness.fork(second["id"]) == "second"
    assert harness.session is not old and harness.session.header["parentSession"] == old.path
    assert user_texts(harness.agent) == ["first"]


def test_navigate_with_a_summary_records_the_branch_left(tmp_path):
    harness = make_harness(tmp_path, [answer("one"), answer("two"),
                                      answer("## Goal\nTried B"), answer("three")])
    harness.run("first")
    harness.run("try B")
    first_answer = next(e for e in harness.session.entries if e["type"] == "message"
                        and e["message"]["content"][0]["text"] == "one")
    assert harness.navigate(first_answer["id"], summarize=True) is None
    leaf = harness.session.get_entry(harness.session.leaf_id)
    assert leaf["type"] == "branch_summary" and "Tried B" in leaf["summary"]
    harness.run("try C")
    assert user_texts(harness.agent)[0] == "first" and "try B" not in user_texts(harness.agent)
    assert harness.agent.messages[-1]["content"][0]["text"] == "three"


def test_navigate_to_a_prompt_lands_before_it(tmp_path):
    harness = make_harness(tmp_path, [answer("one"), answer("two")])
    harness.run("first")
    harness.run("second")
    second = next(e for e in harness.session.entries if e["type"] == "message"
                  and e["message"]["content"][0]["text"] == "second")
    assert harness.navigate(second["id"]) == "second"
    assert user_texts(harness.agent) == ["first"]


def test_new_session_and_model_changes_are_recorded(tmp_path):
    harness = make_harness(tmp_path, [answer("one")])
    harness.run("first")
    path = harness.session.path
    harness.new_session()
    assert harness.agent.messages == [] and harness.session.id != Session.open(path).id
    assert harness.set_thinking("high") == "off"  # clamped: the scripted model does not reason
    assert [e["type"] for e in harness.session.entries] == ["model_change",
                                                            "thinking_level_change"]
    harness.agent.model.reasoning = True
    assert harness.set_thinking("high") == "high"
    kinds = [e["type"] for e in harness.session.entries]
    assert kinds == ["model_change", "thinking_level_change", "thinking_level_change"]
    assert harness.session.build_context().thinking_level == "high"


def test_compaction_runs_between_turns_once_tool_results_are_in(tmp_path):
    """pi 1.6 checks the context after a turn's tools, before the next model call: a
    long run compacts on its way, not only before or after it."""
    tool_turn = {"content": [{"type": "toolCall", "name": "echo", "arguments": {"v": "x" * 400}}],
                 "usage": {"input": 900, "output": 10, "cacheRead": 0, "cacheWrite": 0}}
    turns = [answer("earlier answer " * 40, input=100, output=50), tool_turn,
             answer("SUMMARY of the work", input=300, output=20), answer("done")]
    harness = Harness(partial(make_agent, turns, tools=[echo_tool()], cwd=str(tmp_path)),
                      Session.create(str(tmp_path), session_dir=str(tmp_path / "s")),
                      CompactionSettings(keep_recent_tokens=300), compact_after_run=False)
    agent = harness.agent
    agent.model = replace(agent.model, context_window=1000)  # reserve 250: compact past 750
    events = []
    agent.subscribe(lambda event: events.append(event["type"]))
    harness.run("earlier prompt")
    harness.run("now use the tool")
    kinds = [e["type"] if e["type"] != "message" else e["message"]["role"]
             for e in harness.session.get_branch()]
    assert kinds.index("compaction") > kinds.index("toolResult")  # between the two calls
    assert kinds[-1] == "assistant" and agent.messages[-1]["content"][0]["text"] == "done"
    start = events.index("compaction_start")
    assert events.index("turn_end") < start < len(events) - events[::-1].index("turn_start") - 1
    entry = next(e for e in harness.session.entries if e["type"] == "compaction")
    assert "SUMMARY of the work" in entry["summary"]
    assert (entry["usage"]["input"], entry["usage"]["output"]) == (300, 20)  # pi's field
    row = file_stats("", harness.session.entries).models[SUMMARIES]
    assert (row["turns"], row["input"], row["output"]) == (1, 300, 20)  # stats count it


def test_a_session_too_small_to_compact_is_refused_in_words(tmp_path):
    harness = make_harness(tmp_path, [answer("one")])
    harness.run("first")
    with pytest.raises(NothingToCompact, match="Nothing to compact yet"):
        harness.compact()
    assert not any(e["type"] == "compaction" for e in harness.session.entries)
