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
}
"""name -> one line saying what it adds (for /extensions and rpc's get_commands)."""

ON_BY_DEFAULT = ("checkpoints",)
"""The names loaded unless --no-extension NAME turns them off: those that add no tool
to what the model sees (docs/decisions.md says why)."""
