"""A wrong solution of EXERCISES.md step 2 (ex_assembly): looked up by index, then id, with no
check for a reused index: a second call that the server sends at index 0 with its own
id and name is glued onto the first.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/openai.py"
CLASS = "_ToolCalls"


def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
    slot = self.by_index.get(index) if index is not None else None
    if slot is None and call_id:
        slot = self.by_id.get(call_id)
    if slot is None and not name:
        slot = self.last
    return slot
