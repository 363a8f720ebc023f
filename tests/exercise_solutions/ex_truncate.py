"""A second correct solution of EXERCISES.md step 3 (ex_truncate): walk back by index
and count the bytes of the joined text as it grows. Spliced into a copy of the package
by tests/test_exercises.py; never imported."""

FILE = "miniagent/tools/hardening/truncate.py"
CLASS = None


def truncate_tail(text: str, max_lines: int = DEFAULT_MAX_LINES,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    """Keep whole lines from the end of `text` while both limits hold."""
    lines = text.split("\n")
    kept = []
    size = 0  # the bytes of "\n".join(kept)
    cause = None
    partial = False
    index = len(lines)
    while index > 0 and cause is None:
        index -= 1
        separator = 1 if kept else 0
        line_size = utf8_len(lines[index])
        if len(kept) == max_lines:
            cause = "lines"
        elif size + separator + line_size > max_bytes:
            cause = "bytes"
            if all(piece == "" for piece in kept):  # only empty lines so far: show an end
                tail = _utf8_suffix(lines[index], max_bytes - size - separator)
                kept.append(tail)
                size += separator + utf8_len(tail)
                partial = True
        else:
            kept.append(lines[index])
            size += separator + line_size
    kept.reverse()
    return Truncation(
        content="\n".join(kept), truncated=cause is not None, truncated_by=cause,
        total_lines=len(lines), total_bytes=utf8_len(text), output_lines=len(kept),
        output_bytes=size, max_lines=max_lines, max_bytes=max_bytes,
        last_line_partial=partial)
