"""Benchmark rows for the plumbing: python tests/bench_plumbing.py (or via tests/bench.py).

- SSE decoding throughput on a realistic OpenAI stream (a few MB of small `data:`
  lines, fed in 8 KB network-sized chunks), against a bare `bytes.splitlines` pass
  over the same bytes: the least any line-based decoder must do.
- Abort latency at the HTTP layer: from `abort.set()` to `iter_body` raising while the
  test server stalls mid-body. Goal 0.2 s.
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fake_server import PROTOCOLS, FakeServer, stream_pieces  # noqa: E402
from miniagent.http.errors import Aborted  # noqa: E402
from miniagent.core.sse import SSEDecoder
from miniagent.http.transport import iter_body, post_stream  # noqa: E402

CHUNK = 8192
ABORT_GOAL = 0.2


def openai_stream_bytes(megabytes: float) -> bytes:
    """An OpenAI stream as the test server sends it: one chunk per 8-character delta."""
    text = "The quick brown fox jumps over the lazy dog. " * int(megabytes * 1000)
    turn = {"content": [{"type": "text", "text": text}]}
    pieces = stream_pieces(turn, {"model": "m"}, PROTOCOLS["/chat/completions"], {})
    return b"".join(pieces)


def best_of(runs, function) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def sse_rows():
    data = openai_stream_bytes(3)
    chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
    megabytes = len(data) / 1e6

    def decode():
        decoder = SSEDecoder()
        for chunk in chunks:
            decoder.feed(chunk)

    def split_lines():
        for chunk in chunks:
            chunk.splitlines()

    decoder_s, yardstick_s = best_of(3, decode), best_of(3, split_lines)
    yield (f"SSE decode, OpenAI stream {megabytes:.1f} MB", f"{megabytes / decoder_s:.0f} MB/s",
           f"bytes.splitlines {megabytes / yardstick_s:.0f} MB/s", f"{decoder_s / yardstick_s:.0f}x slower")


def abort_rows():
    turn = {"content": [{"type": "text", "text": "hello"}], "fault": {"stall_seconds": 60, "stall_after_bytes": 1}}
    with FakeServer([turn] * 5) as srv:
        latencies = [measure_abort(srv) for _ in range(5)]
    worst = max(latencies)
    yield ("HTTP abort latency, server stalled mid-body (worst of 5)", f"{worst * 1000:.1f} ms",
           f"goal {ABORT_GOAL * 1000:.0f} ms", f"{worst / ABORT_GOAL:.3f}x of goal")


def measure_abort(srv) -> float:
    abort = threading.Event()
    response = post_stream(srv.base_url + "/v1/chat/completions", {}, {}, abort)
    chunks = iter_body(response, abort)
    next(chunks)  # the body has started; the next read blocks on the stall
    set_at = []
    threading.Timer(0.1, lambda: (set_at.append(time.perf_counter()), abort.set())).start()
    try:
        for _ in chunks:
            pass
    except Aborted:
        return time.perf_counter() - set_at[0]
    raise RuntimeError("the stalled stream ended without the abort")


def rows():
    yield from sse_rows()
    yield from abort_rows()


if __name__ == "__main__":
    for row in rows():
        print("  ".join(row))
