"""Server-Sent Events: how a model server streams its reply, decoded from raw bytes.

Both wire protocols we speak (OpenAI Chat Completions and Anthropic Messages) stream a
reply as Server-Sent Events (SSE, WHATWG HTML section 9.2): lines of `name: value`
fields, and a blank line ends one event:

    event: content_block_delta                  <- the event's type (default "message")
    data: {"type":"content_block_delta",...}    <- the payload; several data lines join with "\\n"
                                                <- blank line: dispatch the event
    : keep-alive                                <- a comment, ignored

Worked example: these bytes make two events. The comment dispatches nothing, and the
last line never got its blank line, so at the end it is dropped (pending, not an event):

    >>> body = b'data: {"a":1}\\n\\n: ping\\n\\nevent: done\\ndata: x\\ndata: y\\r\\n\\r\\ndata: lost'
    >>> for event in iter_sse([body]):
    ...     print(event)
    SSEEvent(event='message', data='{"a":1}', id='', retry=None)
    SSEEvent(event='done', data='x\\ny', id='', retry=None)

What a quick `split(b"\\n\\n")` gets wrong, and this decoder gets right:

- A line ends with CRLF, a lone LF or a lone CR, mixed freely. A chunk that ends in CR
  ends its line there, and one leading LF of the next chunk is swallowed: a CR|LF split
  across two chunks must not make a phantom blank line.
- A chunk can cut a UTF-8 character in half: each whole line is decoded on its own.
- One byte-order mark at the very start is stripped; `data:x` and `data: x` both mean
  "x"; a block without a data line dispatches nothing; the last `id` persists.

`feed()` takes whatever bytes arrived and returns the events they completed; each chunk
is split into lines once, and only an unfinished last line is carried over.

Left out: reconnection (`retry` is recorded, unused: the agent retries a dropped stream
from scratch) and the payload's meaning (`[DONE]`, JSON, event names: the providers').
"""

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional

BOM = "\ufeff"


@dataclass
class SSEEvent:
    """One dispatched event."""

    event: str = "message"  # the block's last `event:` field, or "message"
    data: str = ""  # the block's `data:` lines joined with "\\n"
    id: str = ""  # the last event id seen so far in the stream
    retry: Optional[int] = None  # the last reconnection time (ms) the server asked for


class SSEDecoder:
    """Turns a byte stream, fed in arbitrary chunks, into SSEEvents.

    Example, the same event fed one chunk at a time:

        >>> decoder = SSEDecoder()
        >>> decoder.feed(b"data: a\\r")  # the line "data: a" ended at the CR
        []
        >>> decoder.feed(b"\\ndata: b\\r\\n\\r\\n")  # the leading LF completed the CRLF
        [SSEEvent(event='message', data='a\\nb', id='', retry=None)]
        >>> decoder.close()
        []
    """

    def __init__(self) -> None:
        self._partial_line = bytearray()  # bytes of the line still waiting for its end
        self._skip_lf = False  # the last chunk ended in CR: a leading LF belongs to it
        self._at_stream_start = True  # the BOM may only appear before the first line
        self._data_lines: List[str] = []  # the event being assembled, reset at dispatch
        self._event_type = ""
        self._last_id = ""  # stream-wide: kept across events
        self._retry: Optional[int] = None

    def feed(self, chunk: bytes) -> List[SSEEvent]:
        """Consume the next bytes of the body; return the events they completed."""
        if not chunk:
            return []
        if self._skip_lf and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._skip_lf = chunk.endswith(b"\r")
        events = []
        # bytes.splitlines knows exactly SSE's three line ends (CRLF, LF, CR) and runs
        # in C; keepends=True tells us whether the last piece is finished.
        for piece in chunk.splitlines(keepends=True):
            if not piece.endswith((b"\n", b"\r")):
                self._partial_line += piece  # only the last piece can be unfinished
                break
            event = self._interpret(self._complete_line(piece.rstrip(b"\r\n")))
            if event is not None:
                events.append(event)
        return events

    def close(self) -> List[SSEEvent]:
        """End of stream. Whatever was not closed by a blank line is discarded (an
        unfinished line, an event without its blank line), so this returns []."""
        self._partial_line.clear()
        self._data_lines, self._event_type = [], ""
        return []

    def _complete_line(self, line_end: bytes) -> str:
        """Join the carried-over start of the line to its end and decode it. Decoding
        whole lines is what keeps a character cut between two chunks intact."""
        if self._partial_line:  # the line began in an earlier chunk (most do not: no copy)
            line_end = bytes(self._partial_line) + line_end
            self._partial_line.clear()
        line = line_end.decode("utf-8", errors="replace")
        if self._at_stream_start:
            self._at_stream_start = False
            line = line.removeprefix(BOM)
        return line

    def _interpret(self, line: str) -> Optional[SSEEvent]:
        """Apply one line to the event being assembled (WHATWG 9.2.6)."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None  # comment, e.g. ": keep-alive" or ": OPENROUTER PROCESSING"
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data_lines.append(value)
        elif name == "event":
            self._event_type = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        # Any other field name is ignored, as the spec requires.
        return None

    def _dispatch(self) -> Optional[SSEEvent]:
        """A blank line: emit the assembled event, if it has any data line."""
        data_lines, event_type = self._data_lines, self._event_type
        self._data_lines, self._event_type = [], ""
        if not data_lines:
            return None
        return SSEEvent(event=event_type or "message", data="\n".join(data_lines),
                        id=self._last_id, retry=self._retry)


def iter_sse(chunks: Iterable[bytes]) -> Iterator[SSEEvent]:
    """Decode a whole body given as byte chunks: [b"data: h", b"i\\n\\n"] -> SSEEvent(data="hi")."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()
