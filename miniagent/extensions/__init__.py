"""The bundled extensions: what every big agent has, built on the extension API alone.

pi's rule for a feature is "if it does not belong in the core, it should be an
extension". These ship inside miniagent and load as any extension file does (their
setup(api)), by name instead of by path:

    miniagent -e background          a bundled one, by its name (no "/", no ".py")
    miniagent --no-extension plan    one that is on by default, turned off

Each is one module (or a small package) that opens with its lesson: what the mechanism
is, how the API carries it, what it leaves out. They reach the agent only through
`api` (project/extension_loader.py) and `api.ctx` (project/extension_context.py);
they import the standard library, the Tool contract (core/tools.py) and each other,
nothing else of ours (tests/extensions/test_bundled.py checks).

Left out: installing extensions from elsewhere (packages, git); a file is the unit.
"""

BUNDLED = {
    "checkpoints": "/undo puts back the files the last prompt changed; /tree and /fork can too",
    "plan": "plan mode: read-only tools, the model answers with a plan (/plan, Shift+Tab, --plan)",
    "background": "background jobs: bash's background: true, job_output, job_stop, /ps, /stop",
    "todo": "a todo_write tool: the model keeps its plan as a list, shown while it works",
    "subagents": "a task tool: a job handed to a sub-agent (miniagent as a child process)",
}
"""name -> one line saying what it adds (for /extensions and rpc's get_commands)."""

ON_BY_DEFAULT = ("checkpoints", "plan")
"""The names loaded unless --no-extension NAME turns them off: those that add no tool
to what the model sees (docs/decisions.md says why)."""


def listing(loaded: "list[str]") -> "list[str]":
    """The lines /extensions shows: each bundled extension, on or off, then the files.

    Example (loaded ["checkpoints", "/home/me/.miniagent/extensions/gate.py"]):
        bundled:
          checkpoints  on   keep each file before the agent changes it; /undo
          background   off  bash's background: true, /ps, /stop  (-e background)
        files:
          /home/me/.miniagent/extensions/gate.py
    """
    width = max((len(name) for name in BUNDLED), default=0)
    lines = ["bundled:"]
    for name, what in BUNDLED.items():
        state = "on " if name in loaded else "off"
        hint = "" if name in loaded else f"  (-e {name})"
        lines.append(f"  {name.ljust(width)}  {state}  {what}{hint}")
    files = [source for source in loaded if source not in BUNDLED]
    return lines + (["files:"] + [f"  {path}" for path in files] if files else [])
