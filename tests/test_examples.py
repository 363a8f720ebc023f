"""The extension docs/extensions.md shows: a gate that refuses a recursive rm outside the project."""

from pathlib import Path

import pytest

import miniagent
from helpers import call, make_agent, text
from miniagent.project.extension_loader import load_extensions
from miniagent.tools import create_tools

GATE = Path(miniagent.__file__).parent / "examples" / "gate_rm_rf.py"


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "app"
    (folder / "build").mkdir(parents=True)
    (folder / "build" / "out.o").write_text("x")
    return folder


def gate_verdict(project, command, tool="bash"):
    extensions = load_extensions(str(project), [str(GATE)])
    assert extensions.warnings == []
    return extensions.before_tool_call({"toolCall": {"name": tool}, "args": {"command": command}})


@pytest.mark.parametrize("command", [
    "rm -rf build", "rm -r build/cache ./dist", "rm -rf build; ls ..", "rm -f ../notes.txt",
    "rm ../x", "ls -R /", "echo 'rm -rf /'", "git rm -r --cached ..",
])
@pytest.mark.ex_gate
def test_what_it_lets_through(project, command):
    assert gate_verdict(project, command) is None


@pytest.mark.parametrize("command", [
    "rm -rf /", "rm -rf ~", "rm -r ../other", "rm -rf .", "rm -Rf build ..",
    "rm --recursive --force /tmp", "make && rm -rf $HOME/x", "sudo rm -rf /etc",
    "cd build; rm -fr `pwd`/..", "ls | (rm -rf ../*)", "rm -rf 'build/../..'",
    "echo a\nrm -rf ../other", "/bin/rm -rf /", "command rm -rf /", "env X=1 rm -rf /",
    "sudo -u root rm -rf /", "xargs rm -rf < list", "rm -rf {../other,x}",
])
@pytest.mark.ex_gate
def test_what_it_blocks(project, command):
    verdict = gate_verdict(project, command)
    assert verdict["block"] is True
    assert f"would delete outside the project {project}" in verdict["reason"]


@pytest.mark.ex_gate
def test_other_tools_are_not_its_business(project):
    assert gate_verdict(project, "rm -rf /", tool="read") is None


@pytest.mark.ex_gate
def test_in_a_run_the_model_reads_why_and_nothing_is_deleted(project):
    extensions = load_extensions(str(project), [str(GATE)])
    outside = project.parent / "keep.txt"
    outside.write_text("precious")
    agent = make_agent([{"content": [call("bash", command=f"rm -rf {outside}"),
                                     call("bash", command="rm -rf build")]},
                        {"content": [text("done")]}], create_tools(["bash"]), cwd=str(project))
    agent.before_tool_call = extensions.before_tool_call
    agent.prompt("clean up")
    results = [m for m in agent.messages if m["role"] == "toolResult"]
    assert outside.read_text() == "precious" and results[0]["isError"] is True
    assert results[0]["content"][0]["text"].startswith(f"`rm -rf {outside}` would delete outside")
    assert not (project / "build").exists() and results[1]["isError"] is False


@pytest.mark.ex_gate
def test_a_command_it_cannot_parse_is_blocked_not_waved_through(project):
    verdict = gate_verdict(project, 'rm -rf "/ ; echo')
    assert verdict["block"] is True and "ValueError: No closing quotation" in verdict["reason"]
