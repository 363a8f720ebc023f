"""A wrong solution of EXERCISES.md step 1 (ex_sse): each chunk is decoded to text as it
arrives, so a character cut between two chunks becomes two replacement characters.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    if self._skip_lf and chunk.startswith(b"\n"):
        chunk = chunk[1:]
    if chunk:
        self._skip_lf = chunk.endswith(b"\r")
    text = chunk.decode("utf-8", errors="replace").encode("utf-8")
    events = []
    for piece in text.splitlines(keepends=True):
        if not piece.endswith((b"\n", b"\r")):
            self._partial_line += piece
            break
        event = self._interpret(self._complete_line(piece.rstrip(b"\r\n")))
        if event is not None:
            events.append(event)
    return events
