"""The harness: what turns an Agent into something you can leave running.

Read in this order: `harness.py` (the Harness: retries, the session file, compaction,
the run limits, around the Agent), `records.py` (what the session records of a run's
setup: model, thinking level, system prompt and tools), `worker.py` (the one thread a
run gets, its abort Event, its wait), `reply_retry.py` (which failed model replies
deserve another try), `limits.py` (--max-turns and --max-cost).
"""
