"""MCP: tools from other programs, over the Model Context Protocol.

An MCP server is a program that offers tools (and resources: data it can read out) to
any agent that speaks the protocol: git, a database, a browser, an issue tracker. The
protocol is JSON-RPC 2.0, carried over the server's stdin and stdout (the server is our
child process) or over HTTP. This package is a small client of our own:

    mcp.json --config.py--> ServerConfig --servers.py--> one McpClient per server
                                                          |  (client.py, jsonrpc.py,
                                                          |   stdio.py or http.py)
                                                          v
    the model  <--tools.py--  mcp__server__tool Tools  <--  tools/list, tools/call

Read it in this order: `transport.py` (what carries the messages), `jsonrpc.py`
(answers matched to questions, in both directions), `stdio.py` (the server as a child
process), `http.py` and `http_stream.py` (the server as a web endpoint), `client.py`
(the handshake, the tools, the resources), then `config.py` (the file), `servers.py`
(every server of a run: connected in parallel, stopped at the end), `naming.py`,
`tools.py` and `results.py` (what the model sees of a server and of its answers).

The rest of miniagent meets MCP in three places: assemble.py starts the servers, the
harness offers their tools before each prompt, and `miniagent mcp` / `/mcp` show them.

Left out: OAuth sign-in, the legacy SSE transport, prompts, subscriptions, sampling,
roots and elicitation (the server asking our model or the user), and pi's codemode.
"""
