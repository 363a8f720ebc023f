"""MCP: tools and resources from other programs, over the Model Context Protocol.

An MCP server is a separate program (a child process speaking JSON-RPC on its stdin
and stdout, or a web endpoint speaking streamable HTTP) that offers tools and
resources. This package connects to each configured server, learns what it offers and
turns its tools into ordinary miniagent Tools. Read `transport.py` (what carries the
messages), `jsonrpc.py` (questions matched to answers), `stdio.py` (the server as a
child process) and `client.py` (the MCP lifecycle: initialize, tools, resources).
"""
