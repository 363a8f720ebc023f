"""A second correct solution of EXERCISES.md step 1 (ex_sse): scan for the line ends
by hand, where the reference lets bytes.splitlines find them. Spliced into a copy of
the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    """Consume the next bytes of the body; return the events they completed."""
    if not chunk:
        return []
    if self._skip_lf and chunk[:1] == b"\n":
        chunk = chunk[1:]  # the "\n" of a "\r\n" that the last chunk cut in two
    self._skip_lf = chunk[-1:] == b"\r"
    events = []
    position = 0
    while position < len(chunk):
        ends = [found for found in (chunk.find(b"\r", position), chunk.find(b"\n", position))
                if found >= 0]
        if not ends:
            self._partial_line += chunk[position:]
            break
        end = min(ends)
        event = self._interpret(self._complete_line(chunk[position:end]))
        if event is not None:
            events.append(event)
        position = end + (2 if chunk[end:end + 2] == b"\r\n" else 1)
    return events
