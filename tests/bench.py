"""The benchmark: python tests/bench.py

Every figure is printed as a ratio against a yardstick measured in the same run on the
same machine, so the numbers mean something on a slow laptop and a fast server alike.
Rows come from this file (the agent loop) and from the bench_* modules beside it
(start-up, plumbing, providers, tools ...); each exposes rows() yielding
(figure, value, yardstick, ratio) tuples.

Tests never assert timings; this script is where speed and memory are watched.
"""

import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import bench_plumbing  # noqa: E402
import bench_providers  # noqa: E402
import bench_search  # noqa: E402
import bench_sessions  # noqa: E402
import bench_startup  # noqa: E402
import bench_terminal  # noqa: E402
import bench_tools  # noqa: E402
from miniagent.agent import Agent
from miniagent.core.scripted import parse_script, scripted_model
from miniagent.core.tools import Tool, text_result
from miniagent.tools import create_tools

TURNS = 200


def noop(call_id, args, ctx):
    return text_result("ok")


def loop_overhead_rows():
    """Per-turn cost of the loop (streaming events, validation, tool thread, results)
    against a bare Python loop making the same tool calls."""
    schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    tool = Tool("noop", "Does nothing.", schema, noop)
    turns = [{"content": [{"type": "toolCall", "name": "noop", "arguments": {"n": i}}]}
             for i in range(TURNS)] + [{"content": [{"type": "text", "text": "done"}]}]
    agent = Agent(model=scripted_model(parse_script(turns)), tools=[tool])
    start = time.perf_counter()
    agent.prompt("go")
    per_turn = (time.perf_counter() - start) / TURNS

    start = time.perf_counter()
    for i in range(TURNS):
        noop(str(i), {"n": i}, None)
    bare = (time.perf_counter() - start) / TURNS
    yield ("loop overhead per turn (200 turns, no-op tool)", f"{per_turn * 1000:.3f} ms",
           f"bare loop {bare * 1e6:.3f} us", f"{per_turn / bare:.0f}x")


def abort_latency_rows():
    """Time from Agent.abort() to the end of the run while bash runs `sleep 60` (with a
    grandchild); goal under 0.5 s. bash notices an abort between two polls of its pipe,
    so the abort is sent at five different moments and the mean and worst are shown."""
    latencies = [abort_once(0.3 + i * 0.023) for i in range(5)]
    mean, worst = sum(latencies) / len(latencies), max(latencies)
    yield ("abort latency, bash running sleep 60 (mean of 5)", f"{mean * 1000:.0f} ms",
           "goal 500 ms", f"{mean / 0.5:.2f}x of goal")
    yield ("abort latency, bash running sleep 60 (worst of 5)", f"{worst * 1000:.0f} ms",
           "goal 500 ms", f"{worst / 0.5:.2f}x of goal")


def abort_once(settle: float) -> float:
    cwd = tempfile.mkdtemp(prefix="miniagent-bench-")
    turns = [{"content": [{"type": "toolCall", "name": "bash",
                           "arguments": {"command": "sleep 60 & sleep 60"}}]}]
    agent = Agent(model=scripted_model(parse_script(turns)), tools=create_tools(["bash"]),
                  cwd=cwd)
    running = threading.Event()
    agent.subscribe(lambda e: e["type"] == "tool_execution_start" and running.set())
    runner = threading.Thread(target=agent.prompt, args=("go",), daemon=True)
    runner.start()  # prompt() returns after the run: the abort comes from here
    running.wait(10)
    time.sleep(settle)  # let bash start its children: we measure the abort, not the start
    start = time.perf_counter()
    agent.abort()
    runner.join(30)
    return time.perf_counter() - start


def main():
    sections = [loop_overhead_rows, abort_latency_rows, bench_startup.rows, bench_plumbing.rows,
                bench_providers.rows, bench_tools.rows, bench_sessions.rows, bench_terminal.rows,
                bench_search.rows]
    print(f"{'figure':58} {'value':>14}   {'yardstick':<28} {'ratio':>12}")
    for section in sections:
        for figure, value, yardstick, ratio in section():
            print(f"{figure:58} {value:>14}   {yardstick:<28} {ratio:>12}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
