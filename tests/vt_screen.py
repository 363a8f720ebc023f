"""vt_screen: a small VT100 screen model, so that a test can look at what a user sees.

A program that repaints (a spinner, a live area at the bottom of the terminal) writes
a byte stream nobody can read: the same row is written ten times, erased, moved to,
written again. What a person sees is the result: a grid of cells, and above it the
rows that scrolled off the top (the scrollback). This model keeps both, as xterm
would, for exactly the codes miniagent's terminal output uses:

    text            each character in the cell at the cursor; a wide one (日) takes two
    CR LF BS TAB    to the row's start; a row down (at the bottom row the screen
                    scrolls and its top row goes to the scrollback); a cell back; to
                    the next multiple of 8
    CSI n A B C D   cursor up, down, forward, back, stopping at the edges
    CSI n G         to column n;   CSI r;c H   to row r, column c (both 1-based)
    CSI K / 2K      erase to the end of the row / the whole row (CSI J / 2J: the screen)
    CSI ... m       SGR: bold, dim, italic, underline, inverse, foreground colour,
                    kept per cell; 0 resets, 22 23 24 27 39 switch one off
    CSI ? 2026 h/l  synchronized output: a frame begins / ends (counted, checked paired)
    CSI ? 2004 h/l  bracketed paste on / off;   CSI ? 25 h/l  cursor shown / hidden
    OSC ... BEL     (the window title) ignored; ESC \\ ends one too

Anything else is written down in `screen.unknown` rather than guessed at, so a test
notices a code the program should not send.

Autowrap follows xterm's "pending wrap" rule: writing the last column leaves the
cursor on it with a flag set, and only the next printable character wraps. A program
may fill a row exactly and then send CR LF without leaving a blank row. (miniagent's
renderer never writes the last column at all: `last_column_writes` counts them.)

Resizing: by default as xterm and st do, rows cut or padded on the right. With
`Screen(columns, rows, reflow=True)` a narrower window splits each row wider than it
into several, as tmux, VTE, kitty and iTerm2 do, the cursor following its cell; the
rows made count as rows of the screen (the top ones scroll off into the scrollback).
The model keeps no "this row wrapped" mark, so rows are never joined again when the
window grows: right for miniagent, which never lets the terminal wrap a row.

CSI 3 J (erase the scrollback) empties the scrollback.

Left out: scrolling regions, insert and delete, the alternate screen, background
colours, tab stops other than every 8, and answers to queries (a program that asks
where the cursor is hears nothing back).

tests/pty_driver.py feeds this model everything the program in the pty writes.

Example:
    screen = Screen(20, 3)
    screen.feed("one\\r\\ntwo \\x1b[1mbold\\x1b[0m")
    screen.lines() -> ["one", "two bold", ""];  screen.is_bold("bold") -> True
"""

import codecs
import re
from typing import List, NamedTuple, Optional, Tuple, Union

from miniagent.tui.width import char_width


class Pen(NamedTuple):
    """How a cell is drawn: the SGR attributes in force when it was written."""
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    inverse: bool = False
    fg: Optional[str] = None  # the colour's SGR code: "31", "38;5;208", "38;2;9;9;9"


PLAIN = Pen()


class Cell(NamedTuple):
    """One cell of the grid: what it shows, and how."""
    char: str  # "" in the right half of a wide character
    pen: Pen = PLAIN


BLANK = Cell(" ")

# One token of the stream: a CSI sequence, an OSC string, another ESC sequence, a run
# of printable text, or one control character (a lone ESC among them).
TOKEN = re.compile(r"\x1b\[(?P<params>[0-?]*)(?P<final>[ -/]*[@-~])"
                   r"|\x1b\](?P<osc>.*?)(?:\x07|\x1b\\)"
                   r"|(?P<escape>\x1b[^\[\]])"
                   r"|(?P<text>[^\x00-\x1f\x7f]+)"
                   r"|(?P<control>.)", re.DOTALL)
# The start of a sequence whose end has not arrived yet: keep it for the next feed.
UNFINISHED = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\](?:[^\x07\x1b]|\x1b(?!\\))*)?\Z",
                        re.DOTALL)
SWITCHES = {1: {"bold": True}, 2: {"dim": True}, 3: {"italic": True},
            4: {"underline": True}, 7: {"inverse": True},
            22: {"bold": False, "dim": False}, 23: {"italic": False},
            24: {"underline": False}, 27: {"inverse": False}, 39: {"fg": None}}
