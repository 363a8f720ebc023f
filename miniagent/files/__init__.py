"""Files: reading what others may have planted, and keeping secrets out of what we write.

Read in this order: `safeopen.py` (regular files only, bounded), `redaction.py` (the API
key kept out of stderr and every file we write).
"""
