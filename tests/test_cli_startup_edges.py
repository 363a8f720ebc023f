"""The edges a newcomer meets at start-up (issue 20, item 3): a server that is slow to
say what it serves, and a prompt and tools that alone do not fit the model's window."""

import json
import re
import signal
import socket
import threading

import pytest

from fake_server import FakeServer
from helpers import run_cli
from miniagent import assemble
from miniagent.compaction.overhead import overhead_too_big, suggested_window

ANSWER = [{"content": [{"type": "text", "text": "Hello."}]}]


@pytest.fixture
def watched(monkeypatch):
    """stderr as a person's terminal (run_cli's stderr is a StringIO)."""
    monkeypatch.setattr(assemble, "stderr_on_terminal", lambda: True)


def asking_line(url):
    return f"miniagent: asking {url} about the models it serves... (Ctrl-C to stop)"


def test_asking_a_server_at_start_up_says_so_once_on_a_terminal(tmp_path, watched):
    with FakeServer(ANSWER) as srv:  # no --model: its list is asked, then its window
        url = srv.base_url + "/v1"
        result = run_cli("--base-url", url, "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello.\n"  # the answer alone
    assert result.stderr.splitlines().count(asking_line(url)) == 1
    assert result.stderr.startswith(asking_line(url))  # before any wait


def test_a_script_log_is_spared_the_line(tmp_path):
    with FakeServer(ANSWER) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 0 and "asking" not in result.stderr


def test_ctrl_c_while_a_silent_server_is_asked_exits_130_without_a_traceback(tmp_path, watched):
    with socket.socket() as silent:  # accepts, and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"

        held = []

        def press_ctrl_c_once_asked():
            held.append(silent.accept()[0])  # the question is on its way; kept unanswered
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

        threading.Thread(target=press_ctrl_c_once_asked, daemon=True).start()
        result = run_cli("--base-url", url, "-p", "hi", cwd=str(tmp_path))
        for connection in held:
            connection.close()
    assert result.returncode == 130, result.stderr
    assert result.stderr == asking_line(url) + "\n"  # the line, and no traceback


def tiny_window(home, srv, window):
    """A provider for the test server whose model has a window of `window` tokens."""
    home.mkdir(exist_ok=True)
    (home / "models.json").write_text(json.dumps({"providers": {"box": {
        "baseUrl": srv.base_url + "/v1", "api": "openai-completions",
        "models": [{"id": "fake-model", "contextWindow": window}]}}}))
    return {"MINIAGENT_HOME": str(home)}


def test_a_prompt_and_tools_that_alone_exceed_the_window_stop_print_mode_before_a_request(
        tmp_path):
    with FakeServer(ANSWER) as srv:
        env = tiny_window(tmp_path / "home", srv, 600)
        result = run_cli("--provider", "box", "-p", "hi", cwd=str(tmp_path), env=env)
        asked = [r for r in srv.requests if r["path"].endswith("/chat/completions")]
    assert result.returncode == 1 and result.stdout == "" and asked == []
    tokens = re.search(r"take about ([\d,]+) tokens", result.stderr).group(1)
    assert result.stderr == (
        f"miniagent: the system prompt and tool definitions take about {tokens} tokens, "
        f"more than this model's 600-token window: try --tools read, --no-tools, or a "
        f"model with a bigger window (llama.cpp: -c 16384)\n")
    assert 600 < int(tokens.replace(",", "")) < 2000


def test_the_fixes_it_names_work(tmp_path):
    with FakeServer(ANSWER) as srv:
        env = tiny_window(tmp_path / "home", srv, 600)
        result = run_cli("--provider", "box", "--no-tools", "-p", "hi", cwd=str(tmp_path),
                         env=env)
    assert result.returncode == 0 and result.stdout == "Hello.\n", result.stderr
    assert "tool definitions" not in result.stderr


def test_a_window_larger_than_the_overhead_says_nothing():
    tokens = 5100
    assert overhead_too_big("x" * (4 * tokens), [], tokens) is None
    assert "about 5,101 tokens, more than this model's 5,100-token" in overhead_too_big(
        "x" * (4 * tokens + 1), [], tokens)
    assert suggested_window(5100) == 16384 and suggested_window(20000) == 65536
