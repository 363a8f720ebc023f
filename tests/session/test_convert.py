"""What the model sees: app-level message kinds become user messages, wire messages
pass unchanged, and no provider ever receives a role it does not know."""

import json

from helpers import FIXTURES
from miniagent.session.convert import bash_execution_message, convert_to_llm, custom_message
from miniagent.core.messages import assistant_message, text_of, user_message


def only(messages):
    [message] = convert_to_llm(messages)
    return message


def test_wire_messages_pass_unchanged_and_unknown_roles_are_left_out():
    user, reply = user_message("hi"), assistant_message("a", "p", "m")
    converted = convert_to_llm([user, {"role": "someFutureKind", "x": 1}, reply])
    assert converted == [user, reply] and converted[0] is user


def test_a_users_shell_command_reads_as_a_user_message_with_its_output():
    message = only([bash_execution_message("ls", "a.py\nb.py", 0)])
    assert message["role"] == "user"
    assert text_of(message) == "I ran `ls` in my shell. Output:\n```\na.py\nb.py\n```"


def test_a_failed_cancelled_or_cut_command_says_so():
    failed = text_of(only([bash_execution_message("make", "", 2)]))
    assert failed == "I ran `make` in my shell. It printed nothing.\n\nCommand exited with code 2"
    cancelled = text_of(only([bash_execution_message("sleep 9", "", None, cancelled=True)]))
    assert cancelled.endswith("(I cancelled the command before it finished.)")
    assert "exited" not in cancelled
    cut = text_of(only([bash_execution_message("cat big", "x" * 10, 0, truncated=True,
                                                full_output_path="/tmp/out.txt")]))
    assert cut.endswith("[The output was cut; all of it is in /tmp/out.txt]")


def test_a_command_run_with_two_bangs_never_reaches_the_model():
    hidden = bash_execution_message("cat ~/.netrc", "secret", 0, exclude_from_context=True)
    assert convert_to_llm([hidden]) == []


def test_custom_messages_become_user_messages_with_their_content():
    assert only([custom_message("note", "remember the tests")])["content"] == \
        [{"type": "text", "text": "remember the tests"}]
    blocks = [{"type": "text", "text": "see"}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]
    message = only([custom_message("shot", blocks, display=False, details={"k": 1})])
    assert message == {"role": "user", "content": blocks, "timestamp": message["timestamp"]}


def test_summaries_are_framed_so_the_model_carries_on_from_them():
    compacted = text_of(only([{"role": "compactionSummary", "summary": "## Goal\nFix it",
                                  "tokensBefore": 5000, "timestamp": 1}]))
    assert compacted.endswith("<summary>\n## Goal\nFix it\n</summary>")
    assert "summary below" in compacted
    branch = text_of(only([{"role": "branchSummary", "summary": "Tried X; it failed.",
                               "fromId": "abc12345", "timestamp": 1}]))
    assert branch.endswith("<summary>\nTried X; it failed.\n</summary>")
    assert "another branch" in branch


def test_a_real_pi_session_with_shell_commands_is_sent_without_raw_roles():
    path = FIXTURES / "pi-sessions" / "pi-v1-before-compaction.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    messages = [e["message"] for e in entries if e.get("type") == "message"]
    messages.append(custom_message("reminder", "run the linter"))
    assert {m["role"] for m in messages} == {"user", "assistant", "toolResult", "bashExecution", "custom"}
    sent = convert_to_llm(messages)
    assert {m["role"] for m in sent} == {"user", "assistant", "toolResult"}
    assert len(sent) == len(messages)  # nothing of these was excluded
    shell = [text_of(m) for m in sent if text_of(m).startswith("I ran `")]
    assert len(shell) == 3 and shell[0].startswith("I ran `ls` in my shell. Output:\n```\nAGENTS.md\n")
    assert text_of(sent[-1]) == "run the linter"
