"""The front door: what the `miniagent` script and `python -m miniagent` call first.

Every module a program imports is paid for on every start, and `miniagent --version`
needs none of ours: the version is a string in miniagent/__init__.py. So the first
function called answers that question with nothing loaded, and only then imports the
command line (cli.py: argparse, the flags, the front ends):

    miniagent --version    -> launch.main() prints it     (this file and sys only)
    miniagent ANYTHING     -> cli.main()                    (the parser, then the run)

What is left of `--version`'s time is Python's own start, plus the `import re` that
pip's generated `miniagent` script does before calling us (tests/bench_startup.py
measures both).

Left out: every other flag, `--help` included; argparse answers those (cli.py).
"""

import sys

from . import __version__

VERSION = f"miniagent {__version__}"


def main() -> int:
    """The console script's entry point: the exit status of this process's command line."""
    if sys.argv[1:] == ["--version"]:  # exactly that: `--version --bogus` is argparse's
        print(VERSION)
        return 0
    from .cli import main as cli_main
    return cli_main()
