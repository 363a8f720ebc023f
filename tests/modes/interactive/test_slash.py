"""The REPL's commands, run in-process on a scripted model: what each one prints and
what it does to the session (the pty tests in test_interactive.py drive a few of them
through a real terminal)."""

from functools import partial
import builtins
import io
import json
import os
import re
import socket
import sys
import threading
from contextlib import contextmanager

import pytest

from helpers import call, make_agent, models_server, text
from miniagent.compaction.estimate import CompactionSettings
from miniagent.modes.confirm import ConfirmGate
from miniagent.modes.rpc.commands_model import ModelCommands
from miniagent.models.choose import resolve
from miniagent.core.provider import Model
from miniagent.project.extensions import Command
from miniagent.harness.harness import Harness
from miniagent.modes.interactive.interactive_mode import Repl
from miniagent.modes.interactive.questions import ask_trust
from miniagent.session.tree import Session
from miniagent.project.skills import Skill
from miniagent.modes.terminal import Screen
from miniagent.tools import create_tools
from miniagent.project.trust import is_trusted

SUMMARY = "## Goal\nKeep the facts."


class Repl_:
    """A REPL on a scripted model, its screen in memory (not a terminal: no codes)."""

    def __init__(self, tmp_path, turns, tools=(), compaction=None, **wiring):
        self.harness = Harness(partial(make_agent, turns, tools, cwd=str(tmp_path)),
                               Session.create(str(tmp_path)), compaction=compaction, **wiring)
        agent = self.harness.agent
        self.out = io.StringIO()
        self.repl = Repl(self.harness, Screen(self.out, env={}))
        agent.subscribe(self.repl.on_event)

    def do(self, line):
        """Handle one line; returns what it printed."""
        start = len(self.out.getvalue())
        self.repl.handle(line)
        return self.out.getvalue()[start:]

    @property
    def messages(self):
        return [entry["message"] for entry in self.harness.session.entries
                if entry["type"] == "message"]


@pytest.fixture
def keyboard(monkeypatch):
    """stdin as a pipe, as the REPL reads it while the agent works; yields its write end."""
    read, write = os.pipe()
    monkeypatch.setattr(sys, "stdin", os.fdopen(read, "r"))
    yield write
    os.close(write)


@pytest.fixture
def answers(monkeypatch):
    """Answers for the questions a command asks at the prompt, in order."""
    given = []
    monkeypatch.setattr(builtins, "input", lambda question="": given.pop(0))
    return given


def test_session_name_and_new(tmp_path, keyboard):
    term = Repl_(tmp_path, [{"content": [text("Hello.")],
                             "usage": {"input": 1200, "output": 80, "cacheRead": 1024}}])
    term.do("hi")
    shown = term.do("/session")
    session = term.harness.session
    assert f"file      {session.path}" in shown and os.path.isfile(session.path)
    assert f"id        {session.id}" in shown
    assert "1 prompts · 1 replies · 0 tool calls · 0 failed" in shown
    assert "1,200 in · 80 out · 1,024 cached" in shown and "cost      $0.00" in shown
    assert "session named: bug hunt" in term.do("/name bug hunt")
    assert "name      bug hunt" in term.do("/session")
    old = session.path
    assert "new session" in term.do("/new")
    assert term.harness.session.path is None and term.harness.agent.messages == []
    assert "(written with the first reply)" in term.do("/session")
    assert '"name":"bug hunt"' in open(old).read()


def test_new_where_no_session_could_be_written_is_one_line_and_keeps_the_session(tmp_path,
                                                                                 keyboard):
    term = Repl_(tmp_path, [{"content": [text("Hello.")]}])
    term.do("hi")
    session = term.harness.session
    folder = os.path.dirname(session.path)
    os.rename(folder, str(tmp_path / "moved"))
    open(folder, "w").close()  # where the new session would go is now a file
    shown = term.do("/new")
    assert shown.startswith("cannot write session ") and shown.count("\n") == 1
    assert shown.endswith(f"{folder} is a file, not a folder\n")
    assert term.harness.session is session


