"""A wrong solution of EXERCISES.md step 8 (ex_todo): the details are taken as the file
says, so a session file from elsewhere feeds the terminal whatever it holds.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/extensions/todo.py"
CLASS = None


def list_in(details):
    if not isinstance(details, dict) or "todos" not in details:
        return None
    return details["todos"]
