"""Checking a session entry read from a file against the shapes we know.

A session file may come from anywhere (a shared session, a pi of another version, a hand
edit), and every module after the loader trusts what it holds: the context builder
calls `entry["message"].get(...)`, export walks content blocks, stats adds up usage. So
the loader checks each entry once, here, and the rest of the program may trust it.

The rule is pi's, and it is lenient on purpose: pi 1.6 writes new entry types and new
fields into version-3 files, and those must load. So

    an entry type we do not know           kept, and ignored by everything
    a field we do not know                 kept, and ignored
    a KNOWN field holding the wrong type   the entry is bad

The shapes are data (SHAPES and friends below): for each known entry type, message
role, content block type and usage, the fields we read and the JSON types each may
hold; the *_REQUIRED names must be present. `entry_problem` walks an entry against them
and names the first field that is wrong:

    {"type":"message","id":"a1","parentId":null,"timestamp":"...","message":"hi"}
        -> "message must be an object"
    {"type":"message",...,"message":{"role":"assistant","content":[{"type":"toolCall",
     "id":"c1","name":"read","arguments":"{}"}],...}}
        -> "message.content[0].arguments must be an object"
    {"type":"sparkles","id":"a2","parentId":"a1","timestamp":"...","glitter":3} -> None

Left out: what to do with a bad entry (the store skips it with a warning, and keeps an
empty node in its place so the branch is not cut); values beyond their JSON type (a
negative token count is usage coercion's business, not the file format's).
"""

from typing import Any, Dict, Optional, Tuple

# The JSON types, in the words a warning uses. Fields we keep without looking inside
# (details, data, arguments' values) are simply not listed.
STRING, NUMBER, BOOL, OBJECT, LIST, NULL = "a string", "a number", "true or false", \
    "an object", "a list", "null"

Shape = Dict[str, Tuple[str, ...]]
NOTHING: Shape = {}  # a role or block type we do not know: no field is looked into

# Every entry: where it sits in the tree.
COMMON: Shape = {"id": (STRING,), "parentId": (STRING, NULL), "timestamp": (STRING,)}

SHAPES: Dict[str, Shape] = {
    "message": {"message": (OBJECT,)},
    "model_change": {"provider": (STRING,), "modelId": (STRING,), "baseUrl": (STRING,)},
    "thinking_level_change": {"thinkingLevel": (STRING,)},
    "compaction": {"summary": (STRING,), "firstKeptEntryId": (STRING,),
                   "tokensBefore": (NUMBER,), "fromHook": (BOOL,), "usage": (OBJECT,),
                   "systemMessage": (OBJECT,)},
    "branch_summary": {"fromId": (STRING,), "summary": (STRING,), "fromHook": (BOOL,)},
    "custom": {"customType": (STRING,)},
    "custom_message": {"customType": (STRING,), "content": (STRING, LIST), "display": (BOOL,)},
    "label": {"targetId": (STRING,), "label": (STRING, NULL)},
    "session_info": {"name": (STRING,)},
    "context_edit": {"targetId": (STRING,), "replacement": (OBJECT, NULL)},
    "usage": {"kind": (STRING,), "provider": (STRING,), "model": (STRING,), "usage": (OBJECT,)},
}

ROLES: Dict[str, Shape] = {
    "user": {"content": (STRING, LIST), "timestamp": (NUMBER,)},
    "assistant": {"content": (LIST,), "api": (STRING,), "provider": (STRING,),
                  "model": (STRING,), "usage": (OBJECT,), "stopReason": (STRING,),
                  "errorMessage": (STRING,), "timestamp": (NUMBER,)},
    "toolResult": {"toolCallId": (STRING,), "toolName": (STRING,), "content": (STRING, LIST),
                   "isError": (BOOL,), "timestamp": (NUMBER,)},
    "bashExecution": {"command": (STRING,), "output": (STRING,), "exitCode": (NUMBER, NULL),
                      "cancelled": (BOOL,), "truncated": (BOOL,), "timestamp": (NUMBER,)},
    "custom": {"customType": (STRING,), "content": (STRING, LIST), "display": (BOOL,)},
    "system": {"content": (STRING, LIST), "sections": (OBJECT,), "toolsAdded": (LIST,),
               "toolsRemoved": (LIST,), "timestamp": (NUMBER,)},
}

BLOCKS: Dict[str, Shape] = {
    "text": {"text": (STRING,)},
    "thinking": {"thinking": (STRING,), "thinkingSignature": (STRING,), "redacted": (BOOL,)},
    "toolCall": {"id": (STRING,), "name": (STRING,), "arguments": (OBJECT,)},
    "image": {"data": (STRING,), "mimeType": (STRING,)},
}

USAGE: Shape = {key: (NUMBER,) for key in ("input", "output", "cacheRead", "cacheWrite",
                                           "totalTokens")}
USAGE["cost"] = (OBJECT,)
COST: Shape = {key: (NUMBER,) for key in ("input", "output", "cacheRead", "cacheWrite", "total")}

# Each known type's fields with the common ones, looked up once per entry.
ENTRY_SHAPES = {kind: {**COMMON, **shape} for kind, shape in SHAPES.items()}

