"""A wrong solution of EXERCISES.md step 1 (ex_sse): the flag "the last chunk ended in
CR" is cleared only when an LF comes to use it, so a later chunk that starts with LF
loses it and the event never ends. Caught by the vector b"data: a\\rdata: b\\n\\n" fed
one byte at a time. Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/core/sse.py"
CLASS = "SSEDecoder"


def feed(self, chunk: bytes) -> List[SSEEvent]:
    if not chunk:
        return []
    if self._skip_lf and chunk.startswith(b"\n"):
        chunk = chunk[1:]
        self._skip_lf = False
    if chunk.endswith(b"\r"):
        self._skip_lf = True
    events = []
    for piece in chunk.splitlines(keepends=True):
        if not piece.endswith((b"\n", b"\r")):
            self._partial_line += piece
            break
        event = self._interpret(self._complete_line(piece.rstrip(b"\r\n")))
        if event is not None:
            events.append(event)
    return events