def test_compact_summarizes_and_says_so_and_nothing_to_do_is_one_line(tmp_path, keyboard):
    turns = [{"content": [text("one " * 50)]}, {"content": [text("two " * 50)]},
             {"content": [text(SUMMARY)]}, {"content": [text("The turn so far.")]}]
    term = Repl_(tmp_path, turns, compaction=CompactionSettings(keep_recent_tokens=10))
    assert term.do("/compact") == "Nothing to compact yet: the whole conversation fits in " \
                                  "the part that is kept.\n"
    term.do("alpha " * 50)
    term.do("bravo " * 50)
    shown = term.do("/compact keep the numbers")
    assert shown.startswith("compacted: ") and "tokens of older conversation" in shown
    assert [e["type"] for e in term.harness.session.entries][-1] == "compaction"
    assert term.harness.agent.messages[0]["role"] == "compactionSummary"
    assert "Already compacted" in term.do("/compact")


def test_tree_shows_branches_with_ids_and_moves_to_an_entry(tmp_path, keyboard, answers):
    turns = [{"content": [text("Fixed.")]}, {"content": [text("A works.")]},
             {"content": [text("B works.")]}]
    term = Repl_(tmp_path, turns)
    term.do("fix the bug")
    term.do("try A")
    prompt_a = next(e for e in term.harness.session.entries if text_of_entry(e) == "try A")
    answers.append("n")
    shown = term.do(f"/tree {prompt_a['id'][:6]}")
    assert "moved to just before prompt" in shown and "(to type again: try A)" in shown
    term.do("try B")
    tree = term.do("/tree").splitlines()
    ids = {text_of_entry(e): e["id"] for e in term.harness.session.entries if text_of_entry(e)}
    assert tree[:2] == [f"{ids['fix the bug']}  user: fix the bug",
                        f"{ids['Fixed.']}  assistant: Fixed."]
    assert tree[2:6] == [f"├─ {ids['try A']}  user: try A",
                         f"│  {ids['A works.']}  assistant: A works.",
                         f"└─ {ids['try B']}  user: try B",
                         f"   {ids['B works.']}  assistant: B works.  ← here"]
    assert "no entry zzzz" in term.do("/tree zzzz")


def text_of_entry(entry):
    message = entry.get("message") or {}
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def test_fork_puts_the_chosen_prompt_in_the_input_line(tmp_path, keyboard, answers):
    term = Repl_(tmp_path, [{"content": [text("One.")]}, {"content": [text("Two.")]}])
    term.do("first prompt")
    term.do("second prompt")
    old = term.harness.session.path
    answers.append("2")
    shown = term.do("/fork")
    assert "  1. first prompt\n  2. second prompt\n" in shown
    assert "forked into a new session" in shown and "(to type again: second prompt)" in shown
    assert term.harness.session.path != old
    assert [text_of_entry({"message": m}) for m in term.harness.agent.messages
            if m["role"] == "user"] == ["first prompt"]


def test_export_by_extension_and_beside_the_session(tmp_path, keyboard):
    term = Repl_(tmp_path, [{"content": [text("Hello <b>there</b>.")]}])
    term.do("say hello")
    assert f"wrote {tmp_path / 'out.md'}" in term.do("/export out.md")
    markdown = (tmp_path / "out.md").read_text()
    assert "say hello" in markdown and "Hello <b>there</b>." in markdown
    term.do("/export page.html")
    page = (tmp_path / "page.html").read_text()
    assert "say hello" in page and "Hello &lt;b&gt;there&lt;/b&gt;." in page
    beside = term.harness.session.path[:-len(".jsonl")] + ".html"
    assert f"wrote {beside}" in term.do("/export") and os.path.isfile(beside)
    assert ".md (Markdown) or .html" in term.do("/export notes.txt")


def test_resume_lists_this_projects_sessions_and_a_query_filters_them(tmp_path, keyboard,
                                                                       answers):
    turns = [{"content": [text("About certificates.")]}, {"content": [text("About tabs.")]},
             {"content": [text("Now.")]}]
    term = Repl_(tmp_path, turns)
    term.do("the x509 certificate error")
    first = term.harness.session.path
    term.do("/new")
    term.do("tabs or spaces")
    second = term.harness.session.path
    term.do("/new")
    answers.append("2")
    shown = term.do("/resume")
    assert "tabs or spaces" in shown.split("  2.")[0] and "x509" in shown.split("  2.")[1]
    assert term.harness.session.path == first and f"resumed {first}" in shown
    assert "the x509 certificate error" in shown  # the last exchange, as a reminder
    answers.append("1")
    shown = term.do("/resume tabs")
    assert "  1. " in shown and "  2. " not in shown and "**tabs**" in shown
    assert term.harness.session.path == second
    assert "no other session matches 'zebra'" in term.do("/resume zebra")
    answers.append("")  # Enter: cancelled
    term.do("/resume")
    assert term.harness.session.path == second


