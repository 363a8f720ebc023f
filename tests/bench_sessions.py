"""Benchmark rows for sessions: python tests/bench_sessions.py (or via tests/bench.py).

- Loading a 100,000-entry session (Session.open: read, parse, index the tree), per entry,
  against json.loads of the same lines: the least any JSONL reader must do. Goal: 2x.
- Appending one entry to a session that already holds 1,000 and 100,000 entries: the cost
  must not grow with the file (one open + one write per entry, nothing re-read).
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_plumbing import best_of  # noqa: E402
from miniagent.session.tree import Session  # noqa: E402
from miniagent.session.file import to_line  # noqa: E402

LOAD_ENTRIES = 100_000
APPENDS = 200
LOAD_GOAL = 2.0


def write_session(path: str, count: int) -> None:
    """A v3 session of `count` alternating user / assistant messages (~400 bytes each)."""
    lines = [to_line({"type": "session", "version": 3, "id": "bench", "cwd": "/bench",
                      "timestamp": "2026-01-01T00:00:00.000Z"})]
    parent = None
    for i in range(count):
        entry_id = f"{i:08x}"
        if i % 2 == 0:
            message = {"role": "user", "content": [{"type": "text", "text": f"question {i} " * 8}],
                       "timestamp": 1}
        else:
            message = {"role": "assistant", "content": [{"type": "text", "text": f"answer {i} " * 8}],
                       "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 2,
                       "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                                 "totalTokens": 15}}
        lines.append(to_line({"type": "message", "id": entry_id, "parentId": parent,
                              "timestamp": "2026-01-01T00:00:00.000Z", "message": message}))
        parent = entry_id
    with open(path, "w", encoding="utf-8") as file:
        file.writelines(lines)


def load_rows(path: str):
    def parse_only():
        with open(path, encoding="utf-8") as file:
            for line in file.read().split("\n"):
                if line:
                    json.loads(line)

    # Alternate the two, so that a busy machine slows both alike; keep the best of each.
    load_s, yardstick_s = float("inf"), float("inf")
    for _ in range(3):
        load_s = min(load_s, best_of(1, lambda: Session.open(path)))
        yardstick_s = min(yardstick_s, best_of(1, parse_only))
    per_entry, per_line = load_s / LOAD_ENTRIES, yardstick_s / LOAD_ENTRIES
    yield (f"session load, {LOAD_ENTRIES:,} entries (per entry)", f"{per_entry * 1e6:.2f} us",
           f"json.loads {per_line * 1e6:.2f} us/line", f"{load_s / yardstick_s:.2f}x (goal {LOAD_GOAL:.0f}x)")


def append_rows(folder: str, big: str):
    small_path = os.path.join(folder, "small.jsonl")
    write_session(small_path, 1_000)
    large_path = os.path.join(folder, "large.jsonl")
    shutil.copyfile(big, large_path)
    small, large = time_appends(small_path), time_appends(large_path)
    yield ("session append, 1,000 entries in the file (per entry)", f"{small * 1e6:.1f} us", "", "")
    yield (f"session append, {LOAD_ENTRIES:,} entries in the file (per entry)",
           f"{large * 1e6:.1f} us", f"at 1,000: {small * 1e6:.1f} us", f"{large / small:.2f}x (goal 1x)")


def time_appends(path: str) -> float:
    """Seconds per append_message: the best of 5 batches (after a few appends that let the
    garbage collector settle after the load)."""
    session = Session.open(path)
    message = {"role": "user", "content": [{"type": "text", "text": "one more " * 8}], "timestamp": 3}

    def batch():
        for _ in range(APPENDS):
            session.append_message(message)

    batch()
    return best_of(5, batch) / APPENDS


def rows():
    folder = tempfile.mkdtemp(prefix="miniagent-bench-sessions-")
    try:
        big = os.path.join(folder, "big.jsonl")
        write_session(big, LOAD_ENTRIES)
        yield from load_rows(big)
        yield from append_rows(folder, big)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    for figure, value, yardstick, ratio in rows():
        print(f"{figure:58} {value:>14}   {yardstick:<28} {ratio:>12}")
