"""api.ctx (extension_context.py): print mode's LineUI draws what the REPL's live area
shows, as lines on stderr; the calls for starting programs, through a real extension
file and a real run."""

import json
import textwrap

from fake_server import FakeServer
from helpers import answer, run_cli_process, wait_gone
from miniagent.project.extension_context import LineUI


def test_print_mode_prints_a_widget_as_one_block_each_time_it_changes():
    said = []
    ui = LineUI(said.append)
    ui.set_widget("todo", ["1 of 2 done", "[x] a\n  b"])
    ui.set_widget("todo", ["1 of 2 done", "[x] a b"])  # the same lines: nothing new
    ui.set_widget("todo", None)  # clearing prints nothing
    ui.set_widget("todo", ["1 of 2 done", "[x] a b"])  # shown again after a clear
    assert said == ["miniagent: todo:", "  1 of 2 done", "  [x] a b"] * 2

SPAWNER = textwrap.dedent('''
    import os

    def setup(api):
        def start(event):
            proc = api.ctx.start_program(["sleep", "1000"])
            flags = api.ctx.agent_flags()
            with open(os.path.join(api.cwd, "spawned.json"), "w") as f:
                f.write(__import__("json").dumps({"pid": proc.pid, "flags": flags}))
        api.on("session_start", start)
''')


def test_a_spawned_child_dies_with_the_run_and_agent_flags_repeat_its_set_up(tmp_path):
    (tmp_path / "spawner.py").write_text(SPAWNER)
    with FakeServer([answer("hi")]) as srv:
        done = run_cli_process("--base-url", srv.base_url + "/v1", "--model", "m",
                               "--thinking", "low", "-e", str(tmp_path / "spawner.py"),
                               "-p", "hi", cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    spawned = json.loads((tmp_path / "spawned.json").read_text())
    assert wait_gone(spawned["pid"])  # the reaper watched it: nothing outlives the run
    assert spawned["flags"] == ["--base-url", srv.base_url + "/v1", "--model", "m",
                                "--thinking", "off", "--sandbox", "off", "--no-approve"]