def test_search_shows_what_sessions_search_shows(tmp_path, keyboard):
    term = Repl_(tmp_path, [{"content": [text("The certificate expired.")]}])
    term.do("why does curl fail")
    shown = term.do("/search certificate")
    session = term.harness.session
    assert f"{session.id[:8]}  just now  why does curl fail" in shown
    assert "The **certificate** expired." in shown
    assert f"continue: miniagent --session {session.path}" in shown
    assert "no session matches 'zebra'" in term.do("/search zebra")
    assert "no words to look for" in term.do("/search ::")


def test_trust_shows_and_records_the_projects_answer(tmp_path, keyboard, private_home):
    term = Repl_(tmp_path, [])
    assert "undecided (not trusted)" in term.do("/trust")
    assert "recorded" in term.do("/trust yes")
    assert is_trusted(str(tmp_path), private_home) is True
    assert ": trusted;" in term.do("/trust")
    term.do("/trust no")
    assert is_trusted(str(tmp_path), private_home) is False


def test_ask_trust_asks_once_in_an_undecided_project_with_resources(tmp_path, answers,
                                                                   private_home):
    project = tmp_path / "project"
    (project / ".miniagent" / "extensions").mkdir(parents=True)
    answers.append("y")
    assert ask_trust(str(project), private_home) is True
    assert is_trusted(str(project), private_home) is True
    assert ask_trust(str(project), private_home) is True  # recorded: not asked again
    other = tmp_path / "other"
    (other / ".miniagent" / "skills").mkdir(parents=True)
    answers.append("")  # Enter: no, recorded
    assert ask_trust(str(other), private_home) is False
    assert is_trusted(str(other), private_home) is False


def test_skills_and_extension_commands(tmp_path, keyboard):
    term = Repl_(tmp_path, [{"content": [text("Reviewed.")]}])
    skill_file = tmp_path / "review" / "SKILL.md"
    skill_file.parent.mkdir()
    skill_file.write_text("---\nname: review\ndescription: Review a diff.\n---\nRead the diff.\n")
    term.repl.skills = [Skill("review", "Review a diff.", skill_file, "Read the diff.")]
    calls = []
    term.repl.extension_commands = {
        "hello": Command("hello", lambda args: calls.append(args) or f"hi {args}",
                         "say hello", "ext.py"),
        "broken": Command("broken", lambda args: 1 / 0, "fails", "bad.py")}
    shown = term.do("/help")
    assert "/hello" in shown and "say hello (from ext.py)" in shown
    assert "/skill:review" in shown and "Review a diff." in shown
    assert term.do("/hello world") == "hi world\n" and calls == ["world"]
    assert "/broken (from bad.py) failed: ZeroDivisionError" in term.do("/broken")
    assert "Unknown skill 'nope'" in term.do("/skill:nope")
    term.do("/skill:review the last commit")
    sent = text_of_entry({"message": term.messages[0]})
    assert sent.startswith('<skill name="review"') and sent.endswith("</skill>\n\nthe last commit")


def test_a_shell_command_is_shown_and_recorded_for_the_model_unless_doubled(tmp_path,
                                                                           keyboard):
    term = Repl_(tmp_path, [{"content": [text("Seen.")]}])
    shown = term.do("!echo one; echo two; exit 3")
    assert "  $ echo one; echo two; exit 3\n" in shown and "! Command exited with code 3" in shown
    first = term.messages[-1]
    assert first["role"] == "bashExecution" and first["output"] == "one\ntwo\n"
    assert first["exitCode"] == 3 and term.harness.agent.messages[-1] is first
    assert "not added to the context" in term.do("!!echo private")
    assert term.messages[-1]["excludeFromContext"] is True
    term.do("what now?")
    sent = term.harness.agent.convert_to_llm(term.harness.agent.messages)
    texts = [text_of_entry({"message": m}) for m in sent]
    assert any("I ran `echo one; echo two; exit 3`" in t for t in texts)
    assert not any("private" in t for t in texts)
    assert "usage: !COMMAND" in term.do("!")


