"""Benchmark rows for start-up: python tests/bench_startup.py (or via tests/bench.py).

What a user waits for before miniagent does anything, each against the least a Python
program must spend doing the same kind of thing, measured in the same run:

- `miniagent --version` against `python -c pass`: the interpreter's own start. Goal 1.3x.
  And against `python -c "import re"`, which pip's generated script does before it calls
  miniagent (launch.py), so no console script can start faster.
- A one-turn `-p` run against the test server (tests/fake_server.py), the session file
  written, against `python -c "import requests"`: the HTTP library every run needs.
  At most 1.4x this round; the aim stays 1.25x.
- `python -m miniagent.core` answering one prompt from the same server, against the same
  floor: the core alone (no session, no registry, no hardening). Goal 1.2x.
- The REPL until its greeting ("/help for commands") is on the screen of a pty
  (tests/pty_driver.py), against a program that imports requests and prints that same
  line on the same kind of pty. Goal 1.5x.
- `--mode rpc` until it answers `get_state` (sent as soon as the process starts),
  against a program that imports requests, reads one line and answers one line.
- A 20-turn run's cost per turn (19 `read` calls and an answer), from one request's
  arrival at the server to the next, against the same 20 request bodies posted with
  requests (stream=True, each reply read to its end) to the same kind of server: what
  is left is ours (events, the session file, the tool, the next body).

Each pair runs RUNS times, the two sides alternating, so a burst of load from elsewhere
hits both; the medians are shown. Every process is the venv's: the `miniagent` script
beside sys.executable, as a user installed it (`python -m miniagent` when there is no
such script), its modules compiled first, as an install compiles them. The model is one
no registry knows, so its window is asked of the server
on a warm-up run and remembered from then on (models/window_cache.py), as on a user's
second run.
"""

import compileall
import re
import json
import os
import subprocess
import sys
import tempfile
import time
from statistics import median
from typing import Callable, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests  # noqa: E402

from fake_server import FakeServer  # noqa: E402
from helpers import KEYS, ROOT  # noqa: E402
from pty_driver import Terminal  # noqa: E402

RUNS = 9
TURNS = 20
MODEL = "bench-local-model"  # unknown to the registry: its window is asked, then remembered
GREETING = "/help for commands"
GOALS = {"version": 1.3, "print": 1.4, "print aim": 1.25, "core": 1.2, "repl": 1.5}
RPC_FLOOR = ("import sys, requests; sys.stdin.readline(); "
             "sys.stdout.write('{\"type\": \"response\"}\\n'); sys.stdout.flush()")


def miniagent_command() -> List[str]:
    """The venv's `miniagent` script, or `python -m miniagent` from this checkout."""
    script = os.path.join(os.path.dirname(sys.executable), "miniagent")
    return [sys.executable, script] if os.path.exists(script) else [sys.executable, "-m", "miniagent"]


def clean_env(home: str) -> dict:
    """No API keys, a miniagent home of the bench's own; the checkout on the path only
    when miniagent is not installed in this Python."""
    env = {key: value for key, value in os.environ.items() if key not in KEYS}
    env["MINIAGENT_HOME"] = home
    if "-m" in miniagent_command():
        env["PYTHONPATH"] = ROOT
    return env


def seconds(function: Callable[[], None]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def alternating_medians(ours: Callable[[], None], floor: Callable[[], None]) -> Tuple[float, float]:
    """Median seconds of each side over RUNS runs, one of each in turn."""
    mine, floors = [], []
    for _ in range(RUNS):
        mine.append(seconds(ours))
        floors.append(seconds(floor))
    return median(mine), median(floors)


def run_quietly(argv: Sequence[str], env: dict, cwd: str) -> None:
    subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=60)


def row(figure: str, ours: float, floor_name: str, floor: float, goal: Optional[float] = None):
    figure += f" (goal <= {goal}x)" if goal else ""
    return (figure, f"{ours * 1000:.0f} ms", f"{floor_name} {floor * 1000:.0f} ms",
            f"{ours / floor:.2f}x")


# --- The rows -------------------------------------------------------------------------------

def version_rows(env: dict, cwd: str):
    ours, floor = alternating_medians(
        lambda: run_quietly(miniagent_command() + ["--version"], env, cwd),
        lambda: run_quietly([sys.executable, "-c", "pass"], env, cwd))
    yield row("start-up: miniagent --version", ours, "python -c pass", floor, GOALS["version"])
    # pip's generated `miniagent` script imports re before it calls us: its own floor
    ours, floor = alternating_medians(
        lambda: run_quietly(miniagent_command() + ["--version"], env, cwd),
        lambda: run_quietly([sys.executable, "-c", "import re"], env, cwd))
    yield row("start-up: miniagent --version", ours, "python -c 'import re'", floor)


def print_rows(env: dict, cwd: str, url: str):
    command = miniagent_command() + ["--base-url", url, "--model", MODEL, "-p", "hi"]
    run_quietly(command, env, cwd)  # the warm-up: its window asked and remembered
    ours, floor = alternating_medians(
        lambda: run_quietly(command, env, cwd),
        lambda: run_quietly([sys.executable, "-c", "import requests"], env, cwd))
    yield row(f"start-up: -p, one turn, local server (aim {GOALS['print aim']}x)", ours,
              "import requests", floor, GOALS["print"])


def core_rows(env: dict, cwd: str, url: str):
    command = [sys.executable, "-m", "miniagent.core", "--base-url", url, "--model", MODEL, "hi"]
    core_env = dict(env, PYTHONPATH=ROOT)  # the checkout's core, installed or not
    ours, floor = alternating_medians(
        lambda: run_quietly(command, core_env, cwd),
        lambda: run_quietly([sys.executable, "-c", "import requests"], env, cwd))
    yield row("start-up: python -m miniagent.core, one turn", ours, "import requests", floor,
              GOALS["core"])


