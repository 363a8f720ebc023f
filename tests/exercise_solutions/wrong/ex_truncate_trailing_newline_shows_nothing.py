"""A wrong solution of EXERCISES.md step 3 (ex_truncate): output that ends in "\\n" keeps only
its empty last line when the line before it is too big: the model sees nothing.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/tools/hardening/truncate.py"
CLASS = None


def truncate_tail(text: str, max_lines: int = DEFAULT_MAX_LINES,
                  max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    lines = text.split("\n")
    kept = []
    kept_bytes = 0
    truncated_by = None
    last_line_partial = False
    for line in reversed(lines):
        size = utf8_len(line)
        newline = 1 if kept else 0
        if len(kept) >= max_lines:
            truncated_by = "lines"
            break
        if kept_bytes + newline + size > max_bytes:
            truncated_by = "bytes"
            if not kept:
                line = _utf8_suffix(line, max_bytes - kept_bytes - newline)
                kept.append(line)
                kept_bytes += newline + utf8_len(line)
                last_line_partial = True
            break
        kept.append(line)
        kept_bytes += newline + size
    kept.reverse()
    return Truncation(
        content="\n".join(kept), truncated=truncated_by is not None,
        truncated_by=truncated_by, total_lines=len(lines), total_bytes=utf8_len(text),
        output_lines=len(kept), output_bytes=kept_bytes, max_lines=max_lines,
        max_bytes=max_bytes, last_line_partial=last_line_partial)
