"""The SSE decoder against the WHATWG rules (the standard's own test vectors).

Every vector is run whole, cut at every byte offset, one byte at a time and in
random 1..7-byte chunks: the events must never depend on how the network chunked them.
"""

import random

import pytest

from core_helpers import FIXTURES
from miniagent.core.sse import SSEDecoder, SSEEvent, iter_sse

CAPTURES = FIXTURES / "llama-server"

X = [("message", "x")]
VECTORS = [
    (b"data: x\n\n", X),
    (b"data: x\r\n\r\n", X),
    (b"data: x\r\r", X),
    (b"data:x\n\n", X),
    (b"data:  x\n\n", [("message", " x")]),
    (b"data: a\ndata: b\n\n", [("message", "a\nb")]),
    (b"data\n\n", [("message", "")]),
    (b"data:\n\n", [("message", "")]),
    (b": comment\n\n", []),
    (b"event: ping\n\n", []),
    (b"id: 7\n\n", []),
    (b"retry: 10\n\n", []),
    (b'event: message_stop\ndata: {"type":"message_stop"}\n\n', [("message_stop", '{"type":"message_stop"}')]),
    (b"\xef\xbb\xbfdata: x\n\n", X),
    (b"data: x\n\ndata: y", X),
    (b"data: x\n\ndata: y\n", X),
    (b"data: a\r\ndata: b\r\n\r\n", [("message", "a\nb")]),
    # A lone CR ends a line; cut right after it, the next chunk starts a new line, and a
    # decoder that still waits for that CR's LF loses the LF that ends the event.
    (b"data: a\rdata: b\n\n", [("message", "a\nb")]),
    ("data: é\n\n".encode("utf-8"), [("message", "é")]),
    (b"foo: bar\ndata: x\n\n", X),
]


def decode(chunks):
    return [(event.event, event.data) for event in iter_sse(chunks)]


def random_chunks(data: bytes, rng: random.Random):
    chunks, i = [], 0
    while i < len(data):
        size = rng.randint(1, 7)
        chunks.append(data[i : i + size])
        i += size
    return chunks


@pytest.mark.parametrize("data, expected", VECTORS, ids=[repr(v[0]) for v in VECTORS])
@pytest.mark.ex_sse
def test_vector_whole_and_in_every_chunking(data, expected):
    assert decode([data]) == expected
    for cut in range(len(data) + 1):
        assert decode([data[:cut], data[cut:]]) == expected, f"cut at {cut}"
    assert decode([bytes([b]) for b in data]) == expected
    rng = random.Random(7)
    for _ in range(20):
        assert decode(random_chunks(data, rng)) == expected


@pytest.mark.ex_sse
def test_cr_and_lf_split_across_chunks_is_one_line_end():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\ndata: b\r\n\r\n") == [SSEEvent(data="a\nb")]


@pytest.mark.ex_sse
def test_an_empty_chunk_between_cr_and_lf_changes_nothing():
    assert decode([b"data: a\r", b"", b"\ndata: b\r\n\r\n"]) == [("message", "a\nb")]


@pytest.mark.ex_sse
def test_cr_lf_and_crlf_mixed_in_one_stream():
    assert decode([b"data: a\rdata: b\ndata: c\r\n\r\ndata: d\r\r"]) == [("message", "a\nb\nc"), ("message", "d")]


@pytest.mark.ex_sse
def test_only_the_first_bom_is_stripped():
    # A second BOM is part of the first field name, "\ufeffdata", which is unknown.
    assert decode([b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n"]) == [("message", "y")]
    # A BOM later in the stream is ordinary data.
    assert decode([b"data: x\n\ndata: \xef\xbb\xbfy\n\n"]) == [("message", "x"), ("message", "\ufeffy")]


@pytest.mark.ex_sse
def test_multibyte_character_cut_anywhere_survives():
    data = "data: ünï 😀 文字\n\n".encode("utf-8")
    for cut in range(len(data) + 1):
        assert decode([data[:cut], data[cut:]]) == [("message", "ünï 😀 文字")]


@pytest.mark.ex_sse
def test_invalid_utf8_becomes_replacement_character():
    assert decode([b"data: a\xffb\n\n"]) == [("message", "a\ufffdb")]


@pytest.mark.ex_sse
def test_only_one_space_after_the_colon_is_removed():
    assert decode([b"data:   three\n\n"]) == [("message", "  three")]


@pytest.mark.ex_sse
def test_event_type_resets_after_dispatch_but_id_persists():
    events = list(iter_sse([b"event: a\nid: 1\ndata: x\n\ndata: y\n\nid:\ndata: z\n\n"]))
    assert [(e.event, e.data, e.id) for e in events] == [("a", "x", "1"), ("message", "y", "1"), ("message", "z", "")]


@pytest.mark.ex_sse
def test_blocks_without_data_dispatch_nothing_even_after_an_id():
    # openai-python dispatches these once an id was seen, and then json.loads("") fails.
    data = b"id: 1\ndata: x\n\n: ping\n\nid: 2\n\nretry: 5\n\nevent: ping\n\n"
    assert decode([data]) == [("message", "x")]


@pytest.mark.ex_sse
def test_id_with_nul_is_ignored_and_retry_needs_digits():
    events = list(iter_sse([b"id: 5\nretry: 250\ndata: a\n\nid: 6\x007\nretry: 1s\ndata: b\n\n"]))
    assert [(e.id, e.retry) for e in events] == [("5", 250), ("5", 250)]


@pytest.mark.ex_sse
def test_comment_lines_are_ignored_inside_an_event():
    assert decode([b": OPENROUTER PROCESSING\n\ndata: a\n: keep-alive\ndata: b\n\n"]) == [("message", "a\nb")]


@pytest.mark.ex_sse
def test_close_drops_the_unterminated_event():
    decoder = SSEDecoder()
    assert decoder.feed(b"data: x\n\ndata: y\n") == [SSEEvent(data="x")]
    assert decoder.close() == []


@pytest.mark.ex_sse
def test_a_long_line_in_tiny_chunks():
    payload = "z" * 100_000
    data = f"data: {payload}\n\n".encode()
    assert decode(data[i : i + 3] for i in range(0, len(data), 3)) == [("message", payload)]


@pytest.mark.ex_sse
def test_real_llama_server_capture_in_random_chunks():
    data = (CAPTURES / "capture-stream-tool-required.txt").read_bytes()
    whole = decode([data])
    assert whole[-1] == ("message", "[DONE]")
    assert len(whole) > 5
    assert decode(random_chunks(data, random.Random(1))) == whole