def test_a_confirmation_owns_the_next_line_typed(tmp_path, keyboard):
    turns = [{"content": [call("bash", command="echo ran > ran.txt")]},
             {"content": [text("Refused, then.")]}]
    term = Repl_(tmp_path, turns, tools=create_tools(["bash"]))
    term.harness.agent.before_tool_call = ConfirmGate(term.repl.ask_confirmation)

    def answer_when_asked():
        assert term.repl.pending.asking.wait(10)
        os.write(keyboard, b"n\n")
    typist = threading.Thread(target=answer_when_asked)
    typist.start()
    shown = term.do("go")
    typist.join()
    assert "bash wants to run:\n  echo ran > ran.txt\nRun it? [y]es, [n]o, [a]lways: " in shown
    assert "queued" not in shown  # the answer was not taken as a steering message
    assert not (tmp_path / "ran.txt").exists()
    result = next(m for m in term.messages if m["role"] == "toolResult")
    assert result["isError"] and "The user refused this bash call" in text_of_entry(
        {"message": result})


def test_ctrl_c_or_the_end_of_input_answers_a_confirmation_no(tmp_path, keyboard):
    turns = [{"content": [call("bash", command="echo ran > ran.txt")]}]
    term = Repl_(tmp_path, turns, tools=create_tools(["bash"]))
    gate = ConfirmGate(term.repl.ask_confirmation)
    term.harness.agent.before_tool_call = gate

    def press_ctrl_c_when_asked():
        assert term.repl.pending.asking.wait(10)
        term.repl._interrupt(2, None)  # what the SIGINT handler does
    typist = threading.Thread(target=press_ctrl_c_when_asked)
    typist.start()
    shown = term.do("go")
    typist.join()
    assert "stopping…" in shown and not (tmp_path / "ran.txt").exists()
    result = next(m for m in term.messages if m["role"] == "toolResult")
    assert result["isError"]
    term.repl.pending.end_input()  # Ctrl-D while the agent works: no answer will come
    assert term.repl.ask_confirmation("Run it? ") == ""


def test_tools_with_a_list_changes_the_tools_and_the_system_prompt(tmp_path):
    from miniagent.project.extensions import Extensions
    from miniagent.project.resources import Project
    from miniagent.project.system_prompt import build_prompt_sections
    from miniagent.project.settings import Settings
    shell = Repl_(tmp_path, [], tools=create_tools(["read", "bash"]),
                  project=Project(str(tmp_path), tmp_path, False, Settings(), Extensions()),
                  prompt_for=lambda tools: build_prompt_sections(tools, str(tmp_path)))
    harness = shell.harness
    shown = shell.do("/tools grep,read,grep")
    assert [tool.name for tool in harness.agent.tools] == ["grep", "read"]
    assert "grep" in shown and "bash" not in shown
    assert "- grep:" in harness.agent.system_prompt and "- bash:" not in harness.agent.system_prompt
    assert "unknown tool 'teleport'" in shell.do("/tools teleport")
    assert [tool.name for tool in harness.agent.tools] == ["grep", "read"]


def test_the_footer_names_the_tools_always_allowed_and_confirm_resets_them(tmp_path, keyboard):
    turns = [{"content": [call("write", path="a.txt", content="hi\n")]},
             {"content": [text("Written.")]}]
    gate = ConfirmGate(lambda question: "a")
    term = Repl_(tmp_path, turns, tools=create_tools(["write"]), confirm_gate=gate)
    term.harness.agent.before_tool_call = gate
    shown = term.do("write it")
    assert "· always allowed: write\n" in shown
    assert term.do("/confirm") == "--confirm asks again before each write call\n"
    assert term.do("/confirm") == ("--confirm: no tool was always allowed; every call is "
                                   "asked about\n")
    off = Repl_(tmp_path, [])
    assert "--confirm is off" in off.do("/confirm")


def test_clear_and_exit_are_aliases_and_an_unknown_command_names_the_nearest(tmp_path, keyboard):
    term = Repl_(tmp_path, [{"content": [text("Hello.")]}])
    term.do("hi")
    first = term.harness.session.id
    term.do("/clear")
    assert term.harness.session.id != first and term.harness.agent.messages == []
    shown = term.do("/help")
    assert "start a new session (alias /clear)" in shown and "(alias /exit)" in shown
    assert term.do("/hepl") == "unknown command /hepl: did you mean /help?\n"
    assert "did you mean /name or /new?" in term.do("/nme")
    assert "/help lists the commands" in term.do("/frobnicate")
    term.repl.extension_commands = {"hello": Command("hello", lambda args: "hi", "", "ext.py")}
    assert "did you mean /hello or /help?" in term.do("/helo")
    term.repl.handle_while_running("/exit")  # /quit works while the agent works: /exit too
    assert term.repl.exit_code == 0


