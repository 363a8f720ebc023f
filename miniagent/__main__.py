"""`python -m miniagent`: the same program as the `miniagent` console script.

`python -m` puts the working directory first on sys.path, so inside a clone nobody has
vetted, its `secrets.py` or `json.py` would be imported in place of the standard module
(and run, before any question about trusting the project). The first thing done here is
to take the working directory off the path; the package's own modules are found
through the package, never through sys.path, so nothing of ours is lost.

What this cannot stop, because Python imports it before this file runs: the modules of
Python's own start-up, when the working directory holds one (runpy, importlib,
functools, collections, types, warnings, contextlib, keyword, operator, reprlib on
3.10; none on 3.11; importlib, types and warnings on 3.12; importlib and types on
3.13), and a `miniagent/` folder in the clone, which IS the package `python -m
miniagent` runs. In a directory you do not trust, start `miniagent` (the console
script) or `python -I -m miniagent`.
"""

import os
import sys


def drop_working_directory(path: list) -> None:
    """Remove every entry of `path` that names the working directory ("" and "." too)."""
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the working directory was deleted: nothing can be imported from it
        return
    path[:] = [entry for entry in path if os.path.realpath(entry or ".") != here]


drop_working_directory(sys.path)

try:
    from .launch import main
except KeyboardInterrupt:  # Ctrl-C while Python was still importing
    raise SystemExit(130)

raise SystemExit(main())
