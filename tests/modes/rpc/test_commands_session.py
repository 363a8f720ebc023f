"""The rpc session commands in this process: moves refused where nothing could be saved;
get_tree's nodes as pi writes them, built without recursion, and its bound."""

import os
from functools import partial

import pytest

from helpers import answer, make_agent
from miniagent.errors import SessionError
from miniagent.harness.harness import Harness
from miniagent.files.text import to_json
from miniagent.modes.rpc.commands_session import MAX_TREE_DEPTH, SessionCommands, tree_node
from miniagent.session.tree import Session, TreeNode


def session_commands(tmp_path, turns):
    """The commands on a harness whose session lives in tmp_path/s (never busy here)."""
    harness = Harness(partial(make_agent, turns, cwd=str(tmp_path)),
                      Session.create(str(tmp_path), session_dir=str(tmp_path / "s")))
    return SessionCommands(harness, lambda command: None), harness


def refusal(move, request):
    with pytest.raises(SessionError) as refused:
        move(request)
    return str(refused.value)


def test_a_session_that_could_not_be_written_is_refused_and_the_current_one_kept(tmp_path):
    # Accepted, such a session lost every later reply (a NUL even crashed the recording).
    commands, harness = session_commands(tmp_path, [answer("one"), answer("two")])
    harness.run("first")
    kept = harness.session
    assert refusal(commands.switch_session, {"sessionPath": "/tmp/a\0b.jsonl"}) == \
        "cannot write session /tmp/a\\0b.jsonl: a path cannot hold a NUL character"
    assert refusal(commands.switch_session, {"sessionPath": "/proc/self/new.jsonl"}).startswith(
        "cannot write session /proc/self/new.jsonl: ")
    assert harness.session is kept
    harness.run("second")
    assert [entry["message"]["role"] for entry in Session.open(kept.path).entries
            if entry["type"] == "message"] == ["user", "assistant", "user", "assistant"]
    os.rename(tmp_path / "s", tmp_path / "moved")
    (tmp_path / "s").write_text("")  # the folder new sessions go to is now a file
    assert refusal(commands.new_session, {}).endswith(f"{tmp_path / 's'} is a file, not a folder")
    assert harness.session is kept


def chain(length):
    """A session of `length` entries, each the parent of the next (the usual shape)."""
    root = node = TreeNode({"id": "0"})
    for number in range(1, length):
        child = TreeNode({"id": str(number)})
        node.children.append(child)
        node = child
    return root


def test_a_long_chain_becomes_nested_nodes_that_json_can_write():
    shown = tree_node(chain(MAX_TREE_DEPTH))
    depth, node = 1, shown
    while node["children"]:
        depth, node = depth + 1, node["children"][0]
    assert depth == MAX_TREE_DEPTH and node == {"entry": {"id": str(MAX_TREE_DEPTH - 1)},
                                                "children": []}
    assert to_json(shown).count('"entry"') == MAX_TREE_DEPTH


def test_a_labelled_entry_carries_its_label():
    root = TreeNode({"id": "a"}, [TreeNode({"id": "b"}, [], "checkpoint")])
    assert tree_node(root) == {"entry": {"id": "a"}, "children": [
        {"entry": {"id": "b"}, "children": [], "label": "checkpoint"}]}


def test_a_tree_too_deep_for_json_is_an_error_that_names_get_entries():
    with pytest.raises(ValueError, match="get_entries"):
        tree_node(chain(MAX_TREE_DEPTH + 1))
