"""A todo list: a tool whose state lives in the session (`-e todo`).

LESSON. On a task of many steps a model loses its place: it forgets a step, or
stops after the first. Every big agent answers with a list the model keeps for
itself (Claude Code's TodoWrite, Codex's plan tool). The mechanism is small:

    the model calls   todo_write {todos: [{content, status}, ...]}    the WHOLE list
    the tool answers  the list as text (the model reads its own plan back), and
                      keeps it in the result's `details` (the session file has it)
    the terminal      draws it in the live area while the agent works
                      (api.ctx.ui.set_widget; print mode: a block of lines on stderr)

The list is never held in memory. Where it stands is the last todo_write result on
the current branch of the session (api.ctx.session.get_branch()), so resume (-c), a
/tree move to an older point, a fork and the HTML export all show the list as it
was there, with no code for any of them. A compaction summarizes old turns away,
results included, so after one the list is handed to the model again as a custom
message (api.add_message): the plan survives the summary.

Why the whole list each time, not add/toggle actions (as pi's example has)? One call
says everything, so a result can never be out of step with the list before it, and
reading the state back is "take the last one". The names (todos, content, status:
pending, in_progress, completed) are Claude Code's: models have seen that shape
often and call it right the first time (docs/decisions.md).

Left out: Claude Code's second wording of an item for the spinner ("Running the
tests"), priorities, ids, and nested items.
"""

from typing import Any, Dict, List, Optional

from miniagent.core.tools import Tool, ToolError, text_result

TOOL = "todo_write"
WIDGET = "todo"  # the key of our lines in the live area
MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
MAX_ITEMS = 50  # a list longer than this is not a plan any more
MAX_CONTENT = 200  # characters of one item: a few words, not a paragraph
WIDGET_ITEMS = 4  # items the live area shows under the count (the REPL shows 5 lines)

# The first sentence is the system prompt's line for the tool (project/system_prompt.py
# lists each tool by it): it says when to use the list, the rest how.
DESCRIPTION = (
    "Keep a todo list for work of three or more steps, and update it as you go; skip it "
    "for a question or a one-step change. Send the whole list each time (it replaces the "
    "last one). Mark one item in_progress before you start it and completed as soon as it "
    "is done; add items you discover, remove ones that no longer apply.")

PARAMETERS = {
    "type": "object",
    "required": ["todos"],
    "properties": {"todos": {
        "type": "array",
        "description": "The whole list, in order.",
        "items": {
            "type": "object",
            "required": ["content", "status"],
            "properties": {
                "content": {"type": "string", "description": "The step, in a few words."},
                "status": {"type": "string", "enum": list(MARKS)}}}}},
}

Todo = Dict[str, str]  # {"content": "run the tests", "status": "pending"}


def setup(api: Any) -> None:
    def write_list(call_id: str, args: Dict[str, Any], ctx: Any) -> Any:
        todos = checked_list(args["todos"])
        api.ctx.ui.set_widget(WIDGET, widget_lines(todos) if todos else None)
        return text_result(f"The todo list now reads ({count_line(todos)}):\n"
                           f"{list_text(todos)}", details={"todos": todos})

    def current() -> List[Todo]:
        return latest_list(api.ctx.session.get_branch()) if api.ctx.session else []

    def show_while_working(event: Dict[str, Any]) -> None:
        todos = current()
        if any(todo["status"] != "completed" for todo in todos):
            api.ctx.ui.set_widget(WIDGET, widget_lines(todos))

    def hide(event: Dict[str, Any]) -> None:
        api.ctx.ui.set_widget(WIDGET, None)

    def keep_after_compaction(event: Dict[str, Any]) -> None:
        todos = current()
        if "result" in event and todos:  # a compaction that happened, and a list
            api.add_message("The todo list so far (kept across the summary):\n"
                            f"{list_text(todos)}", "todo")

    def show_list(argument: str) -> str:
        todos = current()
        if not todos:
            return "The todo list is empty."
        return f"todos ({count_line(todos)}):\n{list_text(todos)}"

    api.register_tool(Tool(TOOL, DESCRIPTION, PARAMETERS, write_list))
    api.on("agent_start", show_while_working)
    api.on("agent_settled", hide)
    api.on("compaction_end", keep_after_compaction)
    api.register_command("todos", show_list, "the todo list as it stands on this branch")


def checked_list(items: List[Dict[str, Any]]) -> List[Todo]:
    """The list as the model sent it (the schema checked the shape), or ToolError
    saying what to fix."""
    if len(items) > MAX_ITEMS:
        raise ToolError(f"The list has {len(items)} items; keep it to {MAX_ITEMS} at most "
                        "by grouping small steps.")
    todos = [{"content": " ".join(item["content"].split()), "status": item["status"]}
             for item in items]
    for number, todo in enumerate(todos, 1):
        if not todo["content"]:
            raise ToolError(f"Item {number} is empty: say what the step is, in a few words.")
        if len(todo["content"]) > MAX_CONTENT:
            raise ToolError(f"Item {number} is {len(todo['content'])} characters long; "
                            f"keep each under {MAX_CONTENT}: a few words.")
    working = [todo["content"] for todo in todos if todo["status"] == "in_progress"]
    if len(working) > 1:
        raise ToolError(f"{len(working)} items are in_progress ({'; '.join(working)}); "
                        "work on one at a time: mark the others pending or completed.")
    return todos


def latest_list(branch: List[Dict[str, Any]]) -> List[Todo]:
    """The list the last successful todo_write on this branch left; [] before any."""
    todos: List[Todo] = []
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "toolResult" \
                and message.get("toolName") == TOOL and not message.get("isError"):
            found = list_in(message.get("details"))
            todos = todos if found is None else found
    return todos


def list_in(details: Any) -> Optional[List[Todo]]:
    """A result's details read back, or None: a session file may come from elsewhere,
    so its shape is checked, never trusted."""
    items = details.get("todos") if isinstance(details, dict) else None
    if not isinstance(items, list):
        return None
    todos = [item for item in items if isinstance(item, dict)
             and isinstance(item.get("content"), str) and item.get("status") in MARKS]
    return todos if len(todos) == len(items) else None


def list_text(todos: List[Todo]) -> str:
    """Example: [{"content": "fix it", "status": "in_progress"}] -> "[>] fix it"."""
    return "\n".join(line_of(todo) for todo in todos) or "(empty)"


def line_of(todo: Todo) -> str:
    # Model text goes to a terminal: nothing unprintable (an escape code) passes.
    content = "".join(c if c.isprintable() else " " for c in todo["content"])
    return f"{MARKS[todo['status']]} {content}"


def count_line(todos: List[Todo]) -> str:
    done = sum(todo["status"] == "completed" for todo in todos)
    return f"{done} of {len(todos)} completed"


def widget_lines(todos: List[Todo]) -> List[str]:
    """The count, then a few items from the first one not completed (what is next)."""
    open_at = next((i for i, todo in enumerate(todos) if todo["status"] != "completed"),
                   len(todos))
    start = max(0, min(open_at, len(todos) - WIDGET_ITEMS))
    shown = todos[start:start + WIDGET_ITEMS]
    return [f"todos: {count_line(todos)}"] + [line_of(todo) for todo in shown]
