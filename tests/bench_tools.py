"""Benchmarks of the tools' bounded memory: rows for tests/bench.py, or run alone.

    python tests/bench_tools.py

Two claims of the tools issue are measured here:

  * bash keeps at most ~100 KB of output in memory, so a command printing 200 MB costs
    no more memory than the same command with its output sent to /dev/null;
  * read streams: reading the last lines of a 1 GB file costs a fast scan of the file
    (newlines counted in C) and no more memory than a plain `for line in f` pass, which
    is the yardstick for both time and memory.

How memory is measured: each case runs in a fresh Python process (this file, run with
`--measure`), which imports the tools first and then runs the one case; we report that
process's peak resident set size. A fresh process per case matters because the peak is
a high-water mark that never goes down: measured in one long process, the first big
case would hide all the others. The peak is read from /proc/self/status (VmHWM, the
peak of this process's own memory) where there is one; `getrusage().ru_maxrss` would be
wrong on Linux, because it is inherited across fork and exec, so a child would report
at least its parent's peak. The shell and `yes`/`head` are child processes of the
measured one and are not counted: what is counted is what the tool holds while it pumps
and stores the output.

The 1 GB file (10,000,000 lines of 100 bytes) is written once to
<tempdir>/miniagent-bench/1g.txt and reused by later runs.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG_FILE = os.path.join(tempfile.gettempdir(), "miniagent-bench", "1g.txt")
LINE_BYTES = 100
BIG_LINES = 10_000_000
PRINT_200MB = "yes 0123456789abcdef | head -c 200000000"


def rows():
    """Yield (name, value, yardstick, ratio) rows for the benchmark table."""
    printed = measure("bash", PRINT_200MB)
    discarded = measure("bash", PRINT_200MB + " > /dev/null")
    yield ("bash: peak memory, 200 MB of output", mb(printed["peak_kb"]),
           f"{mb(discarded['peak_kb'])} to /dev/null",
           ratio(printed["peak_kb"], discarded["peak_kb"]))
    yield ("bash: time, 200 MB of output", seconds(printed["seconds"]),
           f"{seconds(discarded['seconds'])} to /dev/null",
           ratio(printed["seconds"], discarded["seconds"]))

    ensure_big_file()
    measure("count", BIG_FILE)  # warm the page cache, so neither side pays for the disk
    read = measure("read", BIG_FILE)
    count = measure("count", BIG_FILE)
    yield ("read: time, offset near the end of a 1 GB file", seconds(read["seconds"]),
           f"{seconds(count['seconds'])} for-line pass",
           ratio(read["seconds"], count["seconds"]))
    yield ("read: peak memory, offset near the end of a 1 GB file", mb(read["peak_kb"]),
           f"{mb(count['peak_kb'])} for-line pass",
           ratio(read["peak_kb"], count["peak_kb"]))
    yield from grep_rows()


def grep_rows():
    """grep against the least any line-by-line regex search must do: a for-line pass
    calling re.search, in the measuring process. Two shapes: the package's own source
    (many small files, many matches: start-up costs show) and 100 MB with no match
    (per-line costs show)."""
    tree = os.path.join(REPO, "miniagent")
    for label, path, pattern in (("the package's source, 'def '", tree, "def "),
                                 ("100 MB, no match", ensure_grep_file(), "zzzz")):
        argument = json.dumps({"path": path, "pattern": pattern, "limit": 100000,
                               "glob": "*.py" if path == tree else None})
        measure("grep-pass", argument)  # warm the page cache
        grep = best_of_measures("grep", argument)
        bare = best_of_measures("grep-pass", argument)
        yield (f"grep: time, {label}", f"{grep * 1000:.0f} ms",
               f"{bare * 1000:.0f} ms re.search pass",
               ratio(grep, bare))


def best_of_measures(case: str, argument: str, runs: int = 3) -> float:
    return min(measure(case, argument)["seconds"] for _ in range(runs))


def ensure_grep_file() -> str:
    """The first 100 MB of the 1 GB file, written once beside it."""
    path = os.path.join(os.path.dirname(BIG_FILE), "100m.txt")
    if not (os.path.exists(path) and os.path.getsize(path) == BIG_LINES * LINE_BYTES // 10):
        ensure_big_file()
        with open(BIG_FILE, "rb") as source, open(path + ".part", "wb") as target:
            target.write(source.read(BIG_LINES * LINE_BYTES // 10))
        os.replace(path + ".part", path)
    return path


def measure(case: str, argument: str) -> dict:
    """Run one case in a fresh Python process and return its timing and peak memory."""
    env = dict(os.environ, PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure", case,
                          argument], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def run_case(case: str, argument: str) -> dict:
    """The body of a measuring process: import first, then time one case."""
    from miniagent.tools import ALL_TOOLS, create_tools
    from miniagent.core.tools import ToolContext, validate_arguments
    # Every case loads every tool module first, so all cases start from the same memory.
    tools = {tool.name: tool for tool in create_tools(ALL_TOOLS)}
    ctx = ToolContext(cwd=tempfile.gettempdir())
    started = time.perf_counter()
    if case == "bash":
        tool = tools["bash"]
        result = tool.execute("bench", validate_arguments(tool, {"command": argument}), ctx)
        spilled = (result.details or {}).get("fullOutputPath")
        if spilled:
            os.remove(spilled)
    elif case == "read":
        tool = tools["read"]
        args = {"path": argument, "offset": BIG_LINES - 5}
        result = tool.execute("bench", validate_arguments(tool, args), ctx)
        assert result.content[0]["text"].endswith("\n"), "unexpected read result"
    elif case == "grep":
        tool = tools["grep"]
        tool.execute("bench", validate_arguments(tool, json.loads(argument)), ctx)
    elif case == "grep-pass":
        grep_pass(**json.loads(argument))
    elif case == "count":
        with open(argument, "rb") as f:
            lines = sum(1 for _ in f)
        assert lines == BIG_LINES
    elapsed = time.perf_counter() - started
    return {"seconds": elapsed, "peak_kb": peak_rss_kb()}


def grep_pass(path: str, pattern: str, limit: int, glob: str) -> int:
    """The yardstick for grep: every line of every file through re.search, nothing more."""
    import fnmatch
    import re
    regex, found = re.compile(pattern), 0
    paths = [os.path.join(top, name) for top, _, names in os.walk(path) for name in names
             if fnmatch.fnmatch(name, glob)] if os.path.isdir(path) else [path]
    for name in paths:
        with open(name, "rb") as f:
            for raw in f:
                found += bool(regex.search(raw.decode("utf-8", errors="replace")))
    return found


def peak_rss_kb() -> int:
    """This process's peak resident memory in KB (see the module docstring for why
    /proc comes first)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # macOS reports bytes


def ensure_big_file() -> None:
    """Write the 1 GB test file unless a complete one is already there."""
    if os.path.exists(BIG_FILE) and os.path.getsize(BIG_FILE) == BIG_LINES * LINE_BYTES:
        return
    os.makedirs(os.path.dirname(BIG_FILE), exist_ok=True)
    filler = "the quick brown fox jumps over the lazy dog " * 3
    partial = BIG_FILE + ".part"  # renamed when complete, so a crash never leaves a short file
    with open(partial, "w") as f:
        batch = 100_000
        for first in range(0, BIG_LINES, batch):
            f.write("".join(f"{i:09d} {filler}"[:LINE_BYTES - 1] + "\n"
                            for i in range(first, first + batch)))
    os.replace(partial, BIG_FILE)


def mb(kilobytes: float) -> str:
    return f"{kilobytes / 1024:.1f} MB"


def seconds(value: float) -> str:
    return f"{value:.2f} s"


def ratio(value: float, yardstick: float) -> str:
    return f"{value / yardstick:.2f}x" if yardstick else "n/a"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(run_case(sys.argv[2], sys.argv[3])))
    else:
        for row in rows():
            print(" | ".join(row))
