"""miniagent: a minimal coding agent, written to be read.

A coding agent is a loop around a stateless model: keep the message list, call the
model, run the tools it asks for, append the results, repeat until it answers without
tools. Everything else (sessions, compaction, retries, trust) grows around that list.

core/ is that idea alone: a whole agent that imports nothing else of miniagent, runs by
itself (`python -m miniagent.core --demo`) and is read in three hours, top-down:

    core/messages.py -> core/events.py -> core/loop.py -> core/toolcalls.py
    -> core/agent.py -> core/tools.py -> core/scripted.py        (hour 1: the loop)
    -> core/read.py -> core/bash.py -> core/edit.py -> core/write.py
    -> core/coerce.py -> core/__main__.py                        (hour 2: tools, demo)
    -> core/provider.py -> core/sse.py -> core/assembly.py
    -> core/openai.py                                            (hour 3: a real model)

Hour 4 reads the features every big agent has, built as extensions on the public
extension API alone (extensions/: todo, plan, checkpoints, background, subagents).

The product grows around it and plugs its hardening in through named seams: a core
function takes the hardened piece as one parameter with a plain default (the tools'
file and process operations, the edit matcher, the transport, the argument parser;
docs/decisions.md D29). Each folder's `__init__.py` says what it holds and in which
order to read it: harness/, session/, compaction/, then project/, mcp/, modes/
(interactive/, rpc/), subcommands/, evals/, the hardened tools/ and providers/, and
http/, models/, files/, tui/. AGENTS.md holds the one map of every file.

Imports point down only (front ends -> extensions -> harness -> product -> core): core/ imports only
the standard library, `requests` and itself; tools/ and providers/ never import each
other.
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
            "scripted_model": "core.scripted", "parse_script": "providers.scripts",
            "load_script": "providers.scripts", "text_of": "core.messages"}
__all__ = list(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'miniagent' has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
