"""The interactive terminal: a REPL over the harness, on the terminal UI of tui/.

Read in this order: `interactive_mode.py` (the REPL: prompts, steering, Esc and Ctrl-C),
`view.py` (the run as lines: for the scrollback, and the live part), `tool_result.py`
(a finished tool call, folded, opened in place by Ctrl+O), `screen.py` (the
key loop: the live area with the editor at its bottom), `linemode.py` (the same on
TERM=dumb), `slash.py` (slash commands), `slash_session.py` (the session commands:
/compact, /tree, /fork ...), `questions.py` (what it asks: --confirm, trusting a
project), `completion.py` (what Tab completes), `notify.py` (the bell: done, or a
question waits) and `resume_hint.py` (the last line: how to come back).
"""