def first_screen_seconds(program: Sequence[str], args: Sequence[str], env: dict, cwd: str) -> float:
    """From the spawn on a pty until the greeting is on its screen."""
    start = time.perf_counter()
    with Terminal(args, env=env, cwd=cwd, columns=120, program=program) as term:
        term.expect_screen(GREETING, timeout=30)
        shown = time.perf_counter() - start
        term.send("\x04")  # Ctrl-D: the REPL quits (the floor has already)
        term.wait(30)
    return shown


def repl_rows(env: dict, cwd: str, url: str):
    script = miniagent_command()[1:]
    floor_program = ("-c", f"import requests; print({GREETING!r})")
    mine, floors = [], []
    for _ in range(RUNS):
        mine.append(first_screen_seconds(script, ["--base-url", url, "--model", MODEL], env, cwd))
        floors.append(first_screen_seconds(floor_program, [], env, cwd))
    yield row("start-up: the REPL's first screen (pty)", median(mine), "requests, on a pty",
              median(floors), GOALS["repl"])


def answer_seconds(argv: Sequence[str], env: dict, cwd: str) -> float:
    """From the spawn until the answer to a get_state sent at once is read."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write(b'{"id": "1", "type": "get_state"}\n')
    process.stdin.flush()
    for line in process.stdout:
        if json.loads(line).get("type") == "response":
            break
    answered = time.perf_counter() - start
    process.stdin.close()
    process.wait(30)
    process.stdout.close()
    return answered


def rpc_rows(env: dict, cwd: str, url: str):
    command = miniagent_command() + ["--mode", "rpc", "--base-url", url, "--model", MODEL]
    mine, floors = [], []
    for _ in range(RUNS):
        mine.append(answer_seconds(command, env, cwd))
        floors.append(answer_seconds([sys.executable, "-c", RPC_FLOOR], env, cwd))
    yield row("start-up: --mode rpc until get_state answers", median(mine),
              "requests, one answer", median(floors))


class TimedServer(FakeServer):
    """The test server, noting when each request arrived (its body read)."""

    def record(self, request: dict):
        super().record(dict(request, at=time.perf_counter()))


def reading_turns(path: str) -> list:
    read = {"content": [{"type": "toolCall", "name": "read", "arguments": {"path": path}}]}
    return [read] * (TURNS - 1) + [{"content": [{"type": "text", "text": "Done."}]}]


def per_turn(requests_seen: list) -> float:
    arrivals = [request["at"] for request in requests_seen]
    return (arrivals[-1] - arrivals[0]) / (len(arrivals) - 1)


def agent_turns(env: dict, cwd: str, window: int) -> Tuple[float, list]:
    """A 20-turn run's seconds per turn, and the bodies it sent."""
    with TimedServer(reading_turns("notes.txt"), window=window) as srv:
        run_quietly(miniagent_command() + ["--base-url", srv.base_url + "/v1", "--model", MODEL,
                                           "-p", "read notes.txt until you know it"], env, cwd)
        sent = list(srv.requests)
    return per_turn(sent), [request["body"] for request in sent]


def raw_turns(bodies: list, window: int) -> float:
    """The same bodies, posted one after the other, each streamed reply read to its end."""
    with TimedServer(reading_turns("notes.txt"), window=window) as srv, requests.Session() as http:
        for body in bodies:
            with http.post(srv.base_url + "/v1/chat/completions", json=body, stream=True,
                           timeout=30) as response:
                for _ in response.iter_content(8192):
                    pass
        return per_turn(srv.requests)


def per_turn_rows(env: dict, cwd: str, window: int):
    with open(os.path.join(cwd, "notes.txt"), "w") as notes:
        notes.write("A line of notes.\n" * 40)
    mine, floors = [], []
    for _ in range(RUNS):
        ours, bodies = agent_turns(env, cwd, window)
        mine.append(ours)
        floors.append(raw_turns(bodies, window))
    ours, floor = median(mine), median(floors)
    yield (f"per turn of a {TURNS}-turn -p run (read calls)", f"{ours * 1000:.1f} ms",
           f"raw streamed POST {floor * 1000:.1f} ms", f"{ours / floor:.2f}x")


def compile_package() -> None:
    """Compile every module first, as `pip install` does: where PYTHONDONTWRITEBYTECODE
    is set (CI, this machine), a module edited since its last compile would otherwise be
    compiled again by every process measured, which no installed miniagent does."""
    compileall.compile_dir(os.path.join(ROOT, "miniagent"), quiet=1, rx=re.compile(r"/evals/basic/"))


def rows():
    compile_package()
    window = 32768  # what the test server's /props says it serves
    with tempfile.TemporaryDirectory(prefix="miniagent-bench-") as place:
        home, cwd = os.path.join(place, "home"), os.path.join(place, "project")
        os.makedirs(cwd)
        env = clean_env(home)
        yield from version_rows(env, cwd)
        # One server for them all: the window print_rows' warm-up asked is remembered.
        with FakeServer([{"content": [{"type": "text", "text": "Hi."}]}] * (2 * RUNS + 1),
                        window=window) as srv:
            yield from print_rows(env, cwd, srv.base_url + "/v1")
            yield from core_rows(env, cwd, srv.base_url + "/v1")
            yield from repl_rows(env, cwd, srv.base_url + "/v1")
            yield from rpc_rows(env, cwd, srv.base_url + "/v1")
        yield from per_turn_rows(env, cwd, window)


if __name__ == "__main__":
    for figure in rows():
        print("  ".join(figure))
