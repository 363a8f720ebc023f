"""The rpc mode: a program drives the agent with JSON lines on stdin, events on stdout.

Read in this order: `rpc_mode.py` (the reader, the writer, one response per command),
`handlers.py` (the commands, one method each), which takes the knobs from
`commands_model.py` and the session commands from `commands_session.py`; `fields.py`
(a command's fields, the model object) and `confirm_ui.py` (--confirm as pi's
extension UI confirm dialog).
"""
