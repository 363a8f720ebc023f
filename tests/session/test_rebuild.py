"""Rebuilding the model's context from a session tree: pi's build-context cases, as ours."""

from miniagent.session.rebuild import build_session_context

T = "2025-01-01T00:00:00Z"


def msg(entry_id, parent_id, role, text):
    entry = {"type": "message", "id": entry_id, "parentId": parent_id, "timestamp": T}
    if role == "user":
        entry["message"] = {"role": "user", "content": text, "timestamp": 1}
    else:
        entry["message"] = {"role": "assistant", "content": [{"type": "text", "text": text}],
                            "api": "anthropic-messages", "provider": "anthropic",
                            "model": "claude-test", "stopReason": "stop", "timestamp": 1,
                            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                                      "totalTokens": 2}}
    return entry


def compaction(entry_id, parent_id, summary, first_kept):
    return {"type": "compaction", "id": entry_id, "parentId": parent_id, "timestamp": T,
            "summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": 1000}


def branch_summary(entry_id, parent_id, summary, from_id):
    return {"type": "branch_summary", "id": entry_id, "parentId": parent_id, "timestamp": T,
            "summary": summary, "fromId": from_id}


def texts(context):
    """Each message as its text (user content is a string here) or its summary."""
    shown = []
    for message in context.messages:
        if "summary" in message:
            shown.append("summary:" + message["summary"])
        elif isinstance(message["content"], str):
            shown.append(message["content"])
        else:
            shown.append(message["content"][0]["text"])
    return shown


def test_empty_entries_give_an_empty_context():
    context = build_session_context([])
    assert (context.messages, context.thinking_level, context.model) == ([], "off", None)


def test_a_conversation_in_order():
    entries = [msg("1", None, "user", "a"), msg("2", "1", "assistant", "b"),
               msg("3", "2", "user", "c"), msg("4", "3", "assistant", "d")]
    assert [m["role"] for m in build_session_context(entries).messages] == \
        ["user", "assistant", "user", "assistant"]
    assert len(build_session_context(entries[:1]).messages) == 1


def test_thinking_level_and_model_follow_the_path():
    entries = [msg("1", None, "user", "hi"),
               {"type": "thinking_level_change", "id": "2", "parentId": "1", "timestamp": T,
                "thinkingLevel": "high"},
               msg("3", "2", "assistant", "hello")]
    context = build_session_context(entries)
    assert context.thinking_level == "high" and len(context.messages) == 2
    assert context.model == {"provider": "anthropic", "modelId": "claude-test"}


def test_an_assistant_reply_after_a_model_change_wins():
    entries = [msg("1", None, "user", "hi"),
               {"type": "model_change", "id": "2", "parentId": "1", "timestamp": T,
                "provider": "openai", "modelId": "gpt-4"},
               msg("3", "2", "assistant", "hello")]
    assert build_session_context(entries).model == {"provider": "anthropic", "modelId": "claude-test"}


def test_a_model_change_with_base_url_is_kept_by_replies_of_that_model():
    entries = [{"type": "model_change", "id": "1", "parentId": None, "timestamp": T,
                "provider": "anthropic", "modelId": "claude-test", "baseUrl": "http://127.0.0.1:9"},
               msg("2", "1", "user", "hi"), msg("3", "2", "assistant", "hello")]
    assert build_session_context(entries).model == {
        "provider": "anthropic", "modelId": "claude-test", "baseUrl": "http://127.0.0.1:9"}


def test_compaction_summary_comes_first_then_the_kept_entries():
    entries = [msg("1", None, "user", "first"), msg("2", "1", "assistant", "response1"),
               msg("3", "2", "user", "second"), msg("4", "3", "assistant", "response2"),
               compaction("5", "4", "Summary of first two turns", "3"),
               msg("6", "5", "user", "third"), msg("7", "6", "assistant", "response3")]
    context = build_session_context(entries)
    assert texts(context) == ["summary:Summary of first two turns", "second", "response2",
                              "third", "response3"]
    assert context.messages[0] == {"role": "compactionSummary",
                                   "summary": "Summary of first two turns",
                                   "tokensBefore": 1000, "timestamp": 1735689600000}


def test_compaction_keeping_from_the_first_message():
    entries = [msg("1", None, "user", "first"), msg("2", "1", "assistant", "response"),
               compaction("3", "2", "Empty summary", "1"), msg("4", "3", "user", "second")]
    assert texts(build_session_context(entries)) == ["summary:Empty summary", "first",
                                                     "response", "second"]


def test_only_the_latest_compaction_counts():
    entries = [msg("1", None, "user", "a"), msg("2", "1", "assistant", "b"),
               compaction("3", "2", "First summary", "1"), msg("4", "3", "user", "c"),
               msg("5", "4", "assistant", "d"), compaction("6", "5", "Second summary", "4"),
               msg("7", "6", "user", "e")]
    assert texts(build_session_context(entries)) == ["summary:Second summary", "c", "d", "e"]


def test_a_kept_id_off_the_path_keeps_nothing_before_the_compaction():
    entries = [msg("1", None, "user", "a"), compaction("2", "1", "S", "elsewhere"),
               msg("3", "2", "user", "b")]
    assert texts(build_session_context(entries)) == ["summary:S", "b"]


def test_the_leaf_chooses_the_branch():
    entries = [msg("1", None, "user", "start"), msg("2", "1", "assistant", "response"),
               msg("3", "2", "user", "branch A"), msg("4", "2", "user", "branch B")]
    assert texts(build_session_context(entries, "3"))[-1] == "branch A"
    assert texts(build_session_context(entries, "4")) == ["start", "response", "branch B"]


