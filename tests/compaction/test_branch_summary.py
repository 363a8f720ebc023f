"""Branch summaries for /tree: which entries are being left, which of them fit, and
the summary that is made of them."""

import pytest

from helpers import call, reply, text
from miniagent import providers
from miniagent.compaction.branch_summary import (NO_BRANCH_CONTENT, collect_entries_to_summarize,
                                      prepare_branch_summary, summarize_branch)
from miniagent.compaction.estimate import CompactionSettings
from miniagent.errors import CompactionError
from miniagent.core.messages import text_of, tool_result_message, user_message
from miniagent.core.scripted import parse_script, scripted_model
from miniagent.compaction.summarize import BRANCH_PROMPT


def entry(entry_id, parent, message=None, **fields):
    base = {"id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    if message is not None:
        return {**base, "type": "message", "message": message}
    return {**base, **fields}


def tree():
    """u1 - a1 - u2 - a2 (reads x.py) - r2 - a3   (the old leaf, e5)
               \\- u3                               (the target, e6)"""
    entries = [entry("e0", None, user_message("start")), entry("e1", "e0", reply(text("hi"))),
               entry("e2", "e1", user_message("try the risky refactor")),
               entry("e3", "e2", reply(call("read", path="x.py"))),
               entry("e4", "e3", tool_result_message("c", "read", [text("x = 1")])),
               entry("e5", "e4", reply(text("it broke the build"))),
               entry("e6", "e1", user_message("let us do it carefully"))]
    return {e["id"]: e for e in entries}


def test_the_entries_left_are_those_after_the_last_shared_one_oldest_first():
    by_id = tree()
    assert [e["id"] for e in collect_entries_to_summarize(by_id, "e5", "e6")] == ["e2", "e3", "e4", "e5"]
    assert [e["id"] for e in collect_entries_to_summarize(by_id, "e5", "e2")] == ["e3", "e4", "e5"]
    assert collect_entries_to_summarize(by_id, "e5", "e5") == []
    assert collect_entries_to_summarize(by_id, None, "e6") == []


def test_preparation_leaves_tool_results_out_and_lists_the_files():
    entries = collect_entries_to_summarize(tree(), "e5", "e6")
    prep = prepare_branch_summary(entries, 128_000, CompactionSettings())
    assert [m["role"] for m in prep.messages] == ["user", "assistant", "assistant"]
    assert prep.details == {"readFiles": ["x.py"], "modifiedFiles": []}


def test_only_the_newest_messages_that_fit_are_taken_but_a_summary_may_squeeze_in():
    def branch(oldest):
        return [oldest, entry("u", "s", user_message("u" * 4000)),
                entry("a", "u", reply(text("a" * 4000)))]

    summary = entry("s", None, type="branch_summary", fromId="r", summary="s" * 4800,
                    details={"readFiles": ["old.py"], "modifiedFiles": []})
    # window 4,000: reserve 1,000, budget 3,000; a and u take 2,000 (under 90 % of it),
    # so the 1,200-token summary is still taken, though it overshoots; a message is not
    prep = prepare_branch_summary(branch(summary), 4000, CompactionSettings())
    assert [m["role"] for m in prep.messages] == ["branchSummary", "user", "assistant"]
    long_request = entry("s", None, user_message("q" * 4800))
    prep = prepare_branch_summary(branch(long_request), 4000, CompactionSettings())
    assert [m["role"] for m in prep.messages] == ["user", "assistant"]
    small = prepare_branch_summary(branch(summary), 2400, CompactionSettings())  # budget 1,800
    assert [m["role"] for m in small.messages] == ["assistant"]
    assert small.details["readFiles"] == ["old.py"]  # the lists of every earlier summary


def test_the_branch_summary_is_the_models_text_and_the_file_lists():
    prep = prepare_branch_summary(collect_entries_to_summarize(tree(), "e5", "e6"),
                                  128_000, CompactionSettings())
    model = scripted_model(parse_script([{"content": [text("## Goal\nRefactor")]}]))
    sent = []

    def stream_fn(model, context, options):
        sent.append((text_of(context["messages"][0]), options.max_tokens))
        return providers.stream(model, context, options)

    summary = summarize_branch(prep, model, stream_fn, custom_instructions="why it broke")
    assert summary == "## Goal\nRefactor\n\n<read-files>\nx.py\n</read-files>"
    [(asked, max_tokens)] = sent
    assert BRANCH_PROMPT in asked and asked.endswith("Pay particular attention to: why it broke")
    assert "[User]: try the risky refactor" in asked and "x = 1" not in asked
    assert max_tokens == 2048


def test_replaced_instructions_take_the_prompts_place():
    prep = prepare_branch_summary(collect_entries_to_summarize(tree(), "e5", "e6"),
                                  128_000, CompactionSettings())
    sent = []

    def stream_fn(model, context, options):
        sent.append(text_of(context["messages"][0]))
        return providers.stream(model, context, options)

    model = scripted_model(parse_script([{"content": [text("one line")]}]))
    summarize_branch(prep, model, stream_fn, custom_instructions="One line only.",
                     replace_instructions=True)
    assert sent[0].endswith("</conversation>\n\nOne line only.") and BRANCH_PROMPT not in sent[0]


def test_an_empty_branch_needs_no_model_and_a_failure_is_an_error():
    empty = prepare_branch_summary([], 128_000, CompactionSettings())
    assert summarize_branch(empty, None, None) == NO_BRANCH_CONTENT
    prep = prepare_branch_summary(collect_entries_to_summarize(tree(), "e5", "e6"),
                                  128_000, CompactionSettings())
    model = scripted_model(parse_script([{"content": [], "errorMessage": "401 bad key"}]))
    with pytest.raises(CompactionError, match="^Summarising the branch failed: 401 bad key$"):
        summarize_branch(prep, model, providers.stream)
