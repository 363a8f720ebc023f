"""python -m miniagent.core (core/__main__.py): the demo offline, and one prompt to an
OpenAI-compatible server. Run in-process: main() is the whole program."""

import tempfile

import pytest
from fake_server import FakeServer

from miniagent.core.__main__ import main


def test_the_demo_fixes_the_project_offline_and_prints_its_steps(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the project's copy lands here
    assert main(["--demo"]) == 0
    out, err = capsys.readouterr()
    assert "prints `Hello, world!`" in out and "$ python3" not in out  # the answer alone
    assert "Demo project copied to " + str(tmp_path) in err
    for step in ("$ ls", "read hello.py", "$ python3 hello.py", "! NameError", "edit hello.py",
                 "    Hello, world!"):
        assert step in err
    [project] = tmp_path.glob("miniagent-demo-*")
    assert '"Hello, " + name + "!"' in (project / "hello.py").read_text()


def test_against_an_openai_compatible_server_it_runs_a_tool_round_trip_and_answers(
        tmp_path, monkeypatch, capsys):
    (tmp_path / "note.txt").write_text("remember the milk\n")
    monkeypatch.chdir(tmp_path)
    read = {"type": "toolCall", "name": "read", "arguments": {"path": "note.txt"}}
    with FakeServer([{"content": [read]},
                     {"content": [{"type": "text", "text": "It says: remember the milk."}]}]) as srv:
        status = main(["--base-url", srv.base_url + "/v1", "--model", "fake-model",
                       "--api-key", "k", "what does note.txt say?"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert out == "It says: remember the milk.\n"
    assert "read note.txt" in err and "remember the milk" in err
    assert srv.requests[0]["headers"]["authorization"] == "Bearer k"
    assert "remember the milk" in str(srv.requests[1]["body"]["messages"][-1])


def test_without_a_demo_or_a_server_it_says_what_to_give(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["hello"])
    assert exit.value.code == 2
    assert "give --demo, or --base-url, --model and a prompt" in capsys.readouterr().err
