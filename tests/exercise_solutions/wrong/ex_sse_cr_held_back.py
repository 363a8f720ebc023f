"""A wrong solution of EXERCISES.md step 1 (ex_sse): a line ending in CR at the end of a
chunk is held back until the next chunk shows whether an LF follows; when none does,
the CR-terminated line is glued to the next one. Spliced by tests/test_exercises.py;
never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    data = bytes(self._partial_line) + chunk
    self._partial_line.clear()
    events = []
    pieces = data.splitlines(keepends=True)
    for number, piece in enumerate(pieces):
        last = number == len(pieces) - 1
        if piece.endswith(b"\n") or (piece.endswith(b"\r") and not last):
            line = piece.rstrip(b"\r\n").decode("utf-8", errors="replace")
            if self._at_stream_start:
                self._at_stream_start = False
                line = line[1:] if line.startswith(BOM) else line
            event = self._interpret(line)
            if event is not None:
                events.append(event)
        else:
            self._partial_line += piece  # a CR may still get its LF
    return events
