"""A wrong solution of EXERCISES.md step 1 (ex_sse): no memory of a CR at the end of a
chunk, so a CR|LF pair cut in two ends two lines, the empty one dispatching an event
too early. Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    events = []
    for piece in chunk.splitlines(keepends=True):
        if not piece.endswith((b"\n", b"\r")):
            self._partial_line += piece
            break
        event = self._interpret(self._complete_line(piece.rstrip(b"\r\n")))
        if event is not None:
            events.append(event)
    return events
