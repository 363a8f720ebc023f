"""Driving `python -m miniagent --mode rpc` as a program does: JSON commands on its
stdin, events and responses read from its stdout (the rpc tests share it)."""

import json
import os
import queue
import subprocess
import sys
import threading

from helpers import KEYS, ROOT

WAIT = 30  # seconds: a bound for a broken build, never a synchronisation


class Rpc:
    """One `miniagent --mode rpc` process; every stdout line is parsed as JSON (a line
    that is not would fail the test: stdout must carry nothing else)."""

    def __init__(self, tmp_path, *args):
        env = {key: value for key, value in os.environ.items() if key not in KEYS}
        env["PYTHONPATH"] = ROOT
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "miniagent", "--mode", "rpc", *args], cwd=str(tmp_path),
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, command, end=b"\n"):
        data = command if isinstance(command, bytes) else json.dumps(command).encode()
        self.proc.stdin.write(data + end)
        self.proc.stdin.flush()

    def next(self):
        line = self.lines.get(timeout=WAIT)
        assert line is not None, "miniagent closed stdout: " + self.proc.stderr.read().decode()
        return json.loads(line)

    def until(self, test):
        """Every record up to and including the first one that passes `test`."""
        records = [self.next()]
        while not test(records[-1]):
            records.append(self.next())
        return records

    def response(self, request_id):
        return self.until(lambda r: r["type"] == "response" and r.get("id") == request_id)[-1]

    def call(self, command):
        """Send a command with an id and return its response's data (it must succeed)."""
        answer = self.ask(command)
        assert answer["success"], answer
        return answer.get("data")

    def ask(self, command):
        self.send({"id": command["type"], **command})
        return self.response(command["type"])

    def close(self):
        """Close stdin; (exit status, the records still written, stderr)."""
        self.proc.stdin.close()
        rest = []
        for line in iter(lambda: self.lines.get(timeout=WAIT), None):
            rest.append(json.loads(line))
        self.proc.wait(timeout=WAIT)
        return self.proc.returncode, rest, self.proc.stderr.read().decode()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def of_type(records, kind):
    return [record for record in records if record["type"] == kind]
