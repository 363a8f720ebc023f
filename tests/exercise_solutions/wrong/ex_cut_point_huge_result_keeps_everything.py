"""A wrong solution of EXERCISES.md step 5 (ex_cut_point): when no cut point follows the entry
that fills the budget (a huge last tool result), everything is kept, as pi does, and
nothing is compacted.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/compaction/compaction.py"
CLASS = None


def find_cut_point(entries: List[Dict[str, Any]], start: int, end: int,
                   keep_recent_tokens: int) -> CutPoint:
    cut_points = [i for i in range(start, end) if _is_cut_point(entries[i])]
    if not cut_points:
        return CutPoint(start, None, False)
    cut = cut_points[0]
    collected = 0
    for index in range(end - 1, start - 1, -1):
        if entries[index].get("type") != "message":
            continue
        collected += estimate_tokens(entries[index]["message"])
        if collected >= keep_recent_tokens:
            later = [i for i in cut_points if i >= index]
            cut = later[0] if later else start
            break
    is_user = entry_role(entries[cut]) == "user"
    turn_start = None if is_user else _find_turn_start(entries, cut, start)
    while cut > start and entries[cut - 1].get("type") not in ("message", "compaction"):
        cut -= 1
    return CutPoint(cut, turn_start, turn_start is not None)
