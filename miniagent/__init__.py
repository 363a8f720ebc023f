"""miniagent: a minimal coding agent, written to be read.

A coding agent is a loop around a stateless model: keep the message list, call the
model, run the tools it asks for, append the results, repeat until it answers without
tools. Everything else (sessions, compaction, retries, trust) grows around that list.

The afternoon path is the spine, top-down; nothing else is needed to see the idea:

    core/messages.py -> core/loop.py -> core/toolcalls.py -> core/agent.py
    -> core/events.py -> core/tools.py -> core/read.py -> core/bash.py
    -> core/edit.py -> core/write.py -> core/provider.py -> core/scripted.py
    -> core/sse.py -> core/assembly.py -> core/openai.py -> cli.py

The demo (`miniagent --demo`) runs through all of them but core/sse.py, assembly.py and
openai.py, which a real server adds (`--base-url` with any local one). Around the spine,
each feature is a folder whose `__init__.py` says what it holds and in which order to
read it: harness/, session/, compaction/, project/, mcp/, modes/ (interactive/, rpc/),
subcommands/, evals/ (`miniagent eval`: the agent measured on a suite of tasks), then
the hardening (tools/hardening/, the providers' guard, history and compat) and the
plumbing (http/, models/, files/). AGENTS.md holds the one map of every file, with what
it teaches.

Imports point down only (front ends -> harness -> core -> tools, providers -> plumbing
-> data): tools and providers never import each other or the core.
"""

__version__ = "0.1.0"

# The library: what a program needs to embed an agent (see the README, "Embedding
# miniagent"), each name and the module that defines it. They are imported when first
# used (PEP 562's module __getattr__), so `miniagent --version` does not pay for the
# harness, and none of them imports the HTTP library: a provider does, on the first
# request it makes.
_EXPORTS = {"Agent": "agent", "Harness": "harness.harness", "Session": "session.tree",
            "Model": "core.provider",
            "resolve": "models.choose", "Resolved": "models.choose", "create_tools": "tools",
            "Tool": "tools", "ToolError": "tools", "text_result": "tools",
            "scripted_model": "core.scripted", "parse_script": "providers",
            "load_script": "providers", "text_of": "core.messages"}
__all__ = list(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'miniagent' has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
