"""Compaction: keeping a long conversation inside the model's window.

Read in this order: `compaction.py` (token estimates, the cut point, when to
summarize), `summarize.py` (the summarizer's prompts, its input, the files touched),
`branch_summary.py` (summarizing a branch the user leaves with /tree), `overhead.py`
(the system prompt and tools every request carries, and a window too small for them).
"""
