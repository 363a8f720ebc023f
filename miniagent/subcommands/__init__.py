"""Subcommands: what miniagent does besides running an agent: session files, MCP servers.

Read in this order: `dispatch.py` (sessions, stats, export, script, mcp: the first word
decides), `search.py` (full-text search across sessions), `search_index.py` (the SQLite
FTS5 index beside the files), `export.py` (a session as one HTML page), `markdown.py` (the
answers' Markdown as safe HTML), `export_details.py` (edits as diffs, the system prompt
and tools), `export_style.py` (its stylesheet), `export_file.py` (where a page is written: no links, renamed into
place), `script.py` (a recorded session as a script to replay offline), `mcp_command.py`
(`miniagent mcp list|add|remove`: MCP servers checked and written into mcp.json).
"""
