"""The hidden check of rename-symbol: the old name is gone, the program says the same.

Exits 0 when solved; otherwise prints what is wrong, one line each, and exits 1.
"""

import pathlib
import re
import subprocess
import sys

OLD, NEW = "calc_area", "rectangle_area"
EXPECTED = "kitchen: 12 m2\nbedroom: 16 m2 (square)\nhall: 10 m2\ntotal: 38 m2\n"


def problems():
    found = []
    for path in sorted(pathlib.Path(".").rglob("*.py")):
        if path.name == "check_rename.py":
            continue
        if re.search(rf"\b{OLD}\b", path.read_text(encoding="utf-8")):
            found.append(f"{path} still names {OLD}")
    if not re.search(rf"^def {NEW}\(", pathlib.Path("shapes.py").read_text(encoding="utf-8"),
                     re.MULTILINE):
        found.append(f"shapes.py does not define {NEW}()")
    run = subprocess.run([sys.executable, "main.py"], capture_output=True, text=True,
                         timeout=60)
    if run.returncode != 0 or run.stdout != EXPECTED:
        found.append(f"main.py exited {run.returncode} and printed {run.stdout!r} "
                     f"{run.stderr[-300:]!r}, expected {EXPECTED!r}")
    return found


if __name__ == "__main__":
    found = problems()
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
