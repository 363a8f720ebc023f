"""Front ends: who talks to the user. Each is a different subscriber to the same events.

Read in this order: `print_mode.py` (print and JSON modes, exit statuses), `render.py`
(the print and JSON subscribers), `interactive/` (the REPL), `rpc/` (JSON commands on
stdin, events on stdout). Shared by them: `attach.py` (@path attachments), `usershell.py`
(!cmd), `picker.py` (a numbered list to choose from), `confirm.py` (--confirm),
`output.py` (stdout and stderr that may be gone), `terminal.py` (control codes,
NO_COLOR, widths).
"""
