"""MCP tools as our Tools: the schema the model sees, errors, the resource tools."""

import json
import threading

import pytest

from miniagent.mcp.tools import (
    MAX_TOOLS_TEXT, describe, input_schema, resource_tools, server_tool, within_limits)
from miniagent.core.tools import ToolContext, ToolError, validate_arguments


class FakeClient:
    def __init__(self):
        self.calls = []

    def call_tool(self, name, arguments, abort, on_progress=None):
        self.calls.append((name, arguments))
        if name == "fail":
            return {"content": [{"type": "text", "text": "no such city"}], "isError": True}
        return {"content": [{"type": "text", "text": f"{name}: {arguments}"}]}

    def list_resources(self, cursor):
        if cursor is None:
            return {"resources": [{"uri": "file:///a", "name": "a", "_meta": {"x": 1}},
                                  {"uri": "ui://app", "name": "an app"}], "nextCursor": "2"}
        return {"resources": [{"uri": "file:///b", "name": "b"}]}

    def list_resource_templates(self, cursor):
        return {"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "files"}]}

    def read_resource(self, uri):
        return {"contents": [{"uri": uri, "text": "contents of " + uri}]}


class FakeServer:
    def __init__(self, name):
        self.name, self.client, self.has_resources = name, FakeClient(), True

    def request(self, what, call, abort):
        return call(self.client)


def context():
    return ToolContext(cwd=".", abort=threading.Event())


def test_a_server_tool_keeps_its_description_and_gets_an_object_schema():
    server = FakeServer("time")
    tool = server_tool(server, {"name": "now", "description": " The time. ",
                                "inputSchema": {"properties": {"tz": {"type": "string"}}}},
                       "mcp__time__now")
    assert tool.spec() == {"name": "mcp__time__now", "description": "The time.",
                           "parameters": {"type": "object",
                                          "properties": {"tz": {"type": "string"}}}}
    result = tool.execute("c1", {"tz": "UTC"}, context())
    assert result.content == [{"type": "text", "text": "now: {'tz': 'UTC'}"}]
    assert result.details == {"server": "time", "tool": "now"}


def test_a_tool_without_description_says_where_it_comes_from():
    tool = server_tool(FakeServer("s"), {"name": "x"}, "mcp__s__x")
    assert tool.description == "MCP tool x from server s"
    assert tool.parameters == {"type": "object", "properties": {}}


def test_an_error_result_is_a_tool_error_with_the_servers_words():
    tool = server_tool(FakeServer("s"), {"name": "fail"}, "mcp__s__fail")
    with pytest.raises(ToolError, match="^no such city$"):
        tool.execute("c1", {}, context())


def test_arguments_are_validated_against_the_servers_schema():
    tool = server_tool(FakeServer("s"), {"name": "x", "inputSchema": {
        "type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}},
        "mcp__s__x")
    assert validate_arguments(tool, {"n": "5"}) == {"n": 5}
    with pytest.raises(ToolError, match="n: missing required property"):
        validate_arguments(tool, {})


def test_list_resources_of_every_server_reads_every_page_and_tags_the_server():
    servers = [FakeServer("b"), FakeServer("a")]
    listing = resource_tools(lambda: servers)[0]
    payload = json.loads(listing.execute("c", {}, context()).content[0]["text"])
    assert payload == {"resources": [
        {"server": "a", "uri": "file:///a", "name": "a"},
        {"server": "a", "uri": "file:///b", "name": "b"},
        {"server": "b", "uri": "file:///a", "name": "a"},
        {"server": "b", "uri": "file:///b", "name": "b"}]}


def test_list_resources_of_one_server_gives_one_page_and_its_cursor():
    listing = resource_tools(lambda: [FakeServer("a")])[0]
    payload = json.loads(listing.execute("c", {"server": "a"}, context()).content[0]["text"])
    assert payload["nextCursor"] == "2" and len(payload["resources"]) == 1
    with pytest.raises(ToolError, match='MCP server "z" has no resources here; servers '
                                        'with resources: a'):
        listing.execute("c", {"server": "z"}, context())


def test_templates_and_reading_a_resource():
    templates, read = resource_tools(lambda: [FakeServer("a")])[1:]
    payload = json.loads(templates.execute("c", {}, context()).content[0]["text"])
    assert payload == {"resourceTemplates": [
        {"server": "a", "uriTemplate": "file:///{path}", "name": "files"}]}
    result = read.execute("c", {"server": "a", "uri": "file:///a"}, context())
    assert result.content == [{"type": "text", "text": "contents of file:///a"}]


def test_progress_is_shown_with_its_message_and_total():
    from miniagent.mcp.tools import progress_text
    assert progress_text({"progress": 3, "total": 10, "message": "indexing"}) == "indexing (3/10)"
    assert progress_text({"progress": 0.5}) == "progress 0.5"


def test_a_huge_description_is_cut_so_a_server_cannot_fill_the_context():
    from miniagent.mcp.tools import MAX_DESCRIPTION
    tool = server_tool(FakeServer("s"), {"name": "x", "description": "y" * 10**6},
                       "mcp__s__x")
    assert len(tool.description) == MAX_DESCRIPTION + 1 and tool.description.endswith("…")


def test_a_servers_tools_are_cut_where_their_descriptions_pass_the_limit():
    raw = [{"name": f"t{n}", "description": "x" * 4000} for n in range(100)]
    kept, warning = within_limits("wordy", raw)
    sent = sum(len(describe("wordy", tool)) + len(json.dumps(input_schema(None))) for tool in kept)
    assert 0 < len(kept) < 100 and sent <= MAX_TOOLS_TEXT
    assert warning.startswith(f'MCP server "wordy" offers 100 tools; the model gets the first '
                              f"{len(kept)} ")
    assert within_limits("small", raw[:3]) == (raw[:3], None)
