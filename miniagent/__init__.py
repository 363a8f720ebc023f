"""miniagent: a minimal coding agent, written to be read.

A coding agent is a loop around a stateless model: keep the message list, call the
model, run the tools it asks for, append the results, repeat until it answers without
tools. Read the package in this order, bottom layer first:

  messages.py            the data: content blocks, the three message roles, usage
  events.py              the event bus every front end subscribes to
  sse.py                 Server-Sent Events: how streamed replies arrive over HTTP
  jsonpartial.py         making sense of half-received JSON (live tool arguments)
  httperrors.py          a failed HTTP exchange as one readable line
  retry.py               talking HTTP to a model server, and when to try again
  models.py              the model registry (+ models.json, your ~/.miniagent/models.json)
  choose.py              choosing the provider, model and key for a run
  providers/__init__.py  one stream() for every API; the never-raise contract
  providers/scripted.py  an offline model that replays a script (demo, tests)
  providers/replay.py    cleaning the history before it is sent again
  providers/builder.py   assembling a streamed reply; the never-raise wrapper
  providers/compat.py    server quirks as a table of flags
  providers/openai.py    OpenAI Chat Completions and every compatible server
  providers/anthropic.py Anthropic Messages
  tools/__init__.py      the Tool contract, argument validation, the registry
  tools/truncate.py      keeping tool output within 2000 lines / 50 KB
  tools/paths.py         resolving paths; the per-file lock
  tools/read.py bash.py  the default tools: read, bash, edit (+ diff.py), write
    edit.py write.py
  tools/walk.py          walking a tree the way git sees it (.gitignore, globs)
  tools/grep.py find.py  the opt-in search tools
    ls.py
  loop.py                the two-level agent loop
  agent.py               the Agent: state, worker thread, queues, abort
  prompt.py              the system prompt
  harness.py             automatic retry around the Agent
  render.py              print and JSON front ends
  cli.py                 the command line

Imports point down only: tools and providers never import each other or the core.
"""

__version__ = "0.1.0"