COLOURS = set(range(30, 38)) | set(range(90, 98))
MOVES = {"A": (-1, 0), "B": (1, 0), "C": (0, 1), "D": (0, -1)}  # (rows down, columns right)


class Screen:
    def __init__(self, columns: int, rows: int, reflow: bool = False):
        self.columns, self.rows = columns, rows
        self.reflow = reflow  # a narrower window splits rows instead of cutting them
        self.grid: List[List[Cell]] = [self._blank_row() for _ in range(rows)]
        self.history: List[List[Cell]] = []  # the rows that scrolled off, oldest first
        self._history_text: List[str] = []  # and their text (they never change again)
        self.row, self.col = 0, 0
        self.pen = PLAIN
        self.wrap_pending = False  # the last column was written: the next char wraps
        self.last_column_writes = 0  # characters written into the last column
        self.unknown: List[str] = []  # every code this model does not handle, as sent
        self.bells = 0  # BEL characters: the terminal's bell, rung
        self.bracketed_paste = False
        self.cursor_visible = True
        self.in_frame = False  # inside CSI ? 2026 h ... l
        self.frames = 0  # synchronized frames begun and ended
        self.unpaired_frames = 0  # a begin inside a frame, or an end outside one
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # the start of a sequence split across two feeds

    # What a user sees

    @property
    def cursor(self) -> Tuple[int, int]:
        """(row, column) of the cursor on the visible screen, both from 0."""
        return self.row, self.col

    def lines(self) -> List[str]:
        """The visible rows, trailing spaces stripped (except those before the cursor
        on its row: the space after a prompt is where the user types next)."""
        return [self._row_text(cells, self.col if number == self.row else 0)
                for number, cells in enumerate(self.grid)]

    def scrollback(self) -> List[str]:
        """The rows that scrolled off the top, oldest first."""
        return list(self._history_text)

    def transcript(self) -> str:
        """Scrollback and visible rows, one text, trailing blank rows dropped."""
        rows = self._history_text + self.lines()
        while rows and not rows[-1].strip():
            rows.pop()
        return "\n".join(rows)

    def cell(self, row: int, col: int) -> Cell:
        """The cell at a visible row and column: its character and its Pen."""
        return self.grid[row][col]

    def styled(self, row: int) -> List[Cell]:
        """A visible row as cells, each a (char, pen) pair; wide halves left out."""
        return [cell for cell in self.grid[row] if cell.char]

    def is_bold(self, text: str) -> bool:
        """Whether every cell of `text` is bold where it shows last (the newest output,
        nearest the bottom), in the scrollback or on screen, within one row. Raises
        LookupError when the text is nowhere, so a test cannot pass by not finding it."""
        for cells in reversed(self.history + self.grid):
            found = "".join(cell.char for cell in cells if cell.char).rfind(text)
            if found >= 0:
                return all(cell.pen.bold for cell in self._cells_of(cells, found, text))
        raise LookupError(f"{text!r} is not on the screen")

    # The stream

    def feed(self, data: Union[str, bytes]) -> None:
        """Draw what a program wrote; bytes are UTF-8, a character split across two
        feeds included, and so is an escape sequence split across two feeds."""
        if isinstance(data, bytes):
            data = self._decoder.decode(data)
        text, at = self._pending + data, 0
        while at < len(text):
            if text[at] == "\x1b" and UNFINISHED.match(text, at):
                break
            token = TOKEN.match(text, at)
            self._act(token)
            at = token.end()
        self._pending = text[at:]

    def resize(self, columns: int, rows: int) -> None:
        """What a terminal does when its window changes size (st's tresize, for one):
        rows are not reflowed but cut or padded on the right; when the window gets
        shorter, rows below the cursor go first and then top rows, into the scrollback,
        so that the cursor's row stays on screen; new rows are added at the bottom.
        The cursor is clamped. With `reflow`, a narrower window first splits rows."""
        if self.reflow and columns < self.columns:
            self._split_rows(columns)
        self.grid = [self._fit(cells, columns) for cells in self.grid]
        self.columns = columns
        while len(self.grid) > rows and len(self.grid) - 1 > self.row:
            self.grid.pop()
        while len(self.grid) > rows:
            self._scroll_off()
            self.row -= 1
        self.grid += [self._blank_row() for _ in range(rows - len(self.grid))]
        self.rows = rows
        self._move(self.row, self.col)

    def _split_rows(self, columns: int) -> None:
        """Reflow for a narrower window: each row's cells, up to its last non-blank one
        (or the cursor on its row), in rows of `columns`; a wide character that does
        not fit starts the next row. The cursor moves with its cell."""
        grid, cursor = [], (self.row, self.col)
        for number, cells in enumerate(self.grid):
            used = len(cells)
            while used and cells[used - 1].char == " ":
                used -= 1
            if number == self.row:
                used = max(used, self.col)
            pieces, start = [[]], 0
            for at in range(used):
                width = 2 if at + 1 < len(cells) and cells[at + 1].char == "" else 1
                if cells[at].char == "":
                    continue
                if len(pieces[-1]) + width > columns:
                    pieces.append([])
                    start = at
                if number == self.row and at <= self.col < at + width:
                    cursor = (len(grid) + len(pieces) - 1, len(pieces[-1]))
                pieces[-1] += cells[at:at + width]
            if number == self.row and self.col >= used:
                cursor = (len(grid) + len(pieces) - 1, min(columns - 1, self.col - start))
            grid += pieces
        self.grid, (self.row, self.col) = grid, cursor
        self.wrap_pending = False

    def _act(self, token) -> None:
        if token.group("final"):
            self._csi(token.group("params"), token.group("final"))
        elif token.group("text"):
            self._write(token.group("text"))
        elif token.group("control"):
            self._control(token.group("control"))
        elif token.group("escape"):
            self.unknown.append(token.group())
        # an OSC string (the window title) changes nothing on the screen

    def _control(self, char: str) -> None:
        if char == "\r":
            self._move(self.row, 0)
        elif char == "\n":  # down a row, same column (the pty's ONLCR added a CR before)
            self.wrap_pending = False
            self._line_feed()
        elif char == "\b":
            self._move(self.row, self.col - 1)
        elif char == "\t":
            self._move(self.row, (self.col // 8 + 1) * 8)
        elif char == "\a":
            self.bells += 1
        else:
            self.unknown.append(char)

    def _csi(self, params: str, final: str) -> None:
        if params.startswith("?") and final in ("h", "l"):
            self._private_mode(params[1:], final == "h")
            return
        if not re.fullmatch(r"[0-9;]*", params):
            self.unknown.append(f"\x1b[{params}{final}")
            return
        numbers = [int(number or 0) for number in params.split(";")]
        count = max(1, numbers[0])  # a count of 0 or none means 1
        if final in MOVES:
            down, right = MOVES[final]
            self._move(self.row + down * count, self.col + right * count)
        elif final == "G":
            self._move(self.row, count - 1)
        elif final == "H":
            self._move(count - 1, max(1, numbers[1] if len(numbers) > 1 else 1) - 1)
        elif final == "K" and numbers[0] in (0, 2):
            self._erase_row(self.row, 0 if numbers[0] == 2 else self.col)
        elif final == "J" and numbers[0] in (0, 2):
            self._erase_screen(whole=numbers[0] == 2)
        elif final == "J" and numbers[0] == 3:
            self.history, self._history_text = [], []
        elif final == "m":
            self._select_graphics(numbers, params)
        else:
            self.unknown.append(f"\x1b[{params}{final}")

    def _private_mode(self, mode: str, on: bool) -> None:
        if mode == "2026":
            self._synchronize(on)
        elif mode == "2004":
            self.bracketed_paste = on
        elif mode == "25":
            self.cursor_visible = on
        else:
            self.unknown.append(f"\x1b[?{mode}{'h' if on else 'l'}")

    def _synchronize(self, begin: bool) -> None:
        """Count the frames; a begin inside a frame or an end outside one is a fault
        (a terminal would show a half-drawn frame, or hold the screen back)."""
        if begin == self.in_frame:
            self.unpaired_frames += 1
        elif not begin:
            self.frames += 1
        self.in_frame = begin

    def _select_graphics(self, codes: List[int], params: str) -> None:
        pen, at = self.pen, 0
        while at < len(codes):
            code = codes[at]
            if code == 0:
                pen = PLAIN
            elif code in SWITCHES:
                pen = pen._replace(**SWITCHES[code])
            elif code in COLOURS:
                pen = pen._replace(fg=str(code))
            elif code == 38 and codes[at + 1:at + 2] in ([5], [2]):
                size = 3 if codes[at + 1] == 5 else 5  # 38;5;n or 38;2;r;g;b
                pen = pen._replace(fg=";".join(map(str, codes[at:at + size])))
                at += size - 1
            else:
                self.unknown.append(f"\x1b[{params}m")
                return
            at += 1
        self.pen = pen

    # The grid

    def _write(self, text: str) -> None:
        """Printable text: ASCII (the common case) a row's worth at a time, anything
        else a character at a time, for its width."""
        if not text.isascii():
            for char in text:
                self._print(char)
            return
        while text:
            self._make_room(1)
            room = self.columns - self.col
            self._place([Cell(char, self.pen) for char in text[:room]])
            text = text[room:]

    def _print(self, char: str) -> None:
        width = char_width(char)
        if width == 0:  # a combining mark: it joins the character before it
            self._combine(char)
            return
        self._make_room(width)
        self._place([Cell(char, self.pen)] + [Cell("", self.pen)] * (width - 1))

    def _make_room(self, width: int) -> None:
        """Autowrap: after the last column was written, or for a wide character that
        does not fit in the one column left."""
        if self.wrap_pending or self.col + width > self.columns:
            self.col, self.wrap_pending = 0, False
            self._line_feed()

    def _place(self, new: List[Cell]) -> None:
        """Put cells at the cursor and move past them; writing the last column leaves
        the cursor there, the wrap pending."""
        cells, end = self.grid[self.row], self.col + len(new)
        self._break_wide_neighbours(cells, self.col, end)
        cells[self.col:end] = new
        if end >= self.columns:
            self.col, self.wrap_pending = self.columns - 1, True
            self.last_column_writes += 1
        else:
            self.col = end

    def _combine(self, mark: str) -> None:
        cells = self.grid[self.row]
        col = self.col if self.wrap_pending else self.col - 1
        if col > 0 and cells[col].char == "":
            col -= 1  # onto the wide character, not its right half
        if col >= 0:
            cells[col] = Cell(cells[col].char + mark, cells[col].pen)

    def _line_feed(self) -> None:
        if self.row < self.rows - 1:
            self.row += 1
            return
        self._scroll_off()  # the bottom row: the screen scrolls
        self.grid.append(self._blank_row())

    def _scroll_off(self) -> None:
        """The top row goes to the scrollback."""
        cells = self.grid.pop(0)
        self.history.append(cells)
        self._history_text.append(self._row_text(cells, 0))

    def _move(self, row: int, col: int) -> None:
        """Every cursor move stops at the edges and ends a pending wrap."""
        self.row = min(max(0, row), self.rows - 1)
        self.col = min(max(0, col), self.columns - 1)
        self.wrap_pending = False

    def _erase_row(self, row: int, start: int) -> None:
        cells = self.grid[row]
        self._break_wide_neighbours(cells, start, self.columns)
        cells[start:] = [BLANK] * (self.columns - start)

    def _erase_screen(self, whole: bool) -> None:
        self._erase_row(self.row, 0 if whole else self.col)
        for row in range(0 if whole else self.row + 1, self.rows):
            self._erase_row(row, 0)

    def _break_wide_neighbours(self, cells: List[Cell], start: int, end: int) -> None:
        """Cells start..end-1 are about to change: a wide character they cut in two
        loses its other half too (a terminal cannot show half a glyph)."""
        if 0 < start < len(cells) and cells[start].char == "":
            cells[start - 1] = BLANK
        if end < len(cells) and cells[end].char == "":
            cells[end] = BLANK

    def _blank_row(self) -> List[Cell]:
        return [BLANK] * self.columns

    def _fit(self, cells: List[Cell], columns: int) -> List[Cell]:
        fitted = cells[:columns] + [BLANK] * (columns - len(cells))
        if columns < len(cells) and cells[columns].char == "":
            fitted[-1] = BLANK  # the wide character lost its right half
        return fitted

    @staticmethod
    def _row_text(cells: List[Cell], keep: int) -> str:
        """The row's characters (wide halves skipped), trailing spaces dropped but
        never left of column `keep`."""
        used = len(cells)
        while used > keep and cells[used - 1].char == " ":
            used -= 1
        return "".join(cell.char for cell in cells[:used])

    @staticmethod
    def _cells_of(cells: List[Cell], found: int, text: str) -> List[Cell]:
        """The cells that show text[found:found+len(text)] of the row's characters."""
        owners: List[Cell] = []  # one entry per character of the row's text
        for cell in cells:
            owners += [cell] * len(cell.char)
        return owners[found:found + len(text)]