def test_a_shell_commands_output_shows_up_to_fifty_lines_then_the_last_fifty(tmp_path, keyboard):
    term = Repl_(tmp_path, [])
    shown = term.do("!seq 10")
    assert [line.strip() for line in shown.splitlines()[1:]] == [str(n) for n in range(1, 11)]
    shown = term.do("!seq 60")
    assert [line.strip() for line in shown.splitlines()[1:]] == (
        ["… 10 lines before"] + [str(n) for n in range(11, 61)])
    model = Repl_(tmp_path, [{"content": [call("bash", command="seq 60")]},
                             {"content": [text("Counted.")]}], tools=create_tools(["bash"]))
    assert "    … 55 lines before\n    56\n" in model.do("count")  # the model's: its end
@contextmanager
def serving(*model_ids):
    """A local server whose GET /v1/models lists `model_ids`; yields its base URL."""
    body = json.dumps({"object": "list", "data": [{"id": i, "object": "model"} for i in model_ids]})
    with models_server(200, body) as url:
        yield url + "/v1"


def on_server(term, url, model_id):
    """The REPL's model: `model_id` of an OpenAI-compatible server at url (--base-url)."""
    term.harness.agent.model = Model(model_id, "openai-compatible", "openai-completions", url)
    term.harness.base_url = url


def test_model_lists_what_a_local_server_serves_and_picks_by_number_or_name(tmp_path):
    term = Repl_(tmp_path, [])
    with serving("qwen-a", "qwen-b") as url:
        on_server(term, url, "qwen-a")
        shown = term.do("/model").splitlines()
        rows = [line for line in shown if re.match(r" +\d+\. ", line)]
        assert re.fullmatch(r"  1\. openai-compatible/qwen-a +ctx +128,000  \(current\)", rows[0])
        assert re.fullmatch(r"  2\. openai-compatible/qwen-b +ctx +128,000", rows[1])
        assert any("anthropic/claude-sonnet-4-5" in row for row in rows[2:])  # the registry's
        assert shown[-1] == "/model N or /model NAME switches"
        assert "model: openai-compatible/qwen-b" in term.do("/model 2")
        assert (term.harness.agent.model.id, term.harness.agent.model.base_url) == ("qwen-b", url)
        assert "model: openai-compatible/qwen-a" in term.do("/model qwen-a")
        assert term.harness.agent.model.id == "qwen-a"
        assert "no model numbered 999: /model lists 1 to " in term.do("/model 999")
        assert term.harness.agent.model.id == "qwen-a"
    changes = [e for e in term.harness.session.entries if e["type"] == "model_change"]
    assert [e["modelId"] for e in changes][-2:] == ["qwen-b", "qwen-a"]  # the session records each


def test_a_server_that_does_not_answer_is_one_line_and_the_registry_still_shows(tmp_path):
    term = Repl_(tmp_path, [])
    with socket.socket() as sock:  # a port nobody listens on: refused at once
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    on_server(term, url, "qwen-a")
    shown = term.do("/model").splitlines()
    assert f"the server at {url} did not list its models (connection refused)" in shown
    assert re.search(r"  1\. openai-compatible/qwen-a +ctx +128,000  \(current\)", "\n".join(shown))
    assert any("openai/gpt-4.1 " in line for line in shown)
    number = next(line for line in shown if "anthropic/claude-sonnet-4-5 " in line).split(".")[0]
    assert "model: anthropic/claude-sonnet-4-5" not in term.do(f"/model {number.strip()}")
    assert term.harness.agent.model.id == "qwen-a"  # no Anthropic key here: not changed, and why


def test_a_cloud_model_lists_the_registry_without_asking_a_server(tmp_path):
    term = Repl_(tmp_path, [])
    chosen = resolve(provider="openai", model_id="gpt-4.1", api_key="k")
    term.harness.agent.model, term.harness.agent.api_key = chosen.model, chosen.api_key
    shown = term.do("/model")
    assert "did not list" not in shown  # api.openai.com was not asked (no network here)
    assert re.search(r"\d+\. openai/gpt-4\.1 +ctx +[\d,]+  \(current\)", shown)
    assert "model: openai/gpt-4.1-mini" in term.do("/model openai/gpt-4.1-mini")
    assert term.harness.agent.api_key == "k"  # the same provider keeps its key


