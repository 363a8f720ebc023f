"""A second correct solution of EXERCISES.md step 8 (ex_todo): the branch read backwards,
the first good list found is the last one written; the shape checked with all().
Spliced into a copy of the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/extensions/todo.py"
CLASS = None


def latest_list(branch):
    for entry in reversed(branch):
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        if message.get("role") != "toolResult" or message.get("toolName") != TOOL:
            continue
        if message.get("isError"):
            continue
        todos = list_in(message.get("details"))
        if todos is not None:
            return todos
    return []


def list_in(details):
    if not isinstance(details, dict) or not isinstance(details.get("todos"), list):
        return None
    items = details["todos"]
    good = all(isinstance(item, dict) and isinstance(item.get("content"), str)
               and item.get("status") in MARKS for item in items)
    return list(items) if good else None
