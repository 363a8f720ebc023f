"""A wrong solution of EXERCISES.md step 2 (ex_assembly): fragments matched by id alone, and a
fragment without one continues the last call: interleaved parallel calls, which name
their call only by index, get their arguments crossed.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/openai.py"
CLASS = "_ToolCalls"


def _route(self, index: Any, call_id: str, name: str) -> Optional[int]:
    if call_id and call_id in self.by_id:
        return self.by_id[call_id]
    return None if name else self.last
