"""entrycheck: a known field of the wrong type is named; unknown types and fields pass."""

from miniagent.session.check import content_problem, entry_problem

STAMP = "2026-03-15T10:20:30.123Z"


def message(**fields):
    return {"type": "message", "id": "a1", "parentId": None, "timestamp": STAMP, **fields}


def test_the_docstring_examples():
    assert entry_problem(message(message="hi")) == "message must be an object"
    call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": "{}"}
    assert entry_problem(message(message={"role": "assistant", "content": [call]})) == \
        "message.content[0].arguments must be an object"
    assert entry_problem({"type": "sparkles", "id": "a2", "parentId": "a1",
                          "timestamp": STAMP, "glitter": 3}) is None


def test_json_types_are_kept_apart_from_python_ones():
    usage = {"input": True}  # a bool is an int in Python, not a number in JSON
    assert entry_problem(message(message={"role": "assistant", "content": [],
                                          "usage": usage})) == \
        "message.usage.input must be a number"
    cost = {"input": 1, "cost": {"total": "free"}}
    assert entry_problem(message(message={"role": "assistant", "content": [],
                                          "usage": cost})) == \
        "message.usage.cost.total must be a number"
    text = {"role": "user", "content": "hi", "timestamp": 1.5}
    assert entry_problem(message(message=text)) is None


def test_required_fields_and_a_custom_name_for_the_list():
    assert entry_problem({"type": "label", "id": "a1", "targetId": "b"}) == "timestamp is missing"
    assert entry_problem(message()) == "message is missing"
    assert entry_problem(message(message={"content": []})) == "message.role is missing"
    assert content_problem([{"type": "image", "data": "aGk="}], "images") == \
        "images[0].mimeType is missing"
    assert content_problem(["x"], "images") == "images[0] must be an object"


def test_pi_16_parts_are_checked_so_a_bad_one_is_named():
    base = {"id": "e1", "parentId": None, "timestamp": STAMP}
    assert entry_problem({**base, "type": "context_edit", "targetId": "a1",
                          "replacement": None}) is None
    assert entry_problem({**base, "type": "context_edit", "targetId": "a1"}) == \
        "replacement is missing"
    assert entry_problem({**base, "type": "context_edit", "targetId": "a1",
                          "replacement": {"content": 3}}) == \
        "replacement.content must be a string or a list"
    assert entry_problem({**base, "type": "usage", "kind": "cache_warm",
                          "usage": {"input": "many"}}) == "usage.input must be a number"
    system = {"role": "system", "content": "", "sections": {"tools": 3}}
    assert entry_problem(message(message=system)) == \
        "message.sections.tools must be a string or null"
    assert entry_problem({**base, "type": "compaction", "summary": "s", "firstKeptEntryId": "a1",
                          "systemMessage": {"role": "system", "toolsAdded": ["read"]}}) == \
        "systemMessage.toolsAdded[0] must be an object with a string name"
