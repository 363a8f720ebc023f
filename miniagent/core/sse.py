"""Server-Sent Events: how a model server streams its reply, decoded from raw bytes.

Both wire protocols we speak (OpenAI Chat Completions and Anthropic Messages) send a
streamed reply as Server-Sent Events (SSE), a plain-text format from the WHATWG HTML
standard (section 9.2). The body is a sequence of lines; each line is a field
`name: value`, and a blank line ends one event:

    event: content_block_delta                  <- the event's type (default "message")
    data: {"type":"content_block_delta",...}    <- the payload; several data lines join with "\\n"
                                                <- blank line: dispatch the event
    : keep-alive                                <- a comment, ignored

Worked example. The bytes

    >>> body = b'data: {"a":1}\\n\\n: ping\\n\\nevent: done\\ndata: x\\ndata: y\\r\\n\\r\\ndata: lost'

decode to exactly two events,

    >>> for event in iter_sse([body]):
    ...     print(event)
    SSEEvent(event='message', data='{"a":1}', id='', retry=None)
    SSEEvent(event='done', data='x\\ny', id='', retry=None)

the comment block dispatches nothing, and the last line never got its blank line, so
at the end of the stream it is dropped (the spec's rule: an unterminated event is
pending data, not an event).

The details that a quick `split(b"\\n\\n")` gets wrong, and this decoder gets right:

- A line ends with CRLF, a lone LF or a lone CR, mixed freely in one stream. When a
  chunk ends in CR we cannot know yet whether an LF follows in the next chunk; we end
  the line at the CR and remember to swallow one leading LF of the next chunk, or a
  CR|LF split across two chunks would produce a phantom blank line.
- Network chunks can cut a multi-byte UTF-8 character in half, so we keep bytes until
  a whole line is there and decode each line on its own (bad bytes become U+FFFD).
- Exactly one byte-order mark (U+FEFF) at the very start of the stream is stripped.
- `data:x` and `data: x` both mean "x": one space after the colon is removed, and only
  one. A line without a colon is a field name with an empty value.
- A block with no data line (only `event:`, `id:`, `retry:` or comments) dispatches
  nothing. The last `id` persists across events, as the spec says.

The decoder is incremental: `feed()` takes whatever bytes arrived and returns the
events they completed. Its cost is linear in the input: each chunk is split into lines
once, and only the unfinished last line is carried over to the next chunk.

Left out: reconnection (`retry` is recorded but we never reconnect; a dropped model
stream is retried from scratch by the agent instead) and any meaning of the payload:
`[DONE]`, JSON and event names are the providers' business.
"""

from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional

BOM = "\ufeff"


@dataclass
class SSEEvent:
    """One dispatched event."""

    event: str = "message"
    """The event type: the last `event:` field of the block, or "message"."""
    data: str = ""
    """The `data:` lines of the block joined with "\\n"."""
    id: str = ""
    """The last event id seen so far in the stream (it persists across events)."""
    retry: Optional[int] = None
    """The last reconnection time in ms the server asked for, if any."""


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
        # The event being assembled, reset at each dispatch.
        self._data_lines: List[str] = []
        self._event_type = ""
        # Stream-wide state, kept across events.
        self._last_id = ""
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
        if self._partial_line:
            self._partial_line += line_end
            line_end = bytes(self._partial_line)
            self._partial_line.clear()
        line = line_end.decode("utf-8", errors="replace")
        if self._at_stream_start:
            self._at_stream_start = False
            if line.startswith(BOM):
                line = line[1:]
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
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
        # Any other field name is ignored, as the spec requires.
        return None

    def _dispatch(self) -> Optional[SSEEvent]:
        """A blank line: emit the assembled event, if it has any data line."""
        data_lines, event_type = self._data_lines, self._event_type
        self._data_lines, self._event_type = [], ""
        if not data_lines:
            return None
        return SSEEvent(
            event=event_type or "message",
            data="\n".join(data_lines),
            id=self._last_id,
            retry=self._retry,
        )


def iter_sse(chunks: Iterable[bytes]) -> Iterator[SSEEvent]:
    """Decode a whole body given as an iterable of byte chunks.

    Example: list(iter_sse([b"data: h", b"i\\n\\n"])) == [SSEEvent(data="hi")]
    """
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()
