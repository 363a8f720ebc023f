"""The core: a whole coding agent that imports nothing else of miniagent.

A coding agent is a loop around a stateless model: keep the message list, call the
model, run the tools it asks for, append the results, repeat until it answers without
tools. This folder is that idea and nothing more, in plain Python (the standard library
and `requests`), small enough to read in an afternoon and run alone:

    python -m miniagent.core --demo                      # offline, a scripted model
    python -m miniagent.core --base-url URL --model M "fix the test"

Read it in this order:

    hour 1, the loop and its data:  messages.py events.py loop.py toolcalls.py agent.py
                                    tools.py (the Tool contract) scripted.py
    hour 2, tools and the demo:     read.py bash.py edit.py write.py coerce.py __main__.py
    hour 3, a real model:           provider.py sse.py assembly.py openai.py

The product (the rest of miniagent/) plugs in through named seams: where it needs more
than the plain core (safe file opening, BOM and CRLF, fuzzy edit matching, process
groups, truncation with a saved copy, the hardened HTTP transport, compat quirks,
partial-JSON repair, history hygiene), a core function takes it as a small parameter
with a plain default, and the product passes the hardened piece. docs/decisions.md
(D29) names each seam; tests/core/test_core_alone.py holds the imports and the line
budgets (2,800 lines in all, 1,100 for the first hour).

Left out: everything that is not the idea (sessions, compaction, retries, trust,
extensions, the terminal UI): the folders around this one.
"""
