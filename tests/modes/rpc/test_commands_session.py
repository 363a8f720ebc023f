"""get_tree's nodes as pi writes them, built without recursion, and its bound."""

import pytest

from miniagent.messages import to_json
from miniagent.modes.rpc.commands_session import MAX_TREE_DEPTH, tree_node
from miniagent.session.tree import TreeNode


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
