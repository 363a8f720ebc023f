"""Helpers the tests share: where the fixtures are, a scripted agent, small tools."""

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from miniagent.agent import Agent
from miniagent.core.messages import assistant_message
from miniagent.core.scripted import scripted_model
from miniagent.providers.scripts import parse_script
from miniagent.core.tools import ToolContext, validate_arguments
from miniagent.tools import create_tools

# The script turns and the echo tool are the core's tests' too (tests/core/core_helpers.py,
# which imports only the core): one copy, shared.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "core"))
from core_helpers import answer, call, echo_tool, text  # noqa: E402

# Real data, copied into tests/fixtures (its README says from where): the suite reads
# only these copies, so it passes from a bare clone.
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# The command line as a user runs it: `python -m miniagent` from this checkout, with
# no key or server address from the developer's own environment.
ROOT = str(Path(__file__).resolve().parents[1])
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY",
        "GROQ_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


class CliResult:
    """What a run of the command line left: the shape of subprocess.run's result."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class Hung(BaseException):
    """An in-process run that passed its bound: the test fails instead of the suite
    hanging (a BaseException, so the code under test cannot swallow it)."""


def run_cli(*args, stdin="", cwd=None, env=None, bound=60):
    """Run `miniagent ARGS` in this process, as main(ARGS) with stdin a string (never
    a terminal): the exit status and what it wrote on stdout and stderr. The working
    directory, the environment (without the developer's keys) and the standard
    streams are put back afterwards, so the next run starts from the same place. A run
    still going after `bound` seconds raises Hung (SIGALRM interrupts even a blocked
    open() of a FIFO)."""
    from miniagent.cli import main
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    for key in KEYS:
        os.environ.pop(key, None)
    os.environ.update(env or {})
    os.chdir(cwd or ROOT)
    sys.stdout, sys.stderr = out, err
    try:
        with bounded(bound):
            code = main(list(args), stdin=io.StringIO(stdin))
    except SystemExit as done:  # argparse: --help, --version, a usage mistake
        code = done.code if isinstance(done.code, int) else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return CliResult(code, out.getvalue(), err.getvalue())


@contextmanager
def bounded(seconds):
    """Code in this process that must end within `seconds`, or raise Hung (SIGALRM
    interrupts even a blocked open() of a FIFO or a read of a pipe)."""
    previous = signal.signal(signal.SIGALRM, raise_hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def raise_hung(signum, frame):
    raise Hung("the run did not end within its bound")


def run_cli_process(*args, stdin="", cwd=None, env=None):
    """Run `python -m miniagent ARGS` as a process of its own, for what only a real
    process shows: signals, exit sweeps, file descriptors, start-up imports."""
    full_env = dict(os.environ, PYTHONPATH=ROOT)
    for key in KEYS:
        full_env.pop(key, None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "miniagent", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd or ROOT, env=full_env,
                          timeout=60)


def write_script(tmp_path, turns):
    path = tmp_path / "script.json"
    path.write_text(json.dumps(turns))
    return str(path)


def start_cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-m", "miniagent", *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def is_alive(pid):
    """True while the process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def wait_gone(pid, seconds=30):
    """Poll (bounded) until a process is gone or a zombie; True if it went."""
    deadline = time.monotonic() + seconds
    while is_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not is_alive(pid)


def make_agent(turns, tools=(), **kwargs):
    """An Agent whose model replays `turns` (the scripted model's format)."""
    return Agent(model=scripted_model(parse_script(turns)), tools=list(tools), **kwargs)


# More of a scripted model's turns, as the script files hold them (core/scripted.py).

def bash_turn(command):
    """A turn that runs one bash command."""
    return {"content": [call("bash", command=command)]}


def reply(*blocks, **fields):
    """An assistant message as a provider returns it, holding `blocks`."""
    return assistant_message("a", "p", "m", list(blocks), **fields)






def run_tool(name, cwd, args, abort=None, on_update=None):
    """Run one built-in tool as the loop would: arguments validated, then executed."""
    tool = create_tools([name])[0]
    ctx = ToolContext(cwd=str(cwd), abort=abort or threading.Event(),
                      on_update=on_update or (lambda partial: None))
    return tool.execute("call-1", validate_arguments(tool, args), ctx)


def run_edit(cwd, path, edits=None, **args):
    """edit(path, edits) in cwd; `edits` may be left out for the legacy argument forms."""
    if edits is not None:
        args["edits"] = edits
    return run_tool("edit", cwd, {"path": path, **args})


def run_bash(cwd, command, abort=None, on_update=None, **args):
    return run_tool("bash", cwd, {"command": command, **args}, abort, on_update)


def one_edit(old, new):
    return [{"oldText": old, "newText": new}]


def make_file(tmp_path, content, name="f.txt"):
    """A file in tmp_path holding `content` (str as UTF-8, or bytes as they are)."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def first_text(result):
    return result.content[0]["text"]


def processes_below(pid, marker):
    """The pids under `pid` in the process tree (from /proc) whose command line holds
    the bytes `marker`; found on its own here, so a test does not trust the code under test."""
    children = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                parent = int(f.read().rsplit(b")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            try:
                with open(f"/proc/{child}/cmdline", "rb") as f:
                    if marker in f.read():
                        found.append(child)
            except OSError:
                pass
    return found


@contextmanager
def models_server(status, body):
    """A local server whose GET .../models answers `status` with `body`, and any other
    GET 404 (FakeServer always lists its one model); yields its URL, without /v1."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            found = self.path.endswith("/models")
            data = body.encode() if found else b"{}"
            self.send_response(status if found else 404)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# --- Big sessions, and the memory reading one takes -----------------------------------------


def write_big_session(path, entries, name=None, text_bytes=2048):
    """A v3 session file of `entries` prompts and replies (with usage and a read call),
    each carrying `text_bytes` of text; named `name` by its first entry when given.
    Returns the length of its longest line in bytes."""
    text = ("the quick brown fox jumps over the lazy dog " * (text_bytes // 40 + 1))
    text = text[:text_bytes]
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}}
    lines = [{"type": "session", "version": 3, "id": "big", "timestamp": "2026-01-01T00:00:00Z",
              "cwd": "/big"}]
    if name:
        lines.append({"type": "session_info", "id": "name0000", "parentId": None,
                      "timestamp": "2026-01-01T00:00:00Z", "name": name})
    parent = lines[-1].get("id") if name else None
    with open(path, "w", encoding="utf-8") as file:
        longest = 0
        for number in range(entries):
            if number % 2 == 0:
                message = {"role": "user", "content": [{"type": "text", "text": text}],
                           "timestamp": 1}
            else:
                message = {"role": "assistant", "provider": "p", "model": "m", "usage": usage,
                           "stopReason": "toolUse", "timestamp": 2,
                           "content": [{"type": "text", "text": text},
                                       {"type": "toolCall", "id": "c", "name": "read",
                                        "arguments": {"path": "a.py"}}]}
            lines.append({"type": "message", "id": f"{number:08x}", "parentId": parent,
                          "timestamp": "2026-01-01T00:00:00Z", "message": message})
            parent = f"{number:08x}"
            for line in lines:
                data = json.dumps(line, separators=(",", ":")) + "\n"
                longest = max(longest, len(data))
                file.write(data)
            lines = []
    return longest


def peak_memory(function):
    """(what `function()` returns, the peak of Python's own allocations while it ran, in
    bytes): tracemalloc counts what the code under test holds, not the interpreter."""
    import tracemalloc
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def find_chromium_or_skip():
    """The headless Chromium that page tests open pages in. Without one the test is
    skipped with the reason, but fails under CI=true: .ci/run installs it there, so its
    absence means the test did not run where it must."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        reason = "headless Chromium not found (Debian: apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return browser
