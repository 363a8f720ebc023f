"""Compaction: keeping a long conversation inside the model's window.

Read in this order: `estimate.py` (token estimates and when to compact: every run
loads it), `compaction.py` (the cut point, what to summarize, the call: loaded only
when a compaction is due), `summarize.py` (the summarizer's prompts, its input, the files touched),
`branch_summary.py` (summarizing a branch the user leaves with /tree), `overhead.py`
(the system prompt and tools every request carries, and a window too small for them).
"""
