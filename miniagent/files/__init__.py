"""Files: where miniagent keeps its own, reading what others may have planted, and
keeping secrets out of what we write.

Read in this order: `home.py` (the one folder miniagent keeps, and its layout),
`safeopen.py` (regular files only, bounded; the JSON config reader), `atomic.py`
(rewriting a file in place: written beside, renamed over), `redaction.py` (the API key
kept out of stderr and every file we write), `text.py` (one line for people, JSON for
files).
"""
