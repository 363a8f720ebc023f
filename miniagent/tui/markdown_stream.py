"""markdown_stream: a streamed Markdown answer, committed to the scrollback block by
block, with work that grows only as fast as the text.

An answer arrives a few characters at a time, and lines printed to the scrollback
cannot be changed. The end of a block can change what its start means: a "```" line
turns everything after it into code, the next line may continue a paragraph or a list
item. So a block is committed only once the next one has begun; until then it is the
open block, shown in the live area and drawn again at every frame. A line is read when
it has ended ("-" may yet become "- b" or "---"), except after a block that nothing
can continue, where any text begins a new one.

    fed so far (three deltas)         committed so far          live (the open block)
    "Intro\\n- a"                      (none)                    Intro | • a
    "Intro\\n- a\\n  more\\n- b"         Intro                     • a |   more | • b
    "Intro\\n- a\\n  more\\n- b\\n"       Intro | • a |   more      • b

The committed lines equal render_markdown of the whole text: the block boundaries are
found with the questions parse_blocks asks (`line_kind`, `continues`), and a blank
block is committed with the block before it once the next block has begun, so it is
never the end of the text.

How the work stays linear, however the text is shaped (a 20,000-row table is one
block; a list 3,000 levels deep is 3,000 blocks with no blank line between them):

  * each line is looked at once, when it ends: it continues the open block or begins a
    new one (an open code fence remembers its marker); nothing is parsed again;
  * a finished block is parsed and rendered once, when it is committed;
  * a frame draws only the end of the open block: at most as many lines as the live
    area has rows, and about as many characters as it can show;
  * the text is kept as ended lines and the pieces of the line being written, so a
    delta never copies what came before it.

Left out: committing a long paragraph or code block line by line (its rows would be
final, but the block stays whole until it ends, as the one-shot rendering has it).
"""

from typing import Iterator, List, Optional

from .markdown import (FENCE, closes_fence, continues, line_kind, parse_blocks, render_blocks,
                       render_markdown)
from .style import Style

# The blocks no later line can continue: after one, a line with any text begins a new
# block, whatever the rest of that line turns out to be. ("fenced" is a code block
# whose closing fence has come.)
ENDED = ("blank", "heading", "rule", "fenced")


