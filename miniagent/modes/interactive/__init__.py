"""The interactive terminal: a line-based REPL over the harness.

Read in this order: `interactive_mode.py` (the REPL: prompts, steering, Ctrl-C),
`liveview.py` (the live view of a run), `slash.py` (slash commands), `slash_session.py`
(the session commands: /compact, /tree, /fork ...), `questions.py` (what it asks:
--confirm, trusting a project), `lineinput.py` (reading a line: readline, history).
"""