def refused_url():
    """The URL of a port nobody listens on: a connection there is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def test_model_lists_the_usable_models_first_and_says_what_the_others_lack(tmp_path,
                                                                          monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
                 "DEEPSEEK_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GROQ_API_KEY", "k")
    term = Repl_(tmp_path, [])
    with serving("qwen-a") as url, serving("llama-local") as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama[:-len("/v1")])
        on_server(term, url, "qwen-a")
        rows = [line for line in term.do("/model").splitlines() if re.match(r" +\d+\. ", line)]
    usable = [row for row in rows if "no key" not in row]
    assert rows[:len(usable)] == usable  # every usable model before the first that is not
    assert "openai-compatible/qwen-a" in usable[0]
    assert any("groq/" in row for row in usable)  # its key is set
    assert any("ollama/llama-local" in row for row in usable)  # its server answered
    assert all(row.endswith("  no key: set ANTHROPIC_API_KEY")
               for row in rows if row.split()[1].startswith("anthropic/"))
    monkeypatch.setenv("OLLAMA_HOST", refused_url())
    rows = term.do("/model").splitlines()
    assert all(re.search(r"no Ollama server at .*\(connection refused\)$", row)
               for row in rows if re.match(r" +\d+\. ollama/", row))
    number = next(row for row in rows if "anthropic/claude-sonnet-4-5 " in row).split(".")[0]
    assert "model not changed: No API key for anthropic: set ANTHROPIC_API_KEY" in term.do(
        f"/model {number.strip()}")


def test_rpc_get_available_models_answers_the_same_list(tmp_path):
    term = Repl_(tmp_path, [])
    with serving("qwen-a", "qwen-b") as url:
        on_server(term, url, "qwen-b")
        listed = ModelCommands(term.harness).get_available_models({})["models"]
        shown = term.do("/model")
    assert [(m["provider"], m["id"]) for m in listed[:2]] == [
        ("openai-compatible", "qwen-a"), ("openai-compatible", "qwen-b")]
    assert len([line for line in shown.splitlines() if re.match(r" +\d+\. ", line)]) == len(listed)


def test_mcp_shows_the_servers_their_state_and_tools(tmp_path):
    from pathlib import Path
    from miniagent.mcp.config import ServerConfig
    from miniagent.mcp.servers import McpServers
    fault = str(Path(__file__).parents[2] / "mcp" / "fault_server.py")
    servers = McpServers([ServerConfig("fault", "mcp.json", sys.executable, [fault, "normal"]),
                          ServerConfig("off", "mcp.json", "off-server", enabled=False)],
                         str(tmp_path))
    servers.start()
    servers.wait_ready(10)
    try:
        shown = Repl_(tmp_path, [], mcp=servers).do("/mcp")
    finally:
        servers.close()
    lines = shown.splitlines()
    assert lines[0].startswith("fault  connected  stdio ") and lines[0].endswith("normal")
    assert lines[1].startswith("  tools: echo, add, image, fail,")
    assert any(line.startswith("off    disabled   stdio off-server") for line in lines)
    assert "no MCP servers in this run" in Repl_(tmp_path, []).do("/mcp")


def test_sandbox_shows_the_mode_and_changes_it_when_the_kernel_can(tmp_path, monkeypatch):
    from miniagent.project.extensions import Extensions
    from miniagent.project.resources import Project
    from miniagent.project.settings import Settings
    from miniagent.sandbox import confine
    problem = []
    monkeypatch.setattr(confine, "unavailable", lambda policy: problem[0] if problem else None)
    sandbox = confine.Sandbox("workspace", str(tmp_path))
    shell = Repl_(tmp_path, [], project=Project(str(tmp_path), tmp_path, False, Settings(),
                                                Extensions(), sandbox=sandbox))
    shown = shell.do("/sandbox")
    assert "sandbox: workspace (writes: project, temp; network off)" in shown
    assert "writable: " + os.path.realpath(tmp_path) in shown
    problem.append("this kernel has no Landlock")
    assert "--sandbox read-only: this kernel has no Landlock" in shell.do("/sandbox read-only")
    assert sandbox.policy.mode == "workspace"
    problem.clear()
    assert "sandbox: read-only" in shell.do("/sandbox read-only")
    assert sandbox.policy.mode == "read-only"
    assert "sandbox: off" in shell.do("/sandbox off") and not sandbox.policy.confines
    assert "usage: /sandbox" in shell.do("/sandbox sometimes")
