"""miniagent: a minimal coding agent, written to be read.

A coding agent is a loop around a stateless model: keep the message list, call the
model, run the tools it asks for, append the results, repeat until it answers without
tools. Everything else (sessions, compaction, retries, trust) grows around that list.

The afternoon path: the spine, top-down. Read these in order; nothing else is needed to
see the idea. The demo (`miniagent --demo`) runs through all of them but sse.py,
builder.py and openai.py, which a real server adds (`--base-url` with any local one).

  `messages.py` (357 lines)              the data: blocks, the three roles, usage with cost
  `loop.py` (189 lines)                  the heart: call the model, run the tools, repeat
  `toolcalls.py` (237 lines)             running one reply's tool calls, in order
  `agent.py` (226 lines)                 the loop plus state, a worker thread, queues, abort
  `events.py` (82 lines)                 the event bus every front end subscribes to
  `tools/__init__.py` (167 lines)        the Tool contract, argument validation, the registry
  `tools/read.py` (193 lines)            read a file (text within limits, images as images)
  `tools/bash.py` (132 lines)            run a shell command, keep the tail of its output
  `tools/edit.py` (204 lines)            replace exact text, each match unique
  `tools/write.py` (69 lines)            create or overwrite a file
  `providers/__init__.py` (93 lines)     one stream() for every API; the never-raise contract
  `providers/scripted.py` (205 lines)    an offline model that replays a script
  `sse.py` (176 lines)                   Server-Sent Events: how streamed replies arrive
  `providers/builder.py` (220 lines)     assembling a streamed reply, delta by delta
  `providers/openai.py` (368 lines)      OpenAI Chat Completions and every compatible server
  `cli.py` (235 lines)                   the command line: flags, then the right front end

Built on the spine: the features, each a file (read the ones you need).

  `harness.py` (365 lines)               retries, the session file, compaction around the Agent
  `autoretry.py` (65 lines)              which failed replies deserve another try
  `limits.py` (106 lines)                --max-turns and --max-cost
  `session.py` (391 lines)               the conversation as an append-only JSONL tree
  `sessioncontext.py` (142 lines)        the model's context rebuilt from a branch
  `sessionstore.py` (394 lines)          the store interface and its JSONL implementation
  `compaction.py` (385 lines)            token estimates, the cut point, when to summarise
  `summarize.py` (297 lines)             the summariser's prompts, input and file lists
  `branch_summary.py` (125 lines)        summarising a branch the user leaves
  `context.py` (132 lines)               session message kinds turned into wire messages
  `window.py` (129 lines)                asking a local server what window it serves
  `prompt.py` (209 lines)                the system prompt, AGENTS.md, skills, date last
  `skills.py` (212 lines)                SKILL.md files and /skill:name
  `settings.py` (153 lines)              settings.json, global and per project
  `trust.py` (119 lines)                 trusted directories (trust.json)
  `extensions.py` (271 lines)            Python extensions: tools, hooks, commands
  `confirm.py` (151 lines)               --confirm: asking before bash, edit, write
  `project.py` (118 lines)               trust first, then what a project may bring
  `assemble.py` (250 lines)              from flags to a ready harness
  `oneshot.py` (151 lines)               print and JSON modes, exit statuses
  `interactive.py` (400 lines)           the REPL
  `lineinput.py` (82 lines)              reading a line: readline, history, short answers
  `questions.py` (101 lines)             what the REPL asks: --confirm, trusting a project
  `slash.py` (214 lines)                 the REPL's slash commands
  `slash_session.py` (331 lines)         the REPL's session commands: /compact, /tree, /fork ...
  `liveview.py` (227 lines)              the terminal's live view of a run
  `render.py` (236 lines)                the print and JSON subscribers, folding, footers
  `attach.py` (119 lines)                @path attachments
  `usershell.py` (78 lines)              !cmd: the user's own shell commands, in the context
  `rpc.py` (370 lines)                   JSON commands on stdin, events on stdout
  `rpccommands.py` (288 lines)           the rpc mode's commands, one method each
  `commands.py` (128 lines)              subcommands: sessions, stats, export, script
  `stats.py` (171 lines)                 prompts, tool calls, tokens and cost of sessions
  `export.py` (353 lines)                a session as one self-contained HTML page
  `exportstyle.py` (63 lines)            the HTML page's stylesheet
  `replay_script.py` (160 lines)         a recorded session as a script to replay offline
  `search.py` (269 lines)                full-text search across sessions
  `searchindex.py` (357 lines)           the SQLite FTS5 index beside the session files
  `providers/anthropic.py` (331 lines)   Anthropic Messages
  `tools/grep.py` (165 lines)            search file contents (pure Python)
  `tools/find.py` (77 lines)             find files by glob
  `tools/ls.py` (88 lines)               list a directory
  `models.py` (318 lines)                the model registry and your models.json
  `choose.py` (385 lines)                choosing provider, model and key for a run
  `examples/gate_rm_rf.py` (60 lines)    an extension: block rm -rf outside the project
  `examples/__init__.py` (5 lines)       the examples package
  `__init__.py` (135 lines)              this index
  `__main__.py` (38 lines)                python -m miniagent

The hardening, for the second visit: what makes the spine survive the real world.

  `tools/process.py` (269 lines)         a child process: output pump, process groups, kill
  `tools/lines.py` (142 lines)           reading a window of lines from a huge file
  `tools/fuzzy.py` (139 lines)           edit's normalised matching, mapped back to offsets
  `tools/edit_args.py` (45 lines)        the argument shapes models send edit instead
  `tools/coerce.py` (91 lines)           "5" -> 5: forgiving argument coercion
  `tools/truncate.py` (233 lines)        keeping output within 2000 lines / 50 KB
  `tools/paths.py` (202 lines)           resolving paths; refusing pipes and devices
  `tools/filelock.py` (41 lines)         one lock per file, so parallel edits both land
  `tools/binary.py` (28 lines)           telling a binary file from text
  `tools/walk.py` (219 lines)            walking a tree as git sees it (.gitignore)
  `tools/diff.py` (129 lines)            the line-numbered diff edit returns
  `providers/guard.py` (125 lines)       the never-raise wrapper; HTML pages, plain JSON
  `providers/replay.py` (184 lines)      cleaning the history before it is sent again
  `providers/compat.py` (81 lines)       server quirks as a table of flags
  `jsonpartial.py` (202 lines)           half-received JSON, for live tool arguments
  `transport.py` (240 lines)             HTTP with reads an abort can interrupt
  `retry.py` (209 lines)                 when the HTTP layer tries a request again
  `httperrors.py` (165 lines)            a failed HTTP exchange as one readable line
  `sessionfile.py` (260 lines)           whole-line appends, torn lines, a full disk
  `sessionmigrate.py` (75 lines)         pi's older session formats, migrated in memory
  `wrappers.py` (47 lines)                our tags around foreign text, and why it cannot close them
  `redaction.py` (137 lines)               keeping the API key out of everything we write
  `safeopen.py` (60 lines)                opening a file from elsewhere: regular files only, bounded
  `entrycheck.py` (166 lines)              the known session entry shapes, checked on load
  `exportfile.py` (76 lines)              where export and script write: no links, renamed into place
  `tools/reaper.py` (167 lines)            nothing the agent started outlives it: trees, subreaper, sweep
  `tools/regex_worker.py` (183 lines)      grep's matching in a child process that can be killed
  `tools/regex_child.py` (139 lines)       the matcher child: lines of the files it is handed
  `terminal.py` (141 lines)              control codes, NO_COLOR, TERM=dumb, widths
  `output.py` (110 lines)                 stdout and stderr that may be gone

Imports point down only (front ends -> harness -> core -> tools, providers -> plumbing
-> data): tools and providers never import each other or the core.
"""

__version__ = "0.1.0"

# The library: what a program needs to embed an agent (see the README, "Embedding
# miniagent"), each name and the module that defines it. They are imported when first
# used (PEP 562's module __getattr__), so `miniagent --version` does not pay for the
# harness, and none of them imports the HTTP library: a provider does, on the first
# request it makes.
_EXPORTS = {"Agent": "agent", "Harness": "harness", "Session": "session", "Model": "models",
            "resolve": "choose", "Resolved": "choose", "create_tools": "tools",
            "Tool": "tools", "ToolError": "tools", "text_result": "tools",
            "scripted_model": "providers.scripted", "parse_script": "providers.scripted",
            "load_script": "providers.scripted", "text_of": "messages"}
__all__ = list(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'miniagent' has no attribute {name!r}")
    from importlib import import_module
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
