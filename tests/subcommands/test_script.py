"""`miniagent script`: a recorded session becomes a script that replays the same run offline."""

from functools import partial
import json
import shutil

import pytest

from helpers import FIXTURES, call, text
from miniagent.agent import Agent
from miniagent.harness.harness import Harness
from miniagent.core.messages import is_failed, text_of, tool_calls, user_message
from miniagent.core.scripted import parse_script, scripted_model
from miniagent.subcommands.script import main, session_to_script, write_script
from miniagent.session.tree import Session
from miniagent.session.store import STORE
from miniagent.session.stats import file_stats
from miniagent.tools import create_tools

HELLO = 'def greet(name):\n    return "Hello, " + nme + "!"\n\nprint(greet("world"))\n'

# A real run's model script: a retried 503 in the first prompt, a final 401 ending the
# second, and usage big enough that a replay keeping it would look like a full context.
RECORDED_TURNS = [
    {"content": [text("Let me look."), call("read", path="hello.py")],
     "usage": {"input": 150000, "output": 40}},
    {"content": [text("Half a sent")], "errorMessage": "503 Service Unavailable"},
    {"content": [call("edit", path="hello.py", edits=[{"oldText": "nme", "newText": "name"}])]},
    {"content": [call("bash", command="python3 hello.py")]},
    {"content": [text("Fixed: it prints Hello, world!")]},
    {"content": [call("write", path="README.md", content="# Hello\n")]},
    {"content": [], "errorMessage": "401 Invalid API key"},
    {"content": [{"type": "thinking", "thinking": "They thank me."}, text("You're welcome.")]},
]
PROMPTS = ["Fix hello.py", "Add a README", "Thanks"]


def make_project(folder):
    folder.mkdir()
    (folder / "hello.py").write_text(HELLO)
    return folder


def run_prompts(script, project, prompts, session=None):
    harness = Harness(partial(Agent, model=scripted_model(script), tools=create_tools(),
                              cwd=str(project)), session, base_delay=0)
    agent = harness.agent
    for prompt in prompts:
        harness.run(prompt)
    return agent


def calls_made(agent):
    return [(c["name"], c["arguments"]) for m in agent.messages if m["role"] == "assistant"
            for c in tool_calls(m)]


def record_session(tmp_path):
    """Run the recorded turns with the real tools, recording a session file."""
    session = Session.create(str(tmp_path / "original"), session_dir=str(tmp_path / "sessions"))
    agent = run_prompts(parse_script(RECORDED_TURNS), make_project(tmp_path / "original"), PROMPTS,
                        session)
    return session.path, agent


def test_a_recorded_session_replays_the_same_tool_calls_and_final_answer(tmp_path):
    path, original = record_session(tmp_path)
    script = parse_script(session_to_script(path), "recorded")
    assert script.prompts == PROMPTS
    replay = run_prompts(script, make_project(tmp_path / "copy"), script.prompts)
    assert calls_made(replay) == calls_made(original)
    assert text_of(replay.messages[-1]) == text_of(original.messages[-1]) == "You're welcome."
    assert script.served == len(script.turns)  # every turn used, none missing
    for name in ("hello.py", "README.md"):  # the real tools did the same work
        assert (tmp_path / "copy" / name).read_text() == (tmp_path / "original" / name).read_text()
    assert not any(is_failed(message) for message in replay.messages)


def test_a_retried_failure_is_dropped_and_a_failure_that_ended_its_run_keeps_the_boundary(tmp_path):
    path, _ = record_session(tmp_path)
    turns = session_to_script(path)["turns"]
    texts = [block.get("text") for turn in turns for block in turn["content"]]
    assert "Half a sent" not in texts  # the 503 was retried: its retry is the next turn
    assert turns[5] == {"content": []}  # the 401 ended prompt 2: the run ends there again
    assert turns[6]["content"][0] == {"type": "thinking", "thinking": "They thank me."}


def test_usage_is_dropped_unless_asked_to_keep_the_token_counts(tmp_path):
    path, _ = record_session(tmp_path)
    assert all("usage" not in turn for turn in session_to_script(path)["turns"])
    kept = session_to_script(path, keep_usage=True)["turns"][0]["usage"]
    assert kept == {"input": 150000, "output": 40, "cacheRead": 0, "cacheWrite": 0}


def test_pi_retried_500_becomes_one_turn():
    script = session_to_script(str(FIXTURES / "pi-run/pi-0.73.1/http500x3.session.jsonl"))
    assert script == {"prompts": ["Say something."],
                      "turns": [{"content": [text("Recovered after pi's own retry.")]}]}


def test_pi_v3_tool_calls_keep_their_ids_and_the_script_is_valid():
    script = session_to_script(str(FIXTURES / "pi-run/pi-0.73.1/print.session.jsonl"))
    assert script["prompts"] == ["Read notes.txt and apply what it asks to the code."]
    first = script["turns"][0]["content"][0]
    assert first == {"type": "toolCall", "name": "read", "arguments": {"path": "notes.txt"},
                     "id": "call_0_0"}
    assert len(parse_script(script).turns) == 4


def test_the_pi_v1_fixture_keeps_every_prompt_and_drops_thinking_signatures():
    path = str(FIXTURES / "pi-sessions/pi-v1-before-compaction.jsonl")
    script = session_to_script(path)
    stats = file_stats(path, STORE.load(path).entries)
    assert len(script["prompts"]) == stats.user_prompts  # one linear branch: all of them
    assert script["prompts"][1].startswith("AgentSession looks like a good idea")
    blocks = [block for turn in script["turns"] for block in turn["content"]]
    assert all("thinkingSignature" not in block for block in blocks)
    parse_script(script, "v1")  # the scripted model accepts it


def test_only_the_branch_the_session_ended_on_is_replayed(tmp_path):
    session = Session.create(str(tmp_path), session_dir=str(tmp_path))
    session.append_message(user_message("first"))
    reply = session.append_message({"role": "assistant", "content": [text("one")],
                                    "stopReason": "stop"})
    session.append_message(user_message("abandoned"))
    session.append_message({"role": "assistant", "content": [text("old")], "stopReason": "stop"})
    session.branch(reply)
    session.append_message(user_message("kept"))
    session.append_message({"role": "assistant", "content": [text("new")], "stopReason": "stop"})
    script = session_to_script(session.path)
    assert script["prompts"] == ["first", "kept"]
    assert [turn["content"][0]["text"] for turn in script["turns"]] == ["one", "new"]


def test_the_command_writes_beside_the_session_and_prints_the_path(tmp_path, capsys):
    source = tmp_path / "run.jsonl"
    shutil.copy(FIXTURES / "pi-run/pi-0.73.1/print.session.jsonl", source)
    assert main([str(source), "--keep-usage"]) == 0
    written = tmp_path / "run.script.json"
    assert capsys.readouterr().out == f"{written}\n"
    assert json.loads(written.read_text())["turns"][0]["usage"]["input"] == 1395
    assert write_script(str(source), str(tmp_path / "other.json")) == str(tmp_path / "other.json")


@pytest.mark.parametrize("content", ["not a session\n", None])
def test_a_file_that_cannot_be_read_is_one_line_and_exit_1(tmp_path, capsys, content):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content)
    assert main([str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and str(path) in captured.err
