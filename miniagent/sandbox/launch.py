"""The launcher: restrict myself, then become the command (the sandbox's one process).

    python -m miniagent.sandbox.launch --write ROOT ... [--net] [--tmp DIR] -- ARGV...

The agent starts every confined command through this small program instead of starting
it directly. It confines itself with Landlock (landlock.py), then replaces itself with
the command (execvp), which inherits the walls: so does everything the command starts.
Why a separate process: restricting the agent itself would confine it for good, and a
`preexec_fn` runs Python between fork and exec in a threaded process, which can
deadlock; a fresh interpreter has neither problem.

`--write` names a folder (or file) the command may write beneath, once per root; `--net`
leaves TCP alone; `--tmp DIR` points the command's TMPDIR at DIR (read-only mode's
private temp folder). If the restriction fails the command never runs: exit 126 and one
line on stderr. The arguments are read by hand: this runs before every command, and
argparse would cost start-up time for four options.
"""

import os
import sys
from typing import List, NoReturn

from miniagent.sandbox import landlock

CANNOT_CONFINE = 126  # the shell's "found but cannot run"
NOT_FOUND = 127


def main(args: List[str]) -> NoReturn:
    """Confine this process as `args` ask, then execute the command they end with."""
    try:
        roots, network, temp, argv = parse(args)
        landlock.restrict(roots, network)
    except (OSError, ValueError) as error:
        fail(CANNOT_CONFINE, f"the command was not run: {error}")
    if temp:
        os.environ["TMPDIR"] = temp
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        fail(NOT_FOUND if isinstance(error, FileNotFoundError) else CANNOT_CONFINE,
             f"cannot run {argv[0]}: {error.strerror}")


def parse(args: List[str]):
    """`--write ROOT ... [--net] [--tmp DIR] -- ARGV...` -> (roots, network, temp, argv).

    Example: parse(["--write", "/src", "--", "ls"]) -> (["/src"], False, None, ["ls"])
    """
    roots, network, temp = [], False, None
    rest = list(args)
    while rest and rest[0] != "--":
        option = rest.pop(0)
        if option == "--net":
            network = True
        elif option in ("--write", "--tmp") and rest:
            value = rest.pop(0)
            if option == "--write":
                roots.append(value)
            else:
                temp = value
        else:
            raise ValueError(f"unknown or incomplete option {option!r}")
    if len(rest) < 2:
        raise ValueError("no command after --")
    return roots, network, temp, rest[1:]


def fail(status: int, line: str) -> NoReturn:
    """One line on stderr, then exit: the command has not run."""
    sys.stderr.write(f"miniagent sandbox: {line}\n")
    sys.exit(status)


if __name__ == "__main__":
    main(sys.argv[1:])
