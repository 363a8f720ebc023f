"""The tools' hardening: what lets seven short tools survive real files and processes.

Read after the tools themselves (the core's plain read, bash, edit and write take these
pieces through their seams: core/read.py and its siblings): `truncate.py` (output
within 2000 lines / 50 KB), `paths.py` (resolving paths, refusing pipes and devices),
`lines.py` (a window of lines from a huge file), `binary.py`, `fuzzy.py` and
`edit_args.py` (edit's forgiving matching and argument shapes), `diff.py`, `walk.py` (a
tree as git sees it), `process.py` (a child process: output pump, process groups),
`reaper.py` (nothing the agent started outlives it), `spawned.py` (a command left
running on purpose: a background job), `regex_worker.py` and
`regex_child.py` (grep's matching in a child that can be killed).
"""