def test_a_branch_summary_on_the_path_is_a_message():
    entries = [msg("1", None, "user", "start"), msg("2", "1", "assistant", "response"),
               msg("3", "2", "user", "abandoned path"),
               branch_summary("4", "2", "Summary of abandoned work", "3"),
               msg("5", "4", "user", "new direction")]
    context = build_session_context(entries, "5")
    assert texts(context) == ["start", "response", "summary:Summary of abandoned work",
                              "new direction"]
    assert context.messages[2] == {"role": "branchSummary", "summary": "Summary of abandoned work",
                                   "fromId": "3", "timestamp": 1735689600000}


def test_an_empty_branch_summary_is_not_a_message():
    entries = [msg("1", None, "user", "start"), branch_summary("2", "1", "", "1")]
    assert texts(build_session_context(entries)) == ["start"]


def test_complex_tree_with_branches_and_compaction():
    entries = [msg("1", None, "user", "start"), msg("2", "1", "assistant", "r1"),
               msg("3", "2", "user", "q2"), msg("4", "3", "assistant", "r2"),
               compaction("5", "4", "Compacted history", "3"),
               msg("6", "5", "user", "q3"), msg("7", "6", "assistant", "r3"),
               msg("8", "3", "user", "wrong path"), msg("9", "8", "assistant", "wrong response"),
               branch_summary("10", "3", "Tried wrong approach", "9"),
               msg("11", "10", "user", "better approach")]
    assert texts(build_session_context(entries, "7")) == [
        "summary:Compacted history", "q2", "r2", "q3", "r3"]
    assert texts(build_session_context(entries, "11")) == [
        "start", "r1", "q2", "summary:Tried wrong approach", "better approach"]


def test_an_unknown_leaf_means_the_last_entry_and_none_means_nothing():
    entries = [msg("1", None, "user", "hello"), msg("2", "1", "assistant", "hi")]
    assert len(build_session_context(entries, "nonexistent").messages) == 2
    assert build_session_context(entries, None).messages == []


def test_an_orphan_gives_only_itself():
    entries = [msg("1", None, "user", "hello"), msg("2", "missing", "assistant", "orphan")]
    assert texts(build_session_context(entries, "2")) == ["orphan"]


def test_a_parent_loop_ends_the_walk():
    entries = [msg("1", "2", "user", "a"), msg("2", "1", "assistant", "b")]
    assert texts(build_session_context(entries, "2")) == ["a", "b"]


def test_custom_messages_are_shaped_as_pi_shapes_them():
    entries = [{"type": "custom_message", "id": "1", "parentId": None, "timestamp": T,
                "customType": "note", "content": "remember", "display": False},
               {"type": "custom", "id": "2", "parentId": "1", "timestamp": T, "customType": "state"}]
    assert build_session_context(entries).messages == [
        {"role": "custom", "customType": "note", "content": "remember", "display": False,
         "timestamp": 1735689600000}]


def edit(entry_id, parent_id, target, replacement):
    return {"type": "context_edit", "id": entry_id, "parentId": parent_id, "timestamp": T,
            "targetId": target, "replacement": replacement}


def tool_result(entry_id, parent_id, text):
    return {"type": "message", "id": entry_id, "parentId": parent_id, "timestamp": T,
            "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                        "content": [{"type": "text", "text": text}], "isError": False,
                        "timestamp": 1}}


def test_the_latest_context_edit_on_the_path_wins_and_null_drops_the_entry():
    entries = [msg("u1", None, "user", "run it"), tool_result("r1", "u1", "secret"),
               edit("e1", "r1", "r1", None), edit("e2", "e1", "r1", {"content": "[gone]"}),
               edit("e3", "e2", "u1", None), msg("a1", "e3", "assistant", "done")]
    context = build_session_context(entries)
    assert texts(context) == ["[gone]", "done"]
    result = context.messages[0]
    # a string replacement becomes one text block for a tool result; the rest is kept
    assert result["content"] == [{"type": "text", "text": "[gone]"}]
    assert result["toolCallId"] == "c1" and result["toolName"] == "bash"
    assert entries[1]["message"]["content"][0]["text"] == "secret"  # the entry is untouched


def test_context_edits_are_branch_relative_and_user_strings_stay_strings():
    entries = [msg("u1", None, "user", "hello"), edit("e1", "u1", "u1", {"content": "hi"}),
               msg("a1", "e1", "assistant", "one"),
               msg("a2", "u1", "assistant", "other branch")]  # before the edit: no edit
    assert texts(build_session_context(entries, "a1")) == ["hi", "one"]
    assert texts(build_session_context(entries, "a2")) == ["hello", "other branch"]
    blocks = [{"type": "text", "text": "as blocks"}]
    entries[1]["replacement"] = {"content": blocks}
    assert build_session_context(entries, "a1").messages[0]["content"] == blocks


def test_system_messages_and_usage_entries_are_never_sent():
    system = {"type": "message", "id": "s1", "parentId": None, "timestamp": T,
              "message": {"role": "system", "content": "", "timestamp": 1,
                          "sections": {"preamble": "You are someone else."},
                          "toolsAdded": [{"name": "read", "description": "", "parameters": {}}]}}
    usage = {"type": "usage", "id": "g1", "parentId": "a1", "timestamp": T, "kind": "cache_warm",
             "provider": "p", "model": "m", "usage": {"input": 0, "output": 0}}
    entries = [system, msg("u1", "s1", "user", "hi"), msg("a1", "u1", "assistant", "yo"), usage]
    context = build_session_context(entries)
    assert [m["role"] for m in context.messages] == ["user", "assistant"]