# Fields without which an entry or block cannot be used at all (and a message's role).
ENTRY_REQUIRED = ("id", "timestamp")
KIND_REQUIRED = {"context_edit": ENTRY_REQUIRED + ("targetId", "replacement")}
BLOCK_REQUIRED = {"toolCall": ("id", "name", "arguments"),  # every block needs a type
                  "image": ("data", "mimeType")}


def entry_problem(entry: Dict[str, Any]) -> Optional[str]:
    """What is wrong with a parsed entry (a dict with a "type"), or None when it is fine."""
    kind = entry["type"]
    if type(kind) is not str:
        return "type must be a string"
    shape = ENTRY_SHAPES.get(kind, COMMON)  # a type we do not know: only its place
    problem = (missing(entry, KIND_REQUIRED.get(kind, ENTRY_REQUIRED))
               or fields_problem(entry, shape) or parts_problem(entry))
    if problem or kind != "message":
        return problem
    return message_problem(entry["message"] if "message" in entry else None)


def parts_problem(entry: Dict[str, Any]) -> Optional[str]:
    """pi 1.6's nested parts: a usage entry's usage, a compaction's usage and system
    checkpoint, a context_edit's replacement ({"content": text or blocks}, or null)."""
    problem = usage_problem(entry.get("usage")) if entry["type"] in ("usage", "compaction") \
        else None
    if not problem and entry["type"] == "compaction" and "systemMessage" in entry:
        problem = message_problem(entry["systemMessage"])
        problem = "systemMessage." + problem[len("message."):] if problem else None
    replacement = entry.get("replacement") if entry["type"] == "context_edit" else None
    if not problem and replacement is not None:
        content = replacement.get("content")
        if JSON_TYPES.get(type(content)) not in (STRING, LIST):
            return "replacement.content must be a string or a list"
        problem = content_problem(content, "replacement.content")
    return problem


def message_problem(message: Any) -> Optional[str]:
    if message is None:
        return "message is missing"
    role = message.get("role")
    if type(role) is not str:
        return "message.role " + ("is missing" if role is None else "must be a string")
    shape = ROLES.get(role, NOTHING)  # a role we do not know: kept, not looked into
    problem = fields_problem(message, shape) or content_problem(message.get("content")) \
        or usage_problem(message.get("usage"))
    if not problem and role == "system":
        problem = system_problem(message)
    return "message." + problem if problem else None


def system_problem(message: Dict[str, Any]) -> Optional[str]:
    """A system message's sections map names to text (null removes one); its tools are
    objects with a string name."""
    for name, text in (message.get("sections") or {}).items():
        if JSON_TYPES.get(type(text)) not in (STRING, NULL):
            return f"sections.{name} must be a string or null"
    for field in ("toolsAdded", "toolsRemoved"):
        for number, tool in enumerate(message.get(field) or []):
            if type(tool) is not dict or type(tool.get("name")) is not str:
                return f"{field}[{number}] must be an object with a string name"
    return None


def content_problem(content: Any, name: str = "content") -> Optional[str]:
    """Every block of a content list is an object with a string type, of its shape.
    (rpc checks a prompt's images with it too, named "images".)"""
    if not isinstance(content, list):
        return None  # a string (or absent): already checked against the role's shape
    for number, block in enumerate(content):
        problem = block_problem(block)
        if problem:
            return f"{name}[{number}]{problem}"
    return None


def block_problem(block: Any) -> Optional[str]:
    """What is wrong with one content block, as a suffix: " must be an object", ".text ..."."""
    if type(block) is not dict:
        return " must be an object"
    kind = block.get("type")
    if type(kind) is not str:
        return ".type " + ("is missing" if kind is None else "must be a string")
    problem = (missing(block, BLOCK_REQUIRED.get(kind, ()))
               or fields_problem(block, BLOCKS.get(kind, NOTHING)))
    return "." + problem if problem else None


def usage_problem(usage: Any) -> Optional[str]:
    if usage is None:
        return None
    problem = fields_problem(usage, USAGE)
    if not problem and "cost" in usage:
        problem = fields_problem(usage["cost"], COST)
        problem = "cost." + problem if problem else None
    return "usage." + problem if problem else None


def missing(value: Dict[str, Any], names: Tuple[str, ...]) -> Optional[str]:
    for name in names:
        if name not in value:
            return f"{name} is missing"
    return None


def fields_problem(value: Dict[str, Any], shape: Shape) -> Optional[str]:
    """The first field of `shape` present in `value` with a JSON type it may not hold."""
    for name, allowed in shape.items():
        if name in value and JSON_TYPES.get(type(value[name])) not in allowed:
            return f"{name} must be {' or '.join(allowed)}"
    return None


# The JSON type of a parsed value, looked up by its Python type (a bool is an int in
# Python; JSON keeps them apart, and so do we, since type(True) is bool, not int).
JSON_TYPES = {str: STRING, int: NUMBER, float: NUMBER, bool: BOOL, dict: OBJECT, list: LIST,
              type(None): NULL}
