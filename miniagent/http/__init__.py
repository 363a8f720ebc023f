"""HTTP plumbing under the providers: bytes in, events and failures out.

Read in this order: `sse.py` (Server-Sent Events: how streamed replies arrive),
`transport.py` (HTTP whose reads an abort can interrupt), `retry.py` (when a request is
tried again), `errors.py` (a failed HTTP exchange as one readable line).
"""
