"""The harness: what turns an Agent into something you can leave running.

Read in this order: `harness.py` (the Harness: retries, the session file, compaction,
the run limits, around the Agent), `records.py` (what the session records of a run's
setup: model, thinking level, system prompt and tools), `worker.py` (the one thread a
run gets, its abort Event, its wait), `reply_retry.py` (the one retry layer: which failed
replies are tried again, after how long), `limits.py` (--max-turns and --max-cost),
`lifecycle.py` (agent_end's willRetry and agent_settled: when a run is over), `moves.py`
(new, switch, fork, clone, the tree).
"""
