"""Compaction: keeping a long conversation inside the model's window.

Read in this order: `compaction.py` (token estimates, the cut point, when to
summarise), `summarize.py` (the summariser's prompts, its input, the files touched),
`branch_summary.py` (summarising a branch the user leaves with /tree).
"""
