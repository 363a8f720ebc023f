"""spinner: the status line, and how a still screen says "still working".

A command that runs for a minute prints nothing, and a screen that does not move looks
like a program that hangs. One line at the bottom answers the user's two questions,
"is it alive?" and "for how long?":

    ⠹ running $ pytest -q · 3s

The spinner's frames are the braille patterns of a dot going round; the frame is chosen
from the clock, not counted up per call, so it turns at 10 frames a second however often
the line is drawn, and two views drawn at the same moment agree. The time is whole
seconds, then minutes and seconds ("1m05s"): a status needs no tenths.

A wait with an end says what is left instead, and takes no clock ("⠼ retrying in 3s
(2 of 3)": `since` None).

The line is one row, cut to the width; what is cut is the description, with "…", so the
time, the part that changes, stays in view. Drawing it again and again is the renderer's
job (it repaints only when the line changed, which here is ten times a second).
"""

from typing import Optional

from .style import Style
from .width import cut, printable, text_width

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAMES_PER_SECOND = 10


def spinner_frame(now: float) -> str:
    """The frame for a moment (time.monotonic() or time.time()).

    Example: spinner_frame(0.0) -> "⠋", spinner_frame(0.25) -> "⠹"
    """
    return SPINNER[int(now * FRAMES_PER_SECOND) % len(SPINNER)]


def elapsed_text(seconds: float) -> str:
    """Example: elapsed_text(3.7) -> "3s", elapsed_text(65) -> "1m05s"."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    return f"{whole // 60}m{whole % 60:02d}s"


def status_line(what: str, since: Optional[float], now: float, width: int, style: Style,
                colour_spinner: bool = True) -> str:
    """The spinner, what runs and for how long (no clock when `since` is None), in at
    most width - 1 columns.

    Example: status_line("running $ pytest -q", 10.0, 13.2, 80, Style(False))
             -> "⠹ running $ pytest -q · 3s"
    """
    frame = spinner_frame(now)
    if colour_spinner:
        frame = style.apply(frame, "cyan")
    clock = "" if since is None else f" · {elapsed_text(now - since)}"
    what = _one_row(what)
    room = width - 1 - text_width(frame) - 1 - text_width(clock)
    if text_width(what) > room:
        what = cut(what, room - 1) + "…"
    return cut(f"{frame} {what}{clock}", width - 1)


def _one_row(what: str) -> str:
    """A command of several lines shows its first, with "…" for the rest."""
    first, _, rest = printable(what).partition("\n")
    return first + " …" if rest.strip() else first
