"""Sessions: the conversation as an append-only JSONL tree, pi's file format.

Read in this order: `tree.py` (the Session: entries with id/parentId, branches, the
API the harness uses), `rebuild.py` (the model's messages rebuilt from one branch, pi
1.6's context edits applied), `system_entry.py` (what a session told its model: pi
1.6's system entries, replayed and patched), `convert.py` (session-only message kinds
turned into wire messages), `store.py` (where session files live, listing and finding
them), `file.py` (whole-line appends, torn lines, a full disk), `ids.py` (UUIDv7 ids,
shortest unique prefixes), `migrate.py` (pi's older formats, in memory), `check.py`
(the known entry shapes, checked on load), `stats.py` (prompts, tool calls, tokens and
cost).
"""
