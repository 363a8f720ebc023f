"""What a summarizer reads: the serialised conversation (tool results cut at 2,000
characters), the file lists, and an input cut to fit its window."""

from helpers import call, reply, text
from miniagent.core.messages import tool_result_message, user_message
from miniagent.compaction.summarize import (FileOps, format_file_lists, keep_newest,
                                 serialize_conversation, without_file_lists)


def test_a_long_tool_result_is_cut_to_2000_characters_with_the_rest_counted():
    serialised = serialize_conversation([tool_result_message("c", "read", [text("r" * 5000)])])
    assert serialised == "[Tool result]: " + "r" * 2000 + "\n\n[... 3000 more characters not shown]"


def test_a_short_tool_result_is_kept_whole():
    serialised = serialize_conversation([tool_result_message("c", "read", [text("r" * 1500)])])
    assert serialised == "[Tool result]: " + "r" * 1500


def test_user_and_assistant_text_is_never_cut():
    serialised = serialize_conversation([user_message("u" * 9000), reply(text("a" * 9000))])
    assert serialised == "[User]: " + "u" * 9000 + "\n\n[Assistant]: " + "a" * 9000


def test_an_assistant_message_gives_text_then_calls_and_leaves_its_thinking_out():
    message = reply(text("Let me look."), {"type": "thinking", "thinking": "hmm"},
                    call("read", path="a.py", offset=10), call("bash", command="ls -l"))
    assert serialize_conversation([message]) == (  # pi 1.6 sends the summarizer no thinking
        "[Assistant]: Let me look.\n\n"
        '[Assistant tool calls]: read(path="a.py", offset=10); bash(command="ls -l")')


def test_empty_parts_are_left_out():
    assert serialize_conversation([user_message(""), reply(), tool_result_message("c", "x", [])]) == ""


def test_files_read_and_modified_are_collected_from_tool_calls():
    ops = FileOps()
    ops.seed({"readFiles": ["old.md"], "modifiedFiles": ["setup.py"]})
    ops.add_messages([reply(call("read", path="a.py"), call("read", path="b.py"),
                            call("edit", path="b.py"), call("write", path="c.py"),
                            call("bash", command="cat d.py"), call("read", path=7)),
                      user_message("read e.py")])
    assert ops.details() == {"readFiles": ["a.py", "old.md"],
                             "modifiedFiles": ["b.py", "c.py", "setup.py"]}


def test_file_lists_end_a_summary_and_can_be_taken_off_again():
    lists = format_file_lists({"readFiles": ["a.py"], "modifiedFiles": ["b.py"]})
    assert lists == ("\n\n<read-files>\na.py\n</read-files>\n\n"
                     "<modified-files>\nb.py\n</modified-files>")
    assert format_file_lists({"readFiles": [], "modifiedFiles": []}) == ""
    assert without_file_lists("## Goal\nX" + lists) == "## Goal\nX"


def test_keeping_the_newest_part_starts_at_a_message():
    assert keep_newest("[User]: aaaa\n\n[User]: bb", 12) == "[User]: bb"
    assert keep_newest("[User]: aaaa", 100) == "[User]: aaaa"
    assert keep_newest("[Tool result]: " + "z" * 50, 10) == "z" * 10  # no label in reach
