"""The rpc mode: a program drives the agent with JSON lines on stdin, events on stdout.

Read in this order: `rpc_mode.py` (the reader, the writer, one response per command),
`handlers.py` (the commands, one method each).
"""
