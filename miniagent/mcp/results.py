"""An MCP tool's answer as the model's content blocks: text, images, resources, limits.

A server answers `tools/call` with a CallToolResult:

    {"content": [{"type": "text", "text": "..."}, {"type": "image", "data", "mimeType"},
                 {"type": "resource", "resource": {"uri", "text" | "blob", "mimeType"}},
                 {"type": "resource_link", "uri", "name", ...}, {"type": "audio", ...}],
     "structuredContent": {...},   "isError": false}

Our models read text and images, so each block becomes one of those:

    text, image              kept as they are
    embedded resource        its text; a blob of a text type decoded; an image blob as
                             an image; any other blob saved to a temp file, its path named
    resource link            one line naming it (and read_mcp_resource, when it can read it)
    audio                    one line saying it was left out
    no content at all        the structuredContent as JSON text

A server's text has no limit of its own: a 5 MB page would fill the context. Text
over 20 KB (all text blocks together) keeps its first and last 10 KB around a
"…N chars truncated…" marker, and the whole text goes to a temp file the model can
`read`, as bash's full output does.

Left out: calling the server (client.py) and what an error result means to the
loop (tools.py raises it as a ToolError).
"""

import base64
import json
import os
import secrets
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from ..tools.hardening.truncate import format_size

MAX_TEXT_BYTES = 20 * 1024
"""Model-facing text of one MCP result beyond this is cut in the middle (pi's limit)."""

Blocks = List[Dict[str, Any]]


def model_content(server: str, result: Dict[str, Any],
                  can_read: bool = False) -> Tuple[Blocks, Dict]:
    """(blocks for the model, details) of a CallToolResult; `can_read` says the
    resource tools can read this server's resources (a link then says how)."""
    raw = result.get("content")
    blocks: Blocks = []
    for block in raw if isinstance(raw, list) else []:
        if isinstance(block, dict):
            blocks.extend(block_content(server, block, can_read))
    if not raw and result.get("structuredContent") is not None:
        blocks = [text_block(json.dumps(result["structuredContent"], ensure_ascii=False, indent=2))]
    return limit_text(blocks)


def block_content(server: str, block: Dict[str, Any], can_read: bool) -> Blocks:
    """One MCP content block as zero or more of ours."""
    kind = block.get("type")
    if kind == "text":
        return [text_block(str(block.get("text", "")))]
    if kind == "image" and isinstance(block.get("data"), str):
        return [{"type": "image", "data": block["data"],
                 "mimeType": str(block.get("mimeType") or "image/png")}]
    if kind == "resource" and isinstance(block.get("resource"), dict):
        return resource_content(block["resource"])
    if kind == "resource_link":
        how = f"; read it with read_mcp_resource (server \"{server}\")" if can_read else ""
        name = block.get("title") or block.get("name") or ""
        return [text_block(f"[Resource {block.get('uri', '')} \"{name}\"{how}]")]
    if kind == "audio":
        return [text_block(f"[Audio ({block.get('mimeType', 'unknown type')}) left out: "
                           f"miniagent shows the model text and images only]")]
    return [text_block(f"[A {kind!s} block left out: miniagent does not know this kind]")]


def resource_content(resource: Dict[str, Any]) -> Blocks:
    """The contents of a resource (embedded in a result, or read): text, an image, or a
    blob saved to a file."""
    uri, mime = str(resource.get("uri", "")), str(resource.get("mimeType") or "")
    if "text" in resource:
        return [text_block(str(resource["text"]))]
    try:
        data = base64.b64decode(str(resource.get("blob", "")), validate=True)
    except ValueError:
        return [text_block(f"[Resource {uri}: its blob is not valid base64]")]
    if mime.startswith("image/"):
        return [{"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}]
    if is_text_type(mime):
        return [text_block(data.decode("utf-8", errors="replace"))]
    kind = f"{mime or 'unknown type'}, {format_size(len(data))}"
    try:
        path = save_temp(data, extension_of(uri))
    except OSError as exc:
        reason = exc.strerror or exc
        return [text_block(f"[Binary resource {uri} ({kind}) could not be saved: {reason}]")]
    return [text_block(f"[Binary resource {uri} ({kind}) saved to {path}]")]


def is_text_type(mime: str) -> bool:
    """Blobs of these types are text the model can read."""
    kind = mime.split(";", 1)[0].strip().lower()
    return (kind.startswith("text/") or kind == "application/json"
            or kind.endswith(("+json", "+xml")))


def extension_of(uri: str) -> str:
    """The file extension a saved blob gets: the URI's own (".pdf"), else ".bin"."""
    tail = uri.rsplit("/", 1)[-1]
    stem, dot, extension = tail.rpartition(".")
    plain = dot and stem and extension.isalnum() and len(extension) <= 8
    return f".{extension}" if plain else ".bin"


def text_block(text: str) -> Dict[str, Any]:
    return {"type": "text", "text": text}


# --- The 20 KB limit ------------------------------------------------------------------------

def limit_text(blocks: Blocks) -> Tuple[Blocks, Dict]:
    """The blocks, or, when their text passes MAX_TEXT_BYTES, one text block cut in the
    middle (the whole text saved to a temp file) followed by the images."""
    text = "\n".join(block["text"] for block in blocks if block["type"] == "text")
    cut = cut_middle(text, MAX_TEXT_BYTES)
    if cut is None:
        return blocks, {}
    details: Dict[str, Any] = {}
    try:
        details["fullOutputPath"] = save_temp(text.encode("utf-8"), ".txt")
        where = f"\n\n[Full output: {details['fullOutputPath']} (read it with offset/limit)]"
    except OSError as exc:
        where = f"\n\n[The full output could not be saved: {exc.strerror or exc}]"
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    notice = f"[Output cut to {format_size(MAX_TEXT_BYTES)}: {lines} lines in all]\n\n"
    images = [block for block in blocks if block["type"] == "image"]
    return [text_block(notice + cut + where)] + images, details


def cut_middle(text: str, max_bytes: int) -> Optional[str]:
    """`text` with its middle replaced by "…N chars truncated…" so that it keeps
    max_bytes of UTF-8 (half at each end), or None when it fits.

    Example: cut_middle("abcdefghij", 4) -> "ab…6 chars truncated…ij"
    """
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return None
    head_end = max_bytes // 2
    tail_start = len(data) - (max_bytes - head_end)
    # UTF-8 continuation bytes (0b10xxxxxx) start no character: move to one that does.
    while head_end > 0 and data[head_end] & 0xC0 == 0x80:
        head_end -= 1
    while tail_start < len(data) and data[tail_start] & 0xC0 == 0x80:
        tail_start += 1
    removed = len(data[head_end:tail_start].decode("utf-8"))
    return (f"{data[:head_end].decode('utf-8')}…{removed} chars truncated…"
            f"{data[tail_start:].decode('utf-8')}")


def save_temp(data: bytes, extension: str) -> str:
    """Write `data` to a new file in the temp folder; its path."""
    path = os.path.join(tempfile.gettempdir(), f"miniagent-mcp-{secrets.token_hex(8)}{extension}")
    with open(path, "xb") as out:  # "x": never write into someone else's file
        out.write(data)
    return path
