"""The REPL, driven as a person drives it: `python -m miniagent` in a pseudo-terminal,
against the scripted model or the local test server (tests/fake_server.py)."""

import json
import re
import signal
from contextlib import contextmanager

from fake_server import FakeServer, status
from pty_driver import Terminal
from helpers import call, text, wait_gone, write_script


CTRL_C, CTRL_D = "\x03", "\x04"


@contextmanager
def repl(tmp_path, *args, env=None):
    """The REPL in a terminal, in tmp_path, with its own MINIAGENT_HOME."""
    full_env = {"MINIAGENT_HOME": str(tmp_path / "home"), **(env or {})}
    with Terminal(list(args), env=full_env, cwd=str(tmp_path)) as term:
        yield term


def scripted(tmp_path, turns):
    return ["--provider", "scripted", "--script", write_script(tmp_path, turns)]


def served(server):
    return ["--base-url", server.base_url + "/v1", "--model", "fake-model"]


def request_texts(request):
    """Every text the request sent as user content, in order."""
    texts = []
    for message in request["body"]["messages"]:
        content = message.get("content")
        if message["role"] == "user":
            texts += [content] if isinstance(content, str) else [
                part.get("text", "") for part in content]
    return texts


SLOW_COMMAND = "sleep 30 & printf 'p%s %s q\\n' $$ $!; echo started; wait"


def shown_pids(term):
    """The shell's and the child's pids, as SLOW_COMMAND shows them in the live window."""
    return [int(pid) for pid in re.findall(r"p(\d+) (\d+) q\n", term.expect(" q\n"))[-1]]


def test_the_first_token_is_on_screen_before_the_last_is_sent_and_a_footer_follows(tmp_path):
    turn = {"content": [text("Hello from the first piece, and then the rest.")],
            "fault": {"hold_after_pieces": 2}}  # the role chunk and "Hello fr"
    with FakeServer([turn]) as server, repl(tmp_path, *served(server), "say hi") as term:
        term.expect("Hello fr")  # the prompt from the command line runs first
        assert "the rest" not in term.plain()
        server.go_on.set()
        term.expect("the rest.")
        footer = term.expect("> ")
        assert "5 out" in footer and "cost unknown" in footer
        assert re.search(r"context \d+% of 128k", footer)
        assert sum("Hello from the first piece" in line for line in term.screen()) == 1
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_server_always_answering_500_shows_one_counter_and_the_error_once(tmp_path):
    with FakeServer([status(500, body="boom")] * 6) as server, \
            repl(tmp_path, *served(server), "hi",
                 env={"MINIAGENT_RETRY_BASE_DELAY": "0.001"}) as term:
        term.expect("error: 500 boom")
        term.expect("> ")
        shown = [line.strip() for line in term.screen() if "500 boom" in line]
        assert [line.split(" s ", 1)[-1] for line in shown] == [
            "(1 of 3): 500 boom", "(2 of 3): 500 boom", "(3 of 3): 500 boom", "error: 500 boom"]
        assert len(server.requests) == 4
        term.send(CTRL_D)
        assert term.wait() == 0


