"""The hidden check of change-config-value: settings.json changed, and only as asked.

Exits 0 when solved; otherwise prints what is wrong, one line each, and exits 1.
"""

import json
import subprocess
import sys

WANTED = {"host": "127.0.0.1", "port": 8081, "retries": 5, "timeout_seconds": 10}
EXPECTED = "serving on 127.0.0.1:8081, 5 retries, 10 s timeout\n"


def problems():
    try:
        with open("settings.json", encoding="utf-8") as f:
            settings = json.load(f)
    except (OSError, ValueError) as exc:
        return [f"settings.json cannot be read: {exc}"]
    found = [f"settings.json: {key} is {settings.get(key)!r}, expected {value!r}"
             for key, value in WANTED.items() if settings.get(key) != value]
    found += [f"settings.json: unexpected key {key!r}" for key in settings if key not in WANTED]
    with open("server.py", encoding="utf-8") as f:
        if "8081" in f.read():
            found.append("server.py names 8081 itself: the port belongs in settings.json")
    run = subprocess.run([sys.executable, "server.py"], capture_output=True, text=True,
                         timeout=60)
    if run.returncode != 0 or run.stdout != EXPECTED:
        found.append(f"server.py exited {run.returncode} and printed {run.stdout!r} "
                     f"{run.stderr[-300:]!r}, expected {EXPECTED!r}")
    return found


if __name__ == "__main__":
    found = problems()
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
