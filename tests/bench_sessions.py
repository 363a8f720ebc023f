"""Benchmark rows for sessions: python tests/bench_sessions.py (or via tests/bench.py).

- Loading a 100,000-entry session (Session.open: read, parse, index the tree), per entry,
  against json.loads of the same lines: the least any JSONL reader must do. Goal: 2x.
- Appending one entry to a session that already holds 1,000 and 100,000 entries: the cost
  must not grow with the file (one open + one write per entry, nothing re-read); and
  against the floor of any appender: `os.write` of the same line on an open descriptor.
- Appending the same entry with an API key registered (every string of it redacted),
  against the append without one; and redacting a 1 MB tool output with a 100-character
  key, which must stay linear (str.find per needle): goal well under 0.1 s.
- `miniagent stats` of a generated 100 MB session (2 KB text entries, no image) against
  `json.loads` of its lines, each in a fresh process (bench_tools.py explains why), with
  the peak memory of both. Goal: 2x the time, in 64 MB. The file is written once per run.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_plumbing import best_of  # noqa: E402
from bench_tools import mb, peak_rss_kb  # noqa: E402
from helpers import write_big_session  # noqa: E402
from miniagent.session.tree import Session  # noqa: E402
from miniagent.session.file import to_line  # noqa: E402
from miniagent.files import redaction  # noqa: E402

LOAD_ENTRIES = 100_000
APPENDS = 200
LOAD_GOAL = 2.0
STATS_ENTRIES = 42_500  # prompts and replies of 2 KB text: about 100 MB
STATS_GOAL, STATS_MEMORY_GOAL_MB = 2.0, 64
APPENDED = {"role": "user", "content": [{"type": "text", "text": "one more " * 8}], "timestamp": 3}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
    floor = time_raw_appends(os.path.join(folder, "raw.jsonl"))
    yield ("session append, 1,000 entries in the file (per entry)", f"{small * 1e6:.1f} us", "", "")
    yield (f"session append, {LOAD_ENTRIES:,} entries in the file (per entry)",
           f"{large * 1e6:.1f} us", f"at 1,000: {small * 1e6:.1f} us", f"{large / small:.2f}x (goal 1x)")
    yield (f"session append, {LOAD_ENTRIES:,} entries, vs a bare os.write",
           f"{large * 1e6:.1f} us", f"os.write {floor * 1e6:.1f} us", f"{large / floor:.1f}x")


def time_appends(path: str) -> float:
    """Seconds per append_message: the best of 5 batches (after a few appends that let the
    garbage collector settle after the load)."""
    session = Session.open(path)

    def batch():
        for _ in range(APPENDS):
            session.append_message(APPENDED)

    batch()
    return best_of(5, batch) / APPENDS


def time_raw_appends(path: str) -> float:
    """The floor of an append: the same line written with os.write on a descriptor opened
    once with O_APPEND (an ordinary file object's write plus flush does the same)."""
    line = to_line({"type": "message", "id": "00000000", "parentId": "ffffffff",
                    "timestamp": "2026-01-01T00:00:00.000Z", "message": APPENDED}).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        return best_of(5, lambda: [os.write(fd, line) for _ in range(APPENDS)]) / APPENDS
    finally:
        os.close(fd)


def redaction_rows(folder: str):
    """The append with a key registered, and one 1 MB line redacted (files/redaction.py)."""
    path = os.path.join(folder, "redacted.jsonl")
    write_session(path, 1_000)
    without = time_appends(path)
    key = "sk-proj-" + "Qw7Zr4Tx9Lm2" * 8  # about 100 characters
    kept = redaction._needles
    redaction.add_secret(key)
    try:
        with_key = time_appends(path)
        line = ("x" * 99 + " ") * 10_000 + key[20:40]
        one_mb = best_of(3, lambda: redaction.redact(line))
    finally:
        redaction._needles = kept
    yield ("session append with an API key registered (per entry)", f"{with_key * 1e6:.1f} us",
           f"without one: {without * 1e6:.1f} us", f"{with_key / without:.2f}x")
    yield ("redacting a 1 MB line, 100-character key", f"{one_mb * 1000:.1f} ms", "goal 100 ms",
           f"{one_mb / 0.1:.2f}x of goal")


def stats_rows(folder: str):
    path = os.path.join(folder, "100mb.jsonl")
    write_big_session(path, STATS_ENTRIES)
    megabytes = os.path.getsize(path) / 1e6
    runs = [(measure("stats", path), measure("loads", path)) for _ in range(5)]  # alternated
    stats_run = min((run for run, _ in runs), key=lambda run: run["seconds"])
    floor = min((run for _, run in runs), key=lambda run: run["seconds"])
    seconds, floor_seconds = stats_run["seconds"], floor["seconds"]
    yield (f"stats, {megabytes:.0f} MB session ({STATS_ENTRIES:,} entries)", f"{seconds:.2f} s",
           f"json.loads {floor_seconds:.2f} s",
           f"{seconds / floor_seconds:.2f}x (goal {STATS_GOAL:.0f}x)")
    yield (f"stats, {megabytes:.0f} MB session, peak memory", mb(stats_run["peak_kb"]),
           f"json.loads {mb(floor['peak_kb'])}", f"goal {STATS_MEMORY_GOAL_MB} MB")


def measure(case: str, path: str) -> dict:
    """Run one case in a fresh Python process: its seconds and peak memory."""
    env = dict(os.environ, PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure", case, path],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def run_case(case: str, path: str) -> dict:
    """The body of a measuring process: import first, then time one case. stats prints
    its figures as the command does (to a pipe the parent reads)."""
    from miniagent.subcommands.dispatch import run_subcommand
    started = time.perf_counter()
    if case == "stats":
        run_subcommand("stats", [path])
    else:  # the floor: every line read as text and parsed, nothing kept
        with open(path, encoding="utf-8") as file:
            for line in file:
                json.loads(line)
    return {"seconds": time.perf_counter() - started, "peak_kb": peak_rss_kb()}


def rows():
    folder = tempfile.mkdtemp(prefix="miniagent-bench-sessions-")
    try:
        big = os.path.join(folder, "big.jsonl")
        write_session(big, LOAD_ENTRIES)
        yield from load_rows(big)
        yield from append_rows(folder, big)
        yield from redaction_rows(folder)
        yield from stats_rows(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__" and sys.argv[1:2] == ["--measure"]:
    print(json.dumps(run_case(sys.argv[2], sys.argv[3])))
elif __name__ == "__main__":
    for figure, value, yardstick, ratio in rows():
        print(f"{figure:58} {value:>14}   {yardstick:<28} {ratio:>12}")
