"""renderer: how a terminal UI avoids flicker, and keeps the user's scrollback.

A terminal has no "draw this screen" call. A program writes text and escape codes
into one stream, and whatever it wrote stays until it is written over. The naive
live display (erase the whole area, write it again, ten times a second) flickers:
between the erase and the rewrite the terminal may show an empty area, and every
frame costs as much as the whole area is big.

This renderer owns only the bottom of the output, the **live area** (a streaming
answer's last lines, the status line, the input editor), and knows, line by line,
what is on screen there now. Above it is the scrollback, which belongs to the
terminal: finished lines are printed there once and never touched again.

    Let me look at the tests.                 <- scrollback: printed once (commit)
      $ pytest -q                             <- scrollback
    ⠹ running $ pytest -q · 4s                <- live area: repainted ...
        ....F..                               <- ... only the rows that changed
    > fix the import too|                     <- the editor, the cursor in it

One frame (`paint`) is:

  1. Synchronized output on (CSI ? 2026 h): a terminal that supports it shows the
     frame only when it is complete (others ignore the code). The cursor is hidden.
  2. If lines were committed: go to the live area's first row, erase to the end of
     the screen, print the committed lines (they scroll up into the scrollback as
     any output does), then the whole live area below them.
  3. Otherwise compare the new live lines with the ones on screen and rewrite only
     the rows that differ (a spinner tick rewrites one row); erase rows that are
     no longer used.
  4. Put the cursor where the editor says, show it, synchronized output off.
  5. A bell (BEL), if one was asked for (`ring`): it draws nothing, so it goes after
     the frame, never inside one of its escape sequences.

Three rules keep the bookkeeping true:

  * **Never write the last column.** A terminal that writes a character in its last
    column waits to wrap until the next one ("pending wrap"), and terminals disagree
    about what a cursor move does then. Every row is cut to width - 1 columns
    (width.py counts wide characters as two).
  * **Move down with a newline.** Below the last row of the live area there may be no
    row yet; a line feed makes one (scrolling the screen if needed), a cursor-down
    code would stop at the bottom edge.
  * **When the width changes, repaint the whole live area.** Rows cut for the old
    width may now be wrapped or cut differently. On a wider window the renderer goes
    back to where the area started, erases to the end of the screen and draws it
    afresh. A narrower window is harder: most terminals (tmux, VTE, kitty, iTerm2)
    *reflow* a row wider than the window into several, so the old live area now
    takes more rows than the renderer drew, and going back as many rows as it drew
    stops in the middle of it: the top half would stay, a stale copy in the
    scrollback. How many rows a terminal made is not ours to know (xterm makes
    none), so the renderer redraws everything it ever drew instead: it erases the
    screen and the scrollback, then prints everything committed again for the new
    width, and the live area under them. It keeps what was committed for that (the
    transcript). The price: lines written before the program started (the shell's)
    are gone from the scrollback after a narrowing.

What is committed is a list of entries, each a plain line or a `Block`: lines made
from a source (a paragraph of the answer from its Markdown), which a narrowing renders
again from that source, so a paragraph is wrapped as if it had been written at the
new width and a list item keeps its hanging indent. A plain line (a tool's output, a
note) is only wrapped: its old line breaks stay.

    a paragraph committed at 120 columns, then the window is 60 wide:
    as plain lines  beta gamma delta alpha03 beta gamma delta alpha04 beta
                    gamma                         <- the end of a 120-column row
                    delta alpha05 beta gamma delta alpha06 beta gamma delta
    as a Block      beta gamma delta alpha03 beta gamma delta alpha04 beta
                    gamma delta alpha05 beta gamma delta alpha06 beta gamma

A live area taller than the terminal shows its last rows (the editor stays visible).

The renderer does not decide when to paint: its owner calls `paint()`, at most about
30 times a second while text streams (see `FRAME_SECONDS`), so that many small
deltas become one frame. Everything is written with one `write` call per frame.
"""

from typing import Callable, List, Optional, Tuple, Union

from .width import cut, wrap

FRAME_SECONDS = 1 / 30  # the shortest time between two frames: ~30 frames a second

SYNC_ON, SYNC_OFF = "\x1b[?2026h", "\x1b[?2026l"
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
BELL = "\a"  # the terminal's bell: a sound, a flash, or a mark on the window's tab
ERASE_LINE, ERASE_BELOW = "\x1b[2K", "\x1b[J"
# Erase the screen, cursor to the top left, erase the scrollback (erased after the
# screen: a terminal that keeps an erased screen in the scrollback loses that too).
ERASE_ALL = "\x1b[2J\x1b[H\x1b[3J"


class Block:
    """Committed lines made from a source, made again for another width.

    Example: Block("- a long item", lambda text, width: render_markdown(text, width, style))
             .lines(40) -> the item wrapped for 40 columns, its hanging indent kept
    """

    def __init__(self, source: str, render: Callable[[str, int], List[str]]):
        self.source = source
        self.render = render  # (source, width) -> lines at most width - 1 columns wide

    def lines(self, width: int) -> List[str]:
        return self.render(self.source, width)


Entry = Union[str, Block]  # what is committed to the scrollback


def lines_of(entry: Entry, width: int) -> List[str]:
    """An entry's lines for `width`: a Block rendered for it, a plain line as it is."""
    return entry.lines(width) if isinstance(entry, Block) else [entry]


def rows_of(entry: Entry, width: int) -> List[str]:
    """The rows an entry takes on screen at `width`: its lines, each wrapped to it."""
    return [row for line in lines_of(entry, width) for row in wrap(line, width)]


