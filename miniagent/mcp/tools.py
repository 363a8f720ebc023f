"""MCP tools as our Tools: what the model sees of a server, and what a call does.

A server lists its tools (`tools/list`) as name, description and a JSON Schema for
the arguments: the same three things our Tool contract sends the model
(tools/__init__.py). So a server's tool becomes a Tool whose `execute` forwards the
call, and the model cannot tell it from a built-in one:

    server "time": {"name": "get_current_time", "description": "...",
                    "inputSchema": {"type": "object", "properties": {...}}}
      -> Tool(name="mcp__time__get_current_time", description="...", parameters=...,
              execute=lambda ...: the server's answer as content blocks)

It goes through the same gates as the built-in tools: argument validation, the
extensions' hooks, --confirm. An answer with `isError` becomes a ToolError, so the
model reads it as the failure it is (results.py turns the answer into blocks).

A server may also offer resources (files, pages, records it can read out). They reach
the model as three tools shared by every server, named as Codex and pi name them:
`list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, each
taking the server's name. Listings are JSON, each item tagged with its server.

Left out: connecting, reconnecting and the list of servers (servers.py); the names
(naming.py).
"""

import json
from typing import Any, Callable, Dict, List, Optional, Protocol, Tuple

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .naming import RESOURCE_TOOLS
from .results import limit_text, model_content, resource_content, text_block


MAX_DESCRIPTION = 8000
"""Characters of a server's tool description the model is told (the longest real ones,
GitHub's, are a few thousand): a server cannot fill the context with one."""
MAX_TOOLS = 200
MAX_TOOLS_TEXT = 200_000
"""What one server's tools may add to every request: at most MAX_TOOLS tools, with at
most MAX_TOOLS_TEXT characters of descriptions and schemas (the largest real servers
offer about a hundred tools in well under that; 7,000 tools once made each request 28 MB)."""


class Server(Protocol):
    """What a tool needs of its server (servers.py's ConnectedServer)."""

    name: str
    has_resources: bool

    def request(self, what: str, call: Callable[[Any], Dict[str, Any]],
                abort: Any) -> Dict[str, Any]: ...


