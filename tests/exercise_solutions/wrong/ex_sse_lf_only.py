"""A wrong solution of EXERCISES.md step 1 (ex_sse): lines split at LF only, a CR
stripped from their end, so a lone CR never ends a line. Spliced by
tests/test_exercises.py; never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    events = []
    *complete, rest = chunk.split(b"\n")
    for piece in complete:
        event = self._interpret(self._complete_line(piece.rstrip(b"\r")))
        if event is not None:
            events.append(event)
    self._partial_line += rest
    return events
