"""A wrong solution of EXERCISES.md step 2 (ex_assembly): every fragment that names a tool
starts a call: servers that repeat the name on every fragment get one call per
fragment.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/openai.py"
CLASS = "_ToolCalls"


def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
    if name:
        return None
    slot = self.by_index.get(index) if index is not None else None
    if slot is None and call_id:
        slot = self.by_id.get(call_id)
    return self.last if slot is None else slot
