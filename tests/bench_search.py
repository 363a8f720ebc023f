"""Benchmark rows for the search index: python tests/bench_search.py (or via tests/bench.py).

- Indexing 1,000 sessions of 100 entries (`reindex`), per entry, against json.loads of
  the same lines: the least any reader of the files must do.
- Catching up after one new entry in one of those sessions: only that entry is read; the
  other 999 files cost one stat each. Shown against the full index.
- A search over that index, as the user waits for it (catching up included): a word in
  one session, and a word in a third of all entries (every prompt: the worst case, as
  bm25 scores each of those 33,000 rows). Goal: under 50 ms.
"""

import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_plumbing import best_of  # noqa: E402
from miniagent.files.home import index_path  # noqa: E402
from miniagent.subcommands import search_index as searchindex  # noqa: E402
from miniagent.subcommands.search import fts_query, scope_paths  # noqa: E402
from miniagent.session.file import append_lines, to_line  # noqa: E402

SESSIONS = 1_000
ENTRIES = 100
PROJECTS = 10
QUERY_GOAL_MS = 50


def write_sessions(home: str) -> None:
    """SESSIONS files of ENTRIES messages each (prompt, tool call, tool result in turn),
    spread over PROJECTS project folders. Session i alone says "topic{i}"."""
    for number in range(SESSIONS):
        folder = os.path.join(home, "sessions", f"--project{number % PROJECTS}--")
        os.makedirs(folder, exist_ok=True)
        lines = [to_line({"type": "session", "version": 3, "id": f"s{number:04d}",
                          "cwd": f"/project{number % PROJECTS}", "timestamp": "2026-01-01T00:00:00.000Z"})]
        for index in range(ENTRIES):
            lines.append(to_line({"type": "message", "id": f"{index:08x}",
                                  "parentId": f"{index - 1:08x}" if index else None,
                                  "timestamp": "2026-01-01T00:00:00.000Z",
                                  "message": message(number, index)}))
        with open(os.path.join(folder, f"session{number:04d}.jsonl"), "w", encoding="utf-8") as file:
            file.writelines(lines)


def message(number: int, index: int) -> dict:
    if index % 3 == 0:
        return {"role": "user", "timestamp": 1, "content": [
            {"type": "text", "text": f"please look at topic{number} and the failing deploy step {index}"}]}
    if index % 3 == 1:
        return {"role": "assistant", "timestamp": 2, "provider": "p", "model": "m", "stopReason": "toolUse",
                "content": [{"type": "text", "text": "Let me run the tests first."},
                            {"type": "toolCall", "id": f"c{index}", "name": "bash",
                             "arguments": {"command": f"pytest -q tests/test_{index}.py"}}]}
    return {"role": "toolResult", "toolCallId": f"c{index - 1}", "toolName": "bash", "isError": False,
            "timestamp": 3, "content": [{"type": "text", "text": f"{index} passed, 0 failed in 0.5s " * 4}]}


def json_loads_all(paths) -> float:
    start = time.perf_counter()
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for line in file.read().split("\n"):
                if line:
                    json.loads(line)
    return time.perf_counter() - start


def rows():
    home = tempfile.mkdtemp(prefix="miniagent-bench-search-")
    try:
        write_sessions(home)
        paths = scope_paths("/", True, (), home)
        entries = SESSIONS * ENTRIES

        start = time.perf_counter()
        searchindex.rebuild(paths, home)
        index_s = time.perf_counter() - start
        loads_s = json_loads_all(paths)
        yield (f"search index, {SESSIONS:,} sessions x {ENTRIES} entries (per entry)",
               f"{index_s / entries * 1e6:.2f} us", f"json.loads {loads_s / entries * 1e6:.2f} us/line",
               f"{index_s / loads_s:.1f}x")

        append_lines(paths[SESSIONS // 2], [{"type": "message", "id": "ffffffff", "parentId": None,
                                              "timestamp": "2026-01-02T00:00:00.000Z",
                                              "message": message(SESSIONS // 2, 0)}])
        index = searchindex.SearchIndex(index_path(home))
        start = time.perf_counter()
        index.catch_up(paths)
        update_s = time.perf_counter() - start
        index.close()
        assert index.entries_read == 1, index.entries_read  # the new entry, nothing else
        yield (f"search index update, 1 new entry ({SESSIONS:,} sessions)", f"{update_s * 1000:.1f} ms",
               f"full index {index_s:.1f} s", f"{update_s / index_s:.4f}x")

        for label, word in (("a word in 1 session", "topic500"), ("a word in every 3rd entry", "deploy")):
            query = fts_query([word])
            search_s = best_of(5, lambda: searchindex.lookup(query, paths, 20, home))
            yield (f"search, {label} ({SESSIONS * ENTRIES:,} entries)", f"{search_s * 1000:.1f} ms",
                   f"goal {QUERY_GOAL_MS} ms", f"{search_s * 1000 / QUERY_GOAL_MS:.2f}x of goal")
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    for figure, value, yardstick, ratio in rows():
        print(f"{figure:58} {value:>14}   {yardstick:<28} {ratio:>12}")
