"""api.ctx's calls for starting processes, through a real extension file and a real run."""

import json
import textwrap

from fake_server import FakeServer
from helpers import answer, run_cli_process, wait_gone

SPAWNER = textwrap.dedent('''
    import os

    def setup(api):
        def start(event):
            proc = api.ctx.spawn(["sleep", "1000"])
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
