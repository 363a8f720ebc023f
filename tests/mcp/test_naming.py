"""MCP tool names: mcp__server__tool, sanitised, within 64 characters, stable."""

from miniagent.mcp.naming import MAX_TOOL_NAME, is_mcp_tool, tool_name


def test_a_plain_name_is_prefixed_with_its_server():
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"


def test_characters_tool_apis_refuse_become_underscores():
    assert tool_name("my-docs", "read.page v2") == "mcp__my_docs__read_page_v2"


def test_a_long_name_is_cut_to_64_with_a_stable_hash():
    name = tool_name("server", "x" * 100)
    assert len(name) == MAX_TOOL_NAME
    assert name.startswith("mcp__server__xxx")
    assert name == tool_name("server", "x" * 100)  # a resumed session's calls still match
    assert name != tool_name("server", "x" * 101)


def test_two_tools_that_sanitise_alike_get_different_names():
    first = tool_name("s", "a-b")
    second = tool_name("s", "a_b", taken={first}.__contains__)
    assert first == "mcp__s__a_b"
    assert second.startswith("mcp__s__a_b_") and second != first


def test_resource_tools_and_prefixed_names_count_as_mcp_tools():
    assert is_mcp_tool("mcp__time__now") and is_mcp_tool("read_mcp_resource")
    assert not is_mcp_tool("read") and not is_mcp_tool("bash")


def test_a_hashed_name_that_is_taken_already_is_hashed_again():
    hashed = tool_name("a", "x" * 100)
    again = tool_name("a", "x" * 100, taken={hashed}.__contains__)
    assert again != hashed and len(again) == MAX_TOOL_NAME and again.startswith("mcp__a__xxx")
    assert again == tool_name("a", "x" * 100, taken={hashed}.__contains__)  # still stable