class Renderer:
    """The live area of one terminal. `write` sends text to it; `size` tells its
    (columns, rows). Not thread-safe: one thread paints (the REPL's main thread)."""

    def __init__(self, write: Callable[[str], None], size: Callable[[], Tuple[int, int]]):
        self._write = write
        self._size = size
        self._shown: List[str] = []  # the live rows on screen now
        self._raw: List[str] = []  # the same rows as they were given, before cutting
        self._row = 0  # the cursor's row, counted from the live area's first row
        self._width = 0  # the width the shown rows were drawn for
        self._commits: List[Entry] = []  # waiting to go into the scrollback
        self._transcript: List[Entry] = []  # everything committed: drawn again when narrower
        self._stale = False  # the live rows on screen are not what we drew
        self._live: List[str] = []
        self._cursor: Optional[Tuple[int, int]] = None  # (row, column) or hidden
        self.frames = 0  # frames written, for tests and the bench
        self._bell = False  # ring at the end of the next frame

    def commit(self, entries: List[Entry]) -> None:
        """Lines and Blocks for the scrollback, printed at the next paint above the
        live area."""
        self._commits.extend(entries)

    def set_live(self, lines: List[str], cursor: Optional[Tuple[int, int]] = None) -> None:
        """What the live area should show from the next paint on; `cursor` is (row,
        column) within `lines`, or None to hide the cursor."""
        self._live = lines
        self._cursor = cursor

    def ring(self) -> None:
        """The next frame ends with a bell (several asks before it: one bell)."""
        self._bell = True

    def invalidate(self) -> None:
        """The rows on screen may not be what we drew (the window changed): the next
        paint draws the whole live area again, from its first row (everything, when
        the window is narrower than the last frame's)."""
        self._stale = True

    def forget(self) -> None:
        """The screen is someone else's now (after Ctrl-Z, the shell wrote on it, and
        `fg`): the next paint draws the live area afresh where the cursor is."""
        self._shown, self._row, self._width = [], 0, 0

    def paint(self) -> None:
        """Write one frame: the committed lines, then the live area's changed rows."""
        columns, rows = self._size()
        width = max(2, columns) - 1
        raw, cursor = self._fit_height(self._live, self._cursor, max(1, rows - 1))
        live = [self._fitted(row, line, width) for row, line in enumerate(raw)]
        out = [SYNC_ON, HIDE_CURSOR]
        self._transcript += self._commits
        if width < self._width:  # narrower: the terminal may have reflowed our rows
            out.append(self._redraw_all(width))
        elif self._commits or width != self._width or self._stale:
            out.append(self._go_to_row(0) + "\r" + ERASE_BELOW)
            out.extend(row + "\r\n" for entry in self._commits for row in rows_of(entry, width))
            self._shown = []
        self._commits, self._stale = [], False
        out.append(self._draw_changed(live))
        out.append(self._place_cursor(cursor))
        out.append(SYNC_OFF)
        if self._bell:
            out.append(BELL)
            self._bell = False
        self._width, self._raw = width, list(raw)  # a copy: the caller may change its list
        self._write("".join(out))
        self.frames += 1

    def leave(self) -> None:
        """Before the program hands the terminal back: the cursor goes below the live
        area, so the shell's prompt starts on a fresh line after it."""
        self.paint()
        self._write(self._go_to_row(len(self._shown)) + "\r" + SHOW_CURSOR)
        self._shown, self._row = [], 0

    # --- The pieces of a frame ------------------------------------------------------------

    def _redraw_all(self, width: int) -> str:
        """Erase the screen and the scrollback, then print the transcript again for
        `width` (each Block rendered anew); the live area follows from the top row."""
        self._shown, self._row = [], 0
        rows = [row + "\r\n" for entry in self._transcript for row in rows_of(entry, width)]
        return ERASE_ALL + "".join(rows)

    @staticmethod
    def _fit_height(lines: List[str], cursor: Optional[Tuple[int, int]], rows: int):
        """At most `rows` rows: the last ones, with the cursor moved along."""
        if len(lines) <= rows:
            return lines, cursor
        dropped = len(lines) - rows
        if cursor is not None:
            cursor = (max(0, cursor[0] - dropped), cursor[1])
        return lines[dropped:], cursor

    def _fitted(self, row: int, line: str, width: int) -> str:
        """The line cut to the width; a row given as it was last time is not measured
        again (measuring styled text is most of a frame's work)."""
        if width == self._width and row < len(self._shown) and self._raw[row] == line:
            return self._shown[row]
        return cut(line, width)

    def _draw_changed(self, live: List[str]) -> str:
        out = []
        for row, line in enumerate(live):
            if row < len(self._shown) and self._shown[row] == line:
                continue
            out.append(self._go_to_row(row) + "\r" + ERASE_LINE + line)
        if len(live) < len(self._shown):  # the area shrank: wipe the rows left over
            out.append(self._go_to_row(len(live)) + "\r" + ERASE_BELOW)
        self._shown = list(live)
        return "".join(out)

    def _go_to_row(self, row: int) -> str:
        """The codes that move the cursor from its row to `row` of the live area."""
        step, self._row = row - self._row, row
        if step < 0:
            return f"\x1b[{-step}A"
        return "\n" * step  # a line feed makes the row if it is not there yet

    def _place_cursor(self, cursor: Optional[Tuple[int, int]]) -> str:
        if cursor is None or not self._shown:
            return self._go_to_row(max(0, len(self._shown) - 1))
        row = min(cursor[0], len(self._shown) - 1)
        return self._go_to_row(row) + f"\r\x1b[{cursor[1] + 1}G" + SHOW_CURSOR
