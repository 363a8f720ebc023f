"""Benchmark rows for the providers: python tests/bench_providers.py (or via tests/bench.py).

- Assembly throughput: an OpenAI stream (text plus a large tool call, as the test
  server sends it: one small `data:` event per 8-character delta, cut into 8 KB
  network chunks) turned into a finished message from memory: SSE decoding, JSON per
  event, tool-call assembly and the event protocol. Yardstick: a bare
  `bytes.splitlines` pass over the same bytes, the least any line-based client does.
- Scaling (docs/decisions.md D2): one tool call whose arguments are 1 MB, then 2 MB, sent
  in 4-byte deltas. Assembly must be linear, so doubling the size should roughly
  double the time (ratio ~2); a client that re-parses the accumulated arguments on
  every delta would show ~4 or far worse.
(Start-up is measured in bench_startup.py.)
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_plumbing import best_of  # noqa: E402
from fake_server import PROTOCOLS, stream_pieces  # noqa: E402
from miniagent.core.provider import Model
from miniagent.providers.openai import stream_bytes  # noqa: E402

CHUNK = 8192
MODEL = Model("bench-model", "bench", "openai-completions", "http://127.0.0.1:1/v1")


def network_chunks(data: bytes):
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def assemble(chunks) -> dict:
    """Run the provider's parser over chunks from memory; the final message."""
    for event in stream_bytes(MODEL, chunks):
        last = event
    if last["type"] != "done":
        raise RuntimeError(f"bench stream failed: {last['error'].get('errorMessage')}")
    return last["message"]


def throughput_rows():
    content = "def handler(event):\n    return {'ok': True}\n" * 8000  # ~350 KB of file
    turn = {"content": [{"type": "text", "text": "Writing the file now. " * 2000},
                        {"type": "toolCall", "id": "call_1", "name": "write",
                         "arguments": {"path": "app.py", "content": content}}]}
    data = b"".join(stream_pieces(turn, {"model": "m"}, PROTOCOLS["/chat/completions"], {}))
    chunks = network_chunks(data)
    megabytes = len(data) / 1e6

    def split_lines():
        for chunk in chunks:
            chunk.splitlines()

    assemble_s = best_of(3, lambda: assemble(chunks))
    yardstick_s = best_of(3, split_lines)
    yield (f"OpenAI stream -> message (SSE+JSON+tools) {megabytes:.1f} MB",
           f"{megabytes / assemble_s:.1f} MB/s", f"bytes.splitlines {megabytes / yardstick_s:.0f} MB/s",
           f"{assemble_s / yardstick_s:.0f}x slower")


def tool_call_stream(argument_bytes: int) -> bytes:
    """A stream with one tool call whose argument JSON is about argument_bytes long,
    four bytes per delta (the compact chunk shape llama-server sends)."""
    text = json.dumps({"path": "big.txt", "content": "x" * argument_bytes})
    events = ['{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_big",'
              '"type":"function","function":{"name":"write","arguments":""}}]}}]}']
    for i in range(0, len(text), 4):
        fragment = json.dumps(text[i : i + 4])
        events.append('{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
                      f'"function":{{"arguments":{fragment}}}}}]}}}}]}}')
    events += ['{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}', "[DONE]"]
    return "".join(f"data: {event}\n\n" for event in events).encode()


def scaling_rows():
    timings = {}
    for megabytes in (1, 2):
        chunks = network_chunks(tool_call_stream(megabytes * 1_000_000))
        message = assemble(chunks)  # warm-up, and a check that it really assembled
        assert len(message["content"][0]["arguments"]["content"]) == megabytes * 1_000_000
        timings[megabytes] = best_of(2, lambda: assemble(chunks))
        yield (f"tool call, {megabytes} MB of arguments in 4-byte deltas", f"{timings[megabytes]:.2f} s",
               "", "")
    ratio = timings[2] / timings[1]
    yield ("scaling: time(2 MB) / time(1 MB)", f"{ratio:.2f}", "linear = 2.0", f"{ratio / 2:.2f}x of linear")


def rows():
    yield from throughput_rows()
    yield from scaling_rows()


if __name__ == "__main__":
    for figure, value, yardstick, ratio in rows():
        print(f"{figure:58} {value:>14}   {yardstick:<28} {ratio:>12}")