class MarkdownStream:
    """A streamed answer: the blocks that are finished go to the scrollback once; the
    open one is drawn in the live area until it is.

    Example: s = MarkdownStream(Style(False)); s.feed("Hi **there**\\n\\nNe")
             s.take_committed(80) -> ["Hi there", ""];  s.live(80) -> ["Ne"]
    """

    def __init__(self, style: Style):
        self.style = style
        self._clear()

    def _clear(self) -> None:
        self._lines: List[str] = []  # the ended lines not committed; the first begins a block
        self._open: List[str] = []  # the pieces of the line being written
        self._open_blank = True  # nothing but spaces in it yet
        self._seen = 0  # how many of _lines have been looked at
        self._block = ""  # the kind of block the last line looked at is in
        self._fence = ""  # the marker of the code block open there ("" outside one)
        self._begun = 0  # where in _lines the last block with text began

    def feed(self, delta: str) -> None:
        *ended, rest = delta.split("\n")
        if ended:
            ended[0] = "".join(self._open) + ended[0]
            self._lines += [line[:-1] if line.endswith("\r") else line for line in ended]
            self._open, self._open_blank = [], True
        if rest:
            self._open.append(rest)
            self._open_blank = self._open_blank and not rest.strip()

    def take_committed(self, width: int) -> List[str]:
        """The lines of the finished blocks not taken yet (often none)."""
        source = self.take_finished()
        return [] if source is None else render_finished(source, width, self.style)

    def take_finished(self) -> Optional[str]:
        """The source of the finished blocks not taken yet (None: none yet), for a
        caller that keeps it, to render it again for another width (render_finished)."""
        self._look()
        if not self._begun:
            return None  # the open block is all there is (no copy of its lines is made)
        done, self._lines = self._lines[:self._begun], self._lines[self._begun:]
        self._seen -= self._begun
        self._begun = 0
        return "\n".join(done)

    def _look(self) -> None:
        """Each line ended since the last look, once; then the open line, which begins
        a new block as soon as it has text after a block nothing can continue (see ENDED)."""
        while self._seen < len(self._lines):
            self._look_at(self._seen, self._lines[self._seen])
            self._seen += 1
        if not self._open_blank and self._block in ENDED:
            self._begun = len(self._lines)

    def _look_at(self, index: int, line: str) -> None:
        if self._fence:  # inside code, only the closing fence means anything
            if closes_fence(line, self._fence):
                self._fence, self._block = "", "fenced"
            return
        if self._block and continues(self._block, line):
            return
        kind = line_kind(line)
        if kind != "blank":
            self._begun = index
        if kind == "fence":
            self._fence = FENCE.match(line).group(1)
        self._block = {"fence": "code", "text": "paragraph"}.get(kind, kind)

    def live(self, width: int, rows: Optional[int] = None) -> List[str]:
        """The text not committed as it would be shown now; with `rows`, the last rows
        of the open block only. Of a long block only the end is drawn (its last `rows`
        lines, about rows * width characters), so a frame costs the same however long
        the block has grown; that preview may wrap or style its first rows differently
        from the final rendering, which take_committed and finish make from all of it."""
        if rows is None:
            return render_markdown(self._text(0), width, self.style)
        self._look()
        return render_markdown(self._end(rows, width), width, self.style)[-rows:]

    def finish(self, width: int) -> List[str]:
        """At the end of the answer: everything not taken yet."""
        return render_markdown(self.take_rest(), width, self.style)

    def take_rest(self) -> str:
        """At the end of the answer: the source of everything not taken yet (rendered
        with render_markdown); the stream is empty after it."""
        text = self._text(0)
        self._clear()
        return text

    def _text(self, first: int) -> str:
        """The text from ended line `first` on, the open line last."""
        return "".join(reversed(list(self._backwards(first))))

    def _backwards(self, first: int) -> Iterator[str]:
        """The text from ended line `first` on, in pieces from its end: the open line's,
        then a newline and the line before it, and so on."""
        yield from reversed(self._open)
        for index in range(len(self._lines) - 1, first - 1, -1):
            yield "\n"
            yield self._lines[index]

    def _end(self, rows: int, width: int) -> str:
        """The end of the open block, enough for `rows` rows: whole lines from the end,
        no more than `rows` of them, and where those are over twice the rows * width
        characters the live area can show, about that many (see _last_part). An open
        code block keeps its fence on top, so what is drawn under it is still code; a
        table its header and delimiter rows, so its last rows are still drawn boxed."""
        size = rows * width
        pieces: List[str] = []
        length = lines = 0
        for piece in self._backwards(self._begun):
            pieces.append(piece[-(2 * size + 1 - length):])  # of a huge piece, its end
            length += len(pieces[-1])
            lines += piece == "\n"
            if lines > rows or length > 2 * size:
                break
        else:
            return "".join(reversed(pieces))  # the whole block is short enough
        text = _last_part("".join(reversed(pieces)), min(size, length))
        return self._top() + text

    def _top(self) -> str:
        """What a long open block keeps on top of its end: its first line for code, its
        first two (the header, the delimiter) for a table; nothing for the others."""
        first = self._begun
        if self._fence:
            return self._lines[first] + "\n"
        if self._block == "table" and first + 1 < len(self._lines):
            return self._lines[first] + "\n" + self._lines[first + 1] + "\n"
        return ""


def render_finished(source: str, width: int, style: Style) -> List[str]:
    """Finished blocks as lines: a blank line at their end stays (a block follows it),
    which render_markdown, made for the end of a text, drops."""
    return render_blocks(parse_blocks(source), width, style)


def _last_part(text: str, size: int) -> str:
    """About the last `size` characters of `text`, from a line start after its first
    (or from a space, in a line longer than that).

    Example: _last_part("a = 1\\nb = 2\\n", 7) -> "b = 2\\n"
    """
    start = len(text) - size
    line_start = text.find("\n", start) + 1
    if 0 < line_start < len(text):
        return text[line_start:]
    return text[text.find(" ", start) + 1:]
