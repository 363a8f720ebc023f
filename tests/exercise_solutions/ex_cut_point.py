"""A second correct solution of EXERCISES.md step 5 (ex_cut_point): first find where the
budget is reached, then choose the cut point from there. Spliced into a copy of the
package by tests/test_exercises.py; never imported."""

FILE = "miniagent/compaction/compaction.py"
CLASS = None


def find_cut_point(entries: List[Dict[str, Any]], start: int, end: int,
                   keep_recent_tokens: int) -> CutPoint:
    """Where to cut entries[start:end] so that about keep_recent_tokens stay."""
    allowed = [i for i in range(start, end) if _is_cut_point(entries[i])]
    if not allowed:
        return CutPoint(start, None, False)
    reached = None  # the entry at which the newest messages fill the budget
    tokens = 0
    for index in reversed(range(start, end)):
        if entries[index].get("type") == "message":
            tokens += estimate_tokens(entries[index]["message"])
            if tokens >= keep_recent_tokens:
                reached = index
                break
    if reached is None:
        cut = allowed[0]
    else:
        after = [i for i in allowed if i >= reached]
        cut = after[0] if after else [i for i in allowed if i < reached][-1]
    turn_start = None
    if entry_role(entries[cut]) != "user":
        turn_start = _find_turn_start(entries, cut, start)
    while cut > start and entries[cut - 1].get("type") not in ("message", "compaction"):
        cut -= 1  # settings entries go with what follows them
    return CutPoint(cut, turn_start, turn_start is not None)
