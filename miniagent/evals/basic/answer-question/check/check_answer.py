"""The hidden check of answer-question: ANSWER.md names the function and its seed.

The answer is packets.py's `checksum`, which is checksums.rolling_sum (imported under
another name), whose seed defaults to 97. Exits 0 when both marker words are there;
otherwise prints what is missing and exits 1.
"""

import re
import sys

MARKERS = {"the function's name": r"\brolling_sum\b", "its default seed": r"\b97\b"}


def problems():
    try:
        with open("ANSWER.md", encoding="utf-8") as f:
            answer = f.read()
    except OSError as exc:
        return [f"ANSWER.md cannot be read: {exc.strerror}"]
    return [f"ANSWER.md does not give {what}" for what, pattern in MARKERS.items()
            if not re.search(pattern, answer)]


if __name__ == "__main__":
    found = problems()
    for line in found:
        print(line)
    sys.exit(1 if found else 0)
