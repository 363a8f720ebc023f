"""A wrong solution of EXERCISES.md step 2 (ex_assembly): an id the slot has not seen starts a
call even without a name: a server that sends a fresh id on every fragment gets one
call per fragment.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/openai.py"
CLASS = "_ToolCalls"


def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
    slot = self.by_index.get(index) if index is not None else None
    if slot is None and call_id:
        slot = self.by_id.get(call_id)
    if slot is None and not name:
        slot = self.last
    if slot is not None and call_id:
        known_id = self.builder.message["content"][slot]["id"]
        if known_id and known_id != call_id:
            return None
    return slot