def server_tool(server: Server, raw: Dict[str, Any], name: str) -> Tool:
    """The Tool for one entry of the server's `tools/list`, offered as `name`."""
    tool = str(raw["name"])

    def execute(call_id: str, args: Dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
        shown = lambda params: ctx.on_update(text_result(progress_text(params)))
        result = server.request(f"tool {tool}", lambda client: client.call_tool(
            tool, args, ctx.abort, on_progress=shown), ctx.abort)
        blocks, details = model_content(server.name, result, server.has_resources)
        details = {"server": server.name, "tool": tool, **details}
        if result.get("isError"):
            text = "\n".join(block["text"] for block in blocks if block["type"] == "text")
            raise ToolError(text or f"MCP tool {server.name}/{tool} returned an error")
        return ToolResult(content=blocks or [text_block("(no output)")], details=details)

    return Tool(name=name, description=describe(server.name, raw),
                parameters=input_schema(raw.get("inputSchema")), execute=execute)


def within_limits(server: str, raw_tools: List[Dict[str, Any]]
                  ) -> Tuple[List[Dict[str, Any]], Optional[str]]:
    """The server's tools that fit MAX_TOOLS and MAX_TOOLS_TEXT, in its order, and one
    warning line when some do not (None when all fit)."""
    kept: List[Dict[str, Any]] = []
    spent = 0
    for raw in raw_tools:
        cost = len(describe(server, raw)) + len(json.dumps(input_schema(raw.get("inputSchema"))))
        if len(kept) == MAX_TOOLS or spent + cost > MAX_TOOLS_TEXT:
            break
        kept.append(raw)
        spent += cost
    if len(kept) == len(raw_tools):
        return kept, None
    return kept, (f'MCP server "{server}" offers {len(raw_tools)} tools; the model gets the '
                  f"first {len(kept)} (at most {MAX_TOOLS} tools and {MAX_TOOLS_TEXT // 1000} KB "
                  f"of descriptions per server)")


def progress_text(params: Dict[str, Any]) -> str:
    """A progress notification as the live line a front end shows while the call runs.

    Example: {"progress": 3, "total": 10, "message": "indexing"} -> "indexing (3/10)"
    """
    done, total = params.get("progress"), params.get("total")
    count = f"{done}/{total}" if total is not None else f"{done}"
    message = params.get("message")
    return f"{message} ({count})" if isinstance(message, str) and message else f"progress {count}"


def describe(server: str, raw: Dict[str, Any]) -> str:
    """The server's own description (within MAX_DESCRIPTION: every request carries it),
    else its title, else where the tool comes from."""
    annotations = raw["annotations"] if isinstance(raw.get("annotations"), dict) else {}
    title = raw.get("title") or annotations.get("title")
    description = raw.get("description")
    if isinstance(description, str) and description.strip():
        text = description.strip()
        return text if len(text) <= MAX_DESCRIPTION else text[:MAX_DESCRIPTION] + "…"
    return str(title)[:MAX_DESCRIPTION] if title else f"MCP tool {raw['name']} from server {server}"


def input_schema(schema: Any) -> Dict[str, Any]:
    """An object schema, as tool APIs need one: servers may leave out `type`, and some
    providers refuse an object schema without `properties`."""
    schema = dict(schema) if isinstance(schema, dict) else {}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


# --- The resource tools ---------------------------------------------------------------------

STRING = {"type": "string"}
LIST_PARAMETERS = {"type": "object", "properties": {
    "server": {**STRING, "description": "The MCP server's name; leave out to list every server's"},
    "cursor": {**STRING, "description": "The nextCursor of an earlier call with this server, "
                                        "for its next page"}}}
READ_PARAMETERS = {"type": "object", "required": ["server", "uri"], "properties": {
    "server": {**STRING, "description": "The MCP server's name, as the listing gives it"},
    "uri": {**STRING, "description": "The resource's URI, as the listing gives it"}}}


def resource_tools(servers: Callable[[], List[Server]]) -> List[Tool]:
    """The three resource tools; `servers()` gives the connected servers that have
    resources, at call time."""
    listing = "Lists the {} MCP servers offer: data a server can read out for you, such " \
              "as files, pages or records. JSON; each item names its server."
    return [
        Tool(RESOURCE_TOOLS[0], listing.format("resources"), LIST_PARAMETERS,
             lambda call_id, args, ctx: list_items(servers, args, ctx, "resources")),
        Tool(RESOURCE_TOOLS[1], listing.format("resource templates (URIs with {parameters})"),
             LIST_PARAMETERS,
             lambda call_id, args, ctx: list_items(servers, args, ctx, "resourceTemplates")),
        Tool(RESOURCE_TOOLS[2], "Reads one resource of an MCP server by its URI.",
             READ_PARAMETERS, lambda call_id, args, ctx: read_item(servers, args, ctx)),
    ]


def find_server(servers: Callable[[], List[Server]], name: str) -> Server:
    available = servers()
    for server in available:
        if server.name == name:
            return server
    names = ", ".join(server.name for server in available) or "none"
    raise ToolError(f'MCP server "{name}" has no resources here; servers with resources: {names}')


def list_items(servers: Callable[[], List[Server]], args: Dict[str, Any], ctx: ToolContext,
               key: str) -> ToolResult:
    """One page of one server's resources (or templates), or every page of every server."""
    check_not_aborted(ctx.abort)
    method = "list_resources" if key == "resources" else "list_resource_templates"
    name, cursor = args.get("server"), args.get("cursor")
    if name:
        server = find_server(servers, name)
        page = server.request(method, lambda client: getattr(client, method)(cursor), ctx.abort)
        payload: Dict[str, Any] = {"server": name, key: tagged(name, page.get(key))}
        if page.get("nextCursor"):
            payload["nextCursor"] = page["nextCursor"]
        return json_result(payload)
    if cursor:
        raise ToolError("cursor needs server: it continues one server's listing")
    payload = {key: [], "errors": []}
    for server in sorted(servers(), key=lambda each: each.name):
        try:
            payload[key].extend(all_pages(server, method, key, ctx))
        except ToolError as exc:
            payload["errors"].append({"server": server.name, "error": str(exc)})
    if not payload["errors"]:
        del payload["errors"]
    return json_result(payload)


def all_pages(server: Server, method: str, key: str, ctx: ToolContext) -> List[Dict[str, Any]]:
    items: List[Dict[str, Any]] = []
    cursor: Optional[str] = None
    while True:
        page = server.request(method, lambda client: getattr(client, method)(cursor), ctx.abort)
        items.extend(tagged(server.name, page.get(key)))
        cursor = page.get("nextCursor")
        if not cursor:
            return items


def tagged(server: str, items: Any) -> List[Dict[str, Any]]:
    """Listed items with their server named, without the parts no model needs: `_meta`,
    icons, and MCP Apps' user interfaces (`ui://`), which only a host that draws them
    can use."""
    kept = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or is_app_interface(item):
            continue
        kept.append({"server": server, **{key: value for key, value in item.items()
                                          if key not in ("_meta", "icons")}})
    return kept


def is_app_interface(item: Dict[str, Any]) -> bool:
    """An MCP App's user interface (`ui://`): for hosts that draw it, not for a model."""
    return str(item.get("uri", item.get("uriTemplate", ""))).startswith("ui://")


def read_item(servers: Callable[[], List[Server]], args: Dict[str, Any],
              ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    server, uri = find_server(servers, args["server"]), args["uri"]
    result = server.request(f"resource {uri}", lambda client: client.read_resource(uri), ctx.abort)
    contents = [item for item in result.get("contents") or [] if isinstance(item, dict)]
    blocks = []
    for item in contents:
        if len(contents) > 1:  # several (a folder's files): each under its URI
            blocks.append(text_block(f"{item.get('uri', '')}:"))
        blocks.extend(resource_content(item))
    blocks, details = limit_text(blocks or [text_block(f"Resource {uri} is empty.")])
    return ToolResult(content=blocks, details={"server": server.name, "uri": uri, **details})


def json_result(payload: Dict[str, Any]) -> ToolResult:
    blocks, details = limit_text([text_block(json.dumps(payload, ensure_ascii=False))])
    return ToolResult(content=blocks, details=details or None)
