"""HTTP plumbing under the providers: bytes in, events and failures out.

Read in this order: `sse.py` (Server-Sent Events: how streamed replies arrive),
`transport.py` (HTTP whose reads an abort can interrupt, sent once), `classify.py` (is a
failure worth repeating: the verdict the harness's retry reads), `errors.py` (a failed
HTTP exchange as one readable line).
"""