def test_ctrl_c_mid_stream_aborts_at_once_keeps_the_session_and_gives_back_queued_lines(
        tmp_path):
    turn = {"content": [text("Hello from a stream that never ends")],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([turn]) as server, repl(tmp_path, *served(server)) as term:
        term.expect("> ")
        term.send("hi\r")
        term.expect("Hello fr")
        term.send("and then tidy up\r")
        term.expect("queued: and then tidy up")
        term.ctrl_c()  # once the REPL waits for a key (see pty_driver.Terminal.ctrl_c)
        term.expect("(stopped)", timeout=2)
        term.expect("1 queued message(s) put back in the input line")
        term.expect("> and then tidy up")  # back in the input line, to send or to edit
        assert server.hung_up.wait(5)  # the stream was closed, not left open
        session = next((tmp_path / "home").rglob("*.jsonl")).read_text()
        assert re.search(r'"stopReason": ?"aborted"', session)
        assert len(server.requests) == 1  # nothing is sent until the user types again
        term.ctrl_c()  # clears the typed line; this one does not arm quitting
        term.expect("> ")
        term.ctrl_c()  # at an empty prompt: how to quit ...
        term.expect("Ctrl-C again to quit")
        term.expect("> ")
        term.ctrl_c()  # ... and quitting
        assert term.wait() == 0


def test_ctrl_c_during_bash_kills_its_whole_process_group(tmp_path):
    turns = [{"content": [call("bash", command=SLOW_COMMAND)]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect("> ")
        term.send("start\r")
        pids = shown_pids(term)
        term.ctrl_c()  # once the REPL waits for a key (see pty_driver.Terminal.ctrl_c)
        term.send(CTRL_C)  # more Ctrl-Cs before the prompt is back do not quit
        term.expect("Command aborted")
        term.expect("> ")
        assert all(wait_gone(pid) for pid in pids)
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_line_typed_during_a_slow_tool_is_in_the_next_request(tmp_path):
    turns = [{"content": [call("bash", command="while [ ! -e go ]; do sleep 0.02; done; echo ready")]},
             {"content": [text("Using tabs from now on.")]}, {"content": [text("Later.")]}]
    with FakeServer(turns) as server, repl(tmp_path, *served(server)) as term:
        term.expect("> ")
        term.send("fix it\r")
        term.expect("running $ while")
        term.send("use tabs\r")
        term.expect("queued: use tabs")
        (tmp_path / "go").write_text("")
        term.expect("Using tabs from now on.")
        term.expect("> ")
        assert request_texts(server.requests[1])[-1] == "use tabs"
        term.send("/followup later\r")  # at the prompt there is nothing to wait for
        term.expect("Later.")
        term.expect("> ")
        term.send("/quit\r")
        assert term.wait() == 0


def test_commands_prompts_attachments_and_history(tmp_path):
    (tmp_path / "hello.py").write_text("print('hi')\n")
    turns = [{"content": [text(f"answer {n}")]} for n in range(1, 6)]
    with FakeServer(turns) as server, repl(tmp_path, *served(server)) as term:
        term.expect("> ")
        term.send("/frobnicate\r")
        term.expect("unknown command /frobnicate: /help lists the commands")
        term.send("/etc/hosts is wrong\r")
        term.expect("answer 1")
        term.expect("> ")
        term.send("//help\r")
        term.expect("answer 2")
        term.expect("> ")
        term.send("/model other-model\r")
        term.expect("not in the registry")
        term.send("explain @hello.py and @missing.txt\r")
        term.expect("@missing.txt is not attached: File not found")
        term.expect("answer 3")
        term.expect("> ")
        term.send("first\\\r")  # a trailing backslash continues the input
        term.send("second\r")
        term.expect("answer 4")
        term.expect("> ")
        term.send("\x1b[200~pasted one\npasted two\x1b[201~\r")  # a bracketed paste
        term.expect("answer 5")
        term.expect("> ")
        term.send("/thinking high\r")
        term.expect("does not reason")
        term.send("/tools\r")
        term.expect("bash")
        term.send("/quit\r")
        assert term.wait() == 0
    sent = [request_texts(request)[-1] for request in server.requests]
    assert sent[:2] == ["/etc/hosts is wrong", "/help"]
    assert sent[2].startswith(f'<file name="{tmp_path / "hello.py"}">\nprint(\'hi\')\n</file>')
    assert sent[2].endswith("explain @hello.py and @missing.txt")
    assert sent[3:] == ["first\nsecond", "pasted one\npasted two"]
    assert [request["body"]["model"] for request in server.requests] == [
        "fake-model", "fake-model", "other-model", "other-model", "other-model"]
    assert "/etc/hosts is wrong" in (tmp_path / "home" / "history").read_text()


def test_parallel_calls_each_show_their_own_folded_result(tmp_path):
    turns = [{"content": [{"type": "thinking", "thinking": "Two things at once."},
                          call("bash", command="sleep 0.3; echo from-the-first"),
                          call("bash", command="seq 1 60")]},
             {"content": [text("Both done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect("> ")
        term.send("go\r")
        term.expect("Both done.")
        term.expect("> ")
        screen = term.screen()
        start = screen.index("  $ sleep 0.3; echo from-the-first")
        assert screen[start + 1] == "    from-the-first"
        assert screen[start + 2:start + 9] == [
            "  $ seq 1 60", "    1", "    2", "    3", "    4", "    5", "    … 55 more lines"]
        assert len(screen) < 20  # 60 lines of output leave a short screen
        assert re.search(r"\x1b\[2m[^\x1b]*Two", term.text)  # thinking is dimmed
        term.send(CTRL_D)
        assert term.wait() == 0


def test_no_escape_codes_at_all_with_no_color_or_on_a_dumb_terminal(tmp_path):
    turns = [{"content": [text("Looking."), call("bash", command="echo out")]},
             {"content": [text("Done.")]}]
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        with repl(tmp_path, *scripted(tmp_path, turns), env=env) as term:
            term.expect("> ")
            term.send("go\r")
            term.expect("Done.")
            term.expect("> ")
            term.send(CTRL_D)
            assert term.wait() == 0
            assert "\x1b" not in term.text  # no colour, no cursor codes, no paste marks


def test_sigterm_ends_the_repl_with_143_and_nothing_left_running(tmp_path):
    turns = [{"content": [call("bash", command=SLOW_COMMAND)]}]
    with repl(tmp_path, *scripted(tmp_path, turns), "start") as term:
        pids = shown_pids(term)
        term.process.send_signal(signal.SIGTERM)
        term.process.send_signal(signal.SIGTERM)  # a second one must not skip the cleanup
        assert term.wait() == 143
        assert all(wait_gone(pid) for pid in pids)


def small_window(home, server, window=400):
    """A provider for the test server with a small window, so that a short conversation
    has something to compact."""
    home.mkdir(exist_ok=True)
    (home / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": server.base_url + "/v1", "api": "openai-completions",
        "models": [{"id": "fake-model", "contextWindow": window, "maxTokens": 100}]}}}))
    return ["--provider", "fake"]


def test_session_commands_and_a_shell_command_in_a_terminal(tmp_path):
    turns = [{"content": [text("Answer one.")]}, {"content": [text("Answer two.")]},
             {"content": [text("## Goal\nKeep the facts.")]}]
    home = tmp_path / "home"
    with FakeServer(turns) as server, repl(tmp_path, *small_window(home, server)) as term:
        # The prompt and tools alone exceed 400 tokens: one line says so; the REPL stays open
        term.expect("tool definitions take about ")
        term.expect("more than this model's 400-token window: try --tools read, --no-tools")
        term.expect("> ")
        term.send("alpha " * 40 + "\r")
        term.expect("Answer one.")
        term.expect("> ")
        term.send("bravo " * 200 + "\r")
        term.expect("Answer two.")
        term.expect("> ")
        term.send("/session\r")
        path = re.search(r"file      (\S+\.jsonl)", term.expect("cost ")).group(1)
        term.send("/compact\r")
        term.expect("compacted: ")
        term.send("/tree\r")
        tree = term.expect("(/tree ID moves there)")
        bravo_id = re.search(r"([0-9a-f]{8})  user: bravo", tree).group(1)
        assert "[compaction]" in tree and "← here" in tree
        term.send(f"/tree {bravo_id}\r")
        term.expect("summarise the branch you leave? [y/N] ")
        term.send("\r")
        term.expect("its text is in the input line")
        term.expect("> bravo bravo")  # the prompt, back in the input line to edit
        term.send("\x15")  # Ctrl-U: clear the line
        term.send("/export notes.md\r")
        term.expect(f"wrote {tmp_path / 'notes.md'}")
        term.send("!echo from-the-shell\r")
        term.expect("$ echo from-the-shell")
        term.expect("from-the-shell")
        term.expect("> ")
        term.send(CTRL_D)
        assert term.wait() == 0
    branch = (tmp_path / "notes.md").read_text()  # the branch moved back to: before bravo
    assert "Answer one." in branch and "bravo" not in branch
    recorded = [json.loads(line) for line in open(path)]
    assert [e["message"]["role"] for e in recorded if e["type"] == "message"][-1] == (
        "bashExecution")
    with FakeServer([]) as server, repl(tmp_path, *small_window(home, server), "-c") as term:
        # -c: the session again, its last exchange shown as a reminder
        term.expect("> alpha alpha")
        term.expect("Answer one.")
        term.expect("> ")
        term.send("/quit\r")
        assert term.wait() == 0


def test_ctrl_c_at_the_start_up_trust_question_quits_with_130_and_records_nothing(tmp_path):
    (tmp_path / ".miniagent" / "skills").mkdir(parents=True)
    with FakeServer([{"content": [text("never asked")]}]) as server, \
            repl(tmp_path, *served(server)) as term:
        term.expect("[y/N] ")
        term.ctrl_c()  # once the question waits for a key (see pty_driver.Terminal.ctrl_c)
        assert term.wait() == 130
        assert "> " not in term.plain().split("[y/N] ")[-1]  # no REPL prompt after it
    assert server.requests == []
    assert not (tmp_path / "home" / "trust.json").exists()
