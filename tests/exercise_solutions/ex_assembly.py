"""A second correct solution of EXERCISES.md step 2 (ex_assembly): the same routing
rules, each answered by an early return. Spliced into a copy of the package by
tests/test_exercises.py; never imported."""

FILE = "miniagent/core/openai.py"
CLASS = "_ToolCalls"


def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
    """The content index of the call this fragment continues, or None for a new call."""
    slot = None if index is None else self.by_index.get(index)
    if slot is None and call_id:
        slot = self.by_id.get(call_id)
    if slot is None:
        return None if name else self.last  # only a named fragment starts a call
    if not (name and call_id):
        return slot
    recorded = self.builder.message["content"][slot]["id"]
    return None if recorded not in ("", None, call_id) else slot
