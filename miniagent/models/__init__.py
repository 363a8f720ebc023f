"""Models: which model a run talks to, and with which key.

Read in this order: `registry.py` (the built-in registry, models.json, your own
models.json), `choose.py` (provider, model and key for a run), `values.py` (how an `apiKey` or
header value is read: `$VAR`, `!command`, a literal), `served.py` (asking a server
which models it serves), `available.py` (the models a session can move to), `window.py` (asking a local server what context window it
serves), `window_cache.py` (its answer remembered in windows.json for a day), `usage.py`
(usage read back from files, summed, and the one guess of a size in tokens).
"""
