"""Confirmation (`--confirm`): the user sees each risky call and may refuse it.

The model decides what to run; with `--confirm` the user gets the last word before a
command runs or a file changes. The gate is an ordinary before-hook (loop.py), so a
refusal is what any blocked call is: the call does not run, and the model reads the
reason as the call's error result and can ask or try something else.

    bash wants to run:
      rm -rf build && make
    Run it? [y]es, [n]o, [a]lways: n

    -> the model gets an error result: "The user refused this bash call, so it did not
       run. Ask the user how to go on, or try another way."

The rules:
  * `bash` shows the command, `edit` a short diff of each change, `write` the path,
    the size and the first lines of the new content; an MCP server's tool
    (`mcp__server__tool`, which may do anything its server can) its arguments as JSON;
  * `y` runs it, `a` runs it and every later call of the same tool unasked (an `a`
    said to a write lets later writes through, never a bash command); anything else
    means no, and so does an empty line or the end of input (a closed pipe must never
    mean yes). The REPL's footer names the tools always allowed, and `/confirm` asks
    about every call again (`reset_always`);
  * one question at a time: calls of one reply may run in parallel, and two questions
    on one terminal would mix. A lock makes the others wait their turn;
  * extensions' gates run first (`compose_before_hooks`), so the question shows the
    arguments that will really run, and a call an extension blocks is never asked about.

Where the answer comes from is the caller's choice: `ask(question) -> str`. The REPL
passes its own (a pending question owns the next line typed); `terminal_asker()`
reads the terminal itself, through /dev/tty when stdin is a pipe.

Left out: remembering answers across runs (of the process), per-command allow lists.
"""

import json
import os
import sys
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, TextIO

from ..project.extensions import Hook, chain_before, print_error
from .terminal import for_terminal
from ..tools.hardening.diff import generate_diff

Ask = Callable[[str], str]
GATED = ("bash", "edit", "write")
MCP_PREFIX = "mcp__"  # every MCP server tool is asked about too (the resource tools only read)
SHOWN_LINES = 20  # of a diff or a new file: enough to judge, short enough to read


class ConfirmGate:
    """A before_tool_call hook that asks before each gated call. The harness carries it
    as a harness.ConfirmationGate (a hook with an `ask`); front ends point `ask` at
    their own way of asking."""

    def __init__(self, ask: Ask, gated: Iterable[str] = GATED):
        self.ask = ask
        self.gated = set(gated)
        self.always: Set[str] = set()  # tools answered "a": not asked again
        self._lock = threading.Lock()

    def __call__(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        name = event["toolCall"]["name"]
        if name not in self.gated and not name.startswith(MCP_PREFIX):
            return None
        with self._lock:  # one question at a time, and "a" seen by every waiting call
            if name in self.always:
                return None
            answer = self._answer(describe_for_confirmation(name, event["args"]))
            if answer == "a":
                self.always.add(name)
        if answer in ("y", "a"):
            return None
        return {"block": True, "reason": f"The user refused this {name} call, so it did not "
                                         f"run. Ask the user how to go on, or try another way."}

    def reset_always(self) -> List[str]:
        """Ask about every call again; returns the tools that were always allowed."""
        with self._lock:
            names, self.always = sorted(self.always), set()
        return names

    def _answer(self, description: str) -> str:
        try:
            reply = self.ask(f"{for_terminal(description)}\nRun it? [y]es, [n]o, [a]lways: ")
        except (EOFError, OSError):  # the input is gone: that is a no
            return ""
        return (reply or "").strip().lower()[:1]


def always_allowed_text(gate: Optional[ConfirmGate]) -> str:
    """The footer's part about --confirm: "always allowed: bash, write", or "" when
    every call is still asked about (or there is no gate)."""
    if gate is None or not gate.always:
        return ""
    return "always allowed: " + ", ".join(sorted(gate.always))


def describe_for_confirmation(name: str, args: Dict[str, Any]) -> str:
    """What the user must see to decide.

    Examples:
        bash  {"command": "make test"}
              -> "bash wants to run:\\n  make test"
        write {"path": "a.txt", "content": "hi\\n"}
              -> "write wants to write a.txt (3 bytes, 1 line):\\n  hi"
    """
    if name == "bash":
        return "bash wants to run:\n" + indent(args.get("command", "").split("\n"))
    if name == "write":
        content = args.get("content", "")
        lines = content.splitlines()
        size = len(content.encode("utf-8"))
        return (f"write wants to write {args.get('path')} ({size} bytes, "
                f"{len(lines)} line{'' if len(lines) == 1 else 's'}):\n" + indent(lines))
    if name == "edit":
        diff = []
        for change in args.get("edits") or []:
            shown, _ = generate_diff(change.get("oldText", ""), change.get("newText", ""))
            diff += shown.split("\n")
        return f"edit wants to change {args.get('path')}:\n" + indent(diff)
    shown = json.dumps(args, ensure_ascii=False, indent=2).split("\n")
    return f"{name} wants to run with:\n" + indent(shown)


def indent(lines: List[str]) -> str:
    """At most SHOWN_LINES lines, indented, with a count of the rest."""
    shown = [f"  {line}" for line in lines[:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        shown.append(f"  ... ({len(lines) - SHOWN_LINES} more lines)")
    return "\n".join(shown)


def compose_before_hooks(extension_hook: Optional[Hook], confirm_gate: Optional[Hook],
                         report: Callable[[str], None] = print_error) -> Optional[Hook]:
    """One before_tool_call for the Agent: the extensions' hook, then the confirmation,
    which sees the final arguments. Either may be None; both None gives None. A hook
    that raises blocks the call and is reported (see extensions.chain_before)."""
    hooks = [(source, hook) for source, hook in (("extensions", extension_hook),
                                                  ("--confirm", confirm_gate)) if hook]
    if not hooks:
        return None
    return lambda event: chain_before(hooks, event, report)


def terminal_asker(stdin: Optional[TextIO] = None, tty_path: str = "/dev/tty") -> Ask:
    """An ask function for the terminal: stdin when it is one, else /dev/tty (stdin may
    be a pipe carrying the prompt). End of input reads as "" (no)."""
    stdin = stdin or sys.stdin

    def ask(question: str) -> str:
        if stdin.isatty():
            sys.stderr.write(question)
            sys.stderr.flush()
            return stdin.readline()
        # Unbuffered bytes: a terminal cannot seek, which text mode "r+" would need.
        with open(tty_path, "rb+", buffering=0) as tty:
            tty.write(question.encode("utf-8"))
            return tty.readline().decode("utf-8", errors="replace")
    return ask


def no_terminal_available(stdin: Optional[TextIO] = None, tty_path: str = "/dev/tty") -> bool:
    """True when there is nobody to ask (no terminal on stdin, no /dev/tty): `--confirm`
    is then a usage error before anything runs."""
    if (stdin or sys.stdin).isatty():
        return False
    try:
        os.close(os.open(tty_path, os.O_RDWR))
        return False
    except OSError:
        return True
