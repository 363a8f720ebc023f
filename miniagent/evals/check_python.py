"""The `$PYTHON` a trial's setup and check run: the copy's folder last on the module path.

A check imports two kinds of module: the standard library's (`unittest`, `json`) and
the copy's (the code under test). Plain `python -m unittest` puts the folder it runs in
first on its module path, so a `unittest.py` the agent left in the copy replaces the
real one, and a check that "passes" may have run nothing at all.

So `$PYTHON` is a two-line shell script the trial writes outside the copy
(trial.py's write_check_python):

    exec /path/to/python -I /path/to/miniagent/evals/check_python.py "$@"

`-I` (isolated) leaves out the folder Python would put first (`-P` does only that, but
Python 3.10 lacks it), the user's site-packages and every PYTHON* variable. This file
then puts that folder back, last, and runs what it was asked to, the way `python` would:

    "$PYTHON" -m unittest -q test_hidden    the module, the current folder last on the path
    "$PYTHON" check.py ARGS                 the script, its own folder last on the path
    "$PYTHON" -c CODE ARGS                  the code, the current folder last on the path

The standard library and the interpreter's installed packages come first: a module of
the copy named like one of them (`types.py`) is not the one a check imports.

Left out: Python's other options (`-u`, `-W` ...): a check names a module, a script or
code, and anything else is refused in one line.
"""

import os
import runpy
import sys

USAGE = "miniagent eval: a check's $PYTHON runs -m MODULE, -c CODE or a script"


def main(args):
    """Run `args` as `python ARGS` would, with the folder it would put first put last."""
    if len(args) > 1 and args[0] == "-m":
        sys.argv = args[1:]  # run_module puts the module's file in sys.argv[0], as -m does
        sys.path.append(os.getcwd())
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif len(args) > 1 and args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        sys.path.append(os.getcwd())
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
    elif args and not args[0].startswith("-"):
        sys.argv = args
        sys.path.append(os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")
    else:
        sys.exit(f"{USAGE} (got {' '.join(args) or 'nothing'})")


if __name__ == "__main__":
    main(sys.argv[1:])
