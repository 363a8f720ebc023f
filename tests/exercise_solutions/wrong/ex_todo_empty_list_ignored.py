"""A wrong solution of EXERCISES.md step 8 (ex_todo): `found or todos`, so an empty list
(the model dropped its plan) counts as no list, and the old one comes back.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/extensions/todo.py"
CLASS = None


def latest_list(branch):
    todos = []
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "toolResult" \
                and message.get("toolName") == TOOL and not message.get("isError"):
            todos = list_in(message.get("details")) or todos
    return todos
