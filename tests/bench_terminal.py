"""Benchmark rows for the terminal: python tests/bench_terminal.py (or via tests/bench.py).

How fast does the REPL's screen react, and what does drawing a streamed answer cost?

- Abort latency as a person feels it: Ctrl-C (or Esc) typed into the real REPL in a
  pseudo-terminal (tests/pty_driver.py) until "(stopped)" is on the screen model, while
  an answer streams (the test server holds the rest of it) and while `bash` runs
  `sleep 30`. Goals: 0.2 s while streaming, 0.5 s while a command runs. Esc waits a
  little longer by design: the key decoder waits ESC_WAIT for the rest of a sequence.
- The cost of one streamed delta, measured in this process (no pty): the REPL's own
  TerminalScreen (its run view, its editor, its paint()) whose terminal is a string in
  memory, fed the text deltas of a long Markdown answer with one frame per delta (the
  worst case: no frame cap). The yardstick is the naive live display: the same live
  lines, erased and written whole every frame (FullRedraw). Three figures: CPU in this
  process, bytes written, and the terminal's own work (the bytes fed to the VT100 model
  of tests/vt_screen.py, standing in for a terminal emulator); each ratio is the
  yardstick's cost over the renderer's. A fourth is what the REPL really spends per
  delta of a fast model (DELTAS_PER_SECOND), its frame cap deciding which deltas get a
  frame, against the naive display's full redraw for every delta. The goal: at least 5x.
- No growth with scrollback: the per-delta cost after 10,000 committed blocks against
  after 100 (the renderer only keeps the committed lines, never draws them again while
  text streams, so the ratio should be ~1.0).
- A window that narrows: the frame after it renders everything committed again (see
  tui/renderer.py), so its cost grows with the scrollback: CPU and bytes of that frame
  after 1,000 committed blocks, against after 100. And in the real REPL in a pty whose
  screen model reflows as tmux does: the time from the narrowing, mid-stream, to every
  row on the screen and in the scrollback drawn for the new width (goal 0.2 s).
- Growth with the open block: a frame draws the end of the answer's unfinished block,
  so its cost should not grow with that block; shown for a long code fence (ended only
  by its closing fence), the end against the start.
- Linear in the text: the CPU per character of streaming a 20,000-row table and a list
  3,000 levels deep, against a tenth of each (the ratio should be ~1.0).
- The frame cap: the real REPL in a pty streaming a fast scripted reply (a delta every
  millisecond); the synchronized-output frames the screen model counted, per second of
  the reply. Goal: at most ~33 (FRAME_SECONDS is 1/30 s).

The live area of the in-process rows is what the REPL draws while text streams: the
answer's open paragraph (several wrapped rows), two queued steering lines, the rule,
and a draft in the editor, and the working line under the paragraph (its spinner
turns with the clock, so a few frames rewrite it).
"""

import json
import os
import re
import sys
import tempfile
import time
from statistics import median
from typing import Callable, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fake_server import FakeServer  # noqa: E402
from pty_driver import Terminal  # noqa: E402
from vt_screen import Screen as ScreenModel  # noqa: E402
from miniagent.modes.interactive import screen as screen_module  # noqa: E402
from miniagent.modes.interactive.screen import TerminalScreen  # noqa: E402
from miniagent.tui.renderer import (ERASE_BELOW, HIDE_CURSOR, SHOW_CURSOR, SYNC_OFF,  # noqa: E402
                                    SYNC_ON, Renderer)
from miniagent.tui.style import Style  # noqa: E402
from miniagent.tui.width import cut, wrap  # noqa: E402

ABORTS = 5
STREAM_GOAL, TOOL_GOAL = 0.2, 0.5
FRAME_GOAL = 33  # frames per second: FRAME_SECONDS (1/30 s) and a little slack
FOOTER = "context "  # in the line after every run (usage known or not): the run is over
COLUMNS, ROWS = 100, 40
SECTIONS = 10  # of the long answer: about 1,200 deltas
RUNS = 5  # best of, each figure
DELTAS_PER_SECOND = 100  # a fast model's stream, for the row with the REPL's frame cap


# --- Abort latency in the real REPL --------------------------------------------------------

def abort_latencies(args: List[str], key: str, started: Callable[[Terminal], None],
                    home: str, cwd: str) -> List[float]:
    """Seconds from each `key` to "(stopped)" on the screen, one prompt at a time."""
    latencies = []
    with Terminal(args, env={"MINIAGENT_HOME": home}, cwd=cwd, columns=COLUMNS,
                  rows=ROWS) as term:
        term.expect_screen("> ")
        for number in range(ABORTS):
            term.send(f"go {number}\r")
            started(term)
            start = time.perf_counter()
            term.send(key)
            term.expect_screen("(stopped)")
            latencies.append(time.perf_counter() - start)
            term.expect_screen(FOOTER)
        term.send("\x04")
        term.wait()
    return latencies


def streaming(term: Terminal) -> None:
    # Streamed text is drawn once and then only moves into the scrollback: counted.
    term.expect_screen("Hello fr")


def running_sleep(term: Terminal) -> None:
    # The status line is erased and drawn again: look at the rows on screen now.
    term.wait_screen(lambda vt: any("running $ sleep" in line for line in vt.lines()))


def abort_rows():
    home, cwd = tempfile.mkdtemp(prefix="miniagent-bench-"), tempfile.mkdtemp()
    held = {"content": [{"type": "text", "text": "Hello from a stream that never ends"}],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([held] * 2 * ABORTS) as server:
        args = ["--base-url", server.base_url + "/v1", "--model", "fake-model"]
        ctrl_c = abort_latencies(args, "\x03", streaming, home, cwd)
        esc = abort_latencies(args, "\x1b", streaming, home, cwd)
    script = write_script(cwd, [{"content": [{"type": "toolCall", "name": "bash",
                                              "arguments": {"command": "sleep 30"}}]}] * ABORTS)
    tool = abort_latencies(["--provider", "scripted", "--script", script], "\x03",
                           running_sleep, home, cwd)
    measured = (("Ctrl-C in the REPL to (stopped), streaming", ctrl_c, STREAM_GOAL),
                ("Ctrl-C in the REPL to (stopped), bash sleep 30", tool, TOOL_GOAL),
                ("Esc in the REPL to (stopped), streaming", esc, STREAM_GOAL))
    for what, latencies, goal in measured:
        mean = sum(latencies) / len(latencies)
        yield (f"{what} (mean of {ABORTS})", f"{mean * 1000:.0f} ms",
               f"goal {goal * 1000:.0f} ms", f"{mean / goal:.2f}x of goal")


def write_script(folder: str, turns: list) -> str:
    path = os.path.join(folder, "script.json")
    with open(path, "w") as file:
        json.dump(turns, file)
    return path


# --- One frame per streamed delta, in this process ----------------------------------------

def long_answer(sections: int) -> str:
    """A long Markdown answer: per section a heading, a long paragraph with inline
    code, emphasis and a link, a list and a fenced code block."""
    section = (
        "## Step {n}: read the failing test\n\n"
        "The test `test_parse_dates` fails because the parser reads the day before the "
        "month, so **every date after the twelfth** is rejected as invalid. The fix is "
        "small: swap the two fields in `parse_date`, keep the old order behind a flag for "
        "the callers that rely on it, and say so in the changelog. See [the docs]"
        "(https://example.com/dates) for the formats the library promises to read, and "
        "*do not* change the writer, which is right.\n\n"
        "- run `pytest -q tests/test_dates.py` first\n- change `parse_date` in `dates.py`\n"
        "- add a test for the 13th of a month\n- run the whole suite again\n\n"
        "```python\ndef parse_date(text):\n    day, month, year = text.split('/')\n"
        "    return date(int(year), int(month), int(day))\n```\n\n")
    return "".join(section.format(n=n + 1) for n in range(sections))


def text_deltas(text: str) -> List[dict]:
    """The answer word by word (spaces before each word), as the scripted model sends it."""
    return [{"type": "message_update", "assistantMessageEvent": {"type": "text_delta",
                                                                  "delta": word}}
            for word in re.findall(r"\s*\S+|\s+", text)]


class MemoryTerminal:
    """What TerminalScreen.paint needs of a terminal: a size, a write (kept in memory,
    one string per frame) and a wake-up (nobody waits here)."""

    def __init__(self):
        self.frames: List[str] = []
        self.columns = COLUMNS

    def size(self) -> Tuple[int, int]:
        return self.columns, ROWS

    def write(self, text: str) -> None:
        self.frames.append(text)

    def wake(self) -> None:
        pass


class FullRedraw:
    """The yardstick, with the renderer's interface: every frame goes back to the live
    area's first row, erases to the end of the screen and writes every line again."""

    def __init__(self, write: Callable[[str], None], size: Callable[[], Tuple[int, int]]):
        self._write = write
        self._size = size
        self._commits: List[str] = []
        self._live: List[str] = []
        self._row = 0  # the cursor's row in the live area: the last one

    def commit(self, lines: List[str]) -> None:
        self._commits.extend(lines)

    def set_live(self, lines: List[str], cursor=None) -> None:
        self._live = lines

    def paint(self) -> None:
        width = self._size()[0] - 1
        out = [SYNC_ON, HIDE_CURSOR, f"\x1b[{self._row}A" if self._row else "", "\r",
               ERASE_BELOW]
        for line in self._commits:
            out.extend(row + "\r\n" for row in wrap(line, width))
        self._commits = []
        out.append("\r\n".join(cut(line, width) for line in self._live))
        self._row = max(0, len(self._live) - 1)
        out += [SHOW_CURSOR, SYNC_OFF]
        self._write("".join(out))


def repl_screen(renderer_class) -> Tuple[TerminalScreen, MemoryTerminal]:
    """The REPL's screen with its terminal in memory, as it is while an answer streams:
    two queued steering lines and a draft in the editor."""
    terminal = MemoryTerminal()
    screen = TerminalScreen(Style(True))
    screen.terminal = terminal  # paint() asks it for the width; changed() wakes it
    screen.renderer = renderer_class(terminal.write, terminal.size)
    screen.queued = lambda: [("steering", "also check the docs"),
                             ("follow-up", "and run the linter when you are done")]
    screen.editor.set_text("then commit it with a message that says wh")
    screen.view({"type": "agent_start"})
    screen.paint()
    return screen, terminal


def stream(screen: TerminalScreen, events: List[dict]) -> None:
    """Each delta as the agent's thread hands it over, and a frame for each."""
    for event in events:
        screen.view(event)
        screen.paint()


class StreamClock:
    """time.monotonic for screen.py while a stream is replayed at DELTAS_PER_SECOND:
    each delta moves it on, so the REPL's own frame cap (_paint_if_due) decides which
    deltas get a frame, without a real wait."""

    def __init__(self):
        self.now = time.monotonic()  # after the screen's last frame, as in the REPL

    def monotonic(self) -> float:
        return self.now


def stream_capped(screen: TerminalScreen, events: List[dict]) -> None:
    """Each delta as it arrives from a fast model, and a frame when the cap allows one
    (what the REPL's loop does when it wakes up for the delta)."""
    clock, real_time = StreamClock(), screen_module.time
    screen_module.time = clock
    try:
        for event in events:
            clock.now += 1 / DELTAS_PER_SECOND
            screen.view(event)
            screen._paint_if_due()
    finally:
        screen_module.time = real_time


def with_scrollback(blocks: int) -> Tuple[TerminalScreen, MemoryTerminal]:
    """The REPL's screen after an earlier answer of `blocks` paragraphs was drawn (a
    hundred in each delta and frame, so that building it stays quick)."""
    screen, terminal = repl_screen(Renderer)
    for first in range(0, blocks, 100):
        text = "".join(f"Paragraph {n} of an earlier answer.\n\n"
                       for n in range(first, min(blocks, first + 100)))
        stream(screen, [{"type": "message_update",
                         "assistantMessageEvent": {"type": "text_delta", "delta": text}}])
    screen.view({"type": "message_update", "assistantMessageEvent": {"type": "text_end"}})
    screen.paint()
    terminal.frames.clear()
    return screen, terminal


def fastest_streams(preparers: List[Callable[[], Tuple[TerminalScreen, MemoryTerminal]]],
                    events: List[dict], streams=None) -> List[Tuple[float, List[str]]]:
    """For each preparer, the best of RUNS streams of `events`, each on a freshly
    prepared screen: CPU seconds per delta, and the frames written by its last run.
    CPU time, not the clock: other programs on a busy machine do not count; and the
    runs take turns, so that what is left of the noise touches all of them alike."""
    timings: List[List[float]] = [[] for _ in preparers]
    frames: List[List[str]] = [[] for _ in preparers]
    for _ in range(RUNS):
        for number, prepare in enumerate(preparers):
            screen, terminal = prepare()
            start = time.process_time()
            (streams[number] if streams else stream)(screen, events)
            timings[number].append(time.process_time() - start)
            frames[number] = terminal.frames
    return [(min(taken) / len(events), written) for taken, written in zip(timings, frames)]


def terminal_seconds(frames: List[str]) -> float:
    """The VT100 model's CPU time to draw `frames` (best of RUNS): the work left to the
    terminal."""
    timings = []
    for _ in range(RUNS):
        model = ScreenModel(COLUMNS, ROWS)
        start = time.process_time()
        for frame in frames:
            model.feed(frame)
        timings.append(time.process_time() - start)
    return min(timings)


def render_rows():
    events = text_deltas(long_answer(SECTIONS))
    count = len(events)
    (ours, our_frames), (naive, naive_frames) = fastest_streams(
        [lambda: repl_screen(Renderer), lambda: repl_screen(FullRedraw)], events)
    yield (f"frame per delta, CPU ({count:,} deltas of Markdown)", f"{ours * 1e6:.0f} us",
           f"full redraw {naive * 1e6:.0f} us", f"{naive / ours:.2f}x")
    our_bytes = sum(len(frame.encode()) for frame in our_frames) / count
    naive_bytes = sum(len(frame.encode()) for frame in naive_frames) / count
    yield ("frame per delta, bytes to the terminal", f"{our_bytes:.0f} B",
           f"full redraw {naive_bytes:.0f} B", f"{naive_bytes / our_bytes:.2f}x")
    our_vt, naive_vt = terminal_seconds(our_frames), terminal_seconds(naive_frames)
    yield ("frame per delta, the terminal's work (VT model)", f"{our_vt / count * 1e6:.0f} us",
           f"full redraw {naive_vt / count * 1e6:.0f} us", f"{naive_vt / our_vt:.2f}x")
    (capped, frames), (naive, _) = fastest_streams(
        [lambda: repl_screen(Renderer), lambda: repl_screen(FullRedraw)], events,
        streams=[stream_capped, stream])
    yield (f"per streamed delta, CPU, {DELTAS_PER_SECOND} deltas/s, {len(frames):,} frames",
           f"{capped * 1e6:.0f} us", f"full redraw per delta {naive * 1e6:.0f} us",
           f"{naive / capped:.2f}x (goal >= 5x)")


def frames_of(events: List[dict]) -> List[List[str]]:
    """The live lines the REPL's screen gives its renderer for each delta, in order."""
    screen, _ = repl_screen(Renderer)
    given: List[List[str]] = []
    screen.renderer.set_live = lambda lines, cursor=None: given.append(lines)
    screen.renderer.paint = lambda: None
    stream(screen, events)
    return given


def renderer_rows():
    """The renderer alone: the same live lines, frame after frame, painted by it and by
    the full redraw (what the REPL builds is the same for both, so it is left out)."""
    frames = frames_of(text_deltas(long_answer(SECTIONS)))
    timings = {Renderer: [], FullRedraw: []}
    for _ in range(RUNS):
        for kind in timings:
            painter = kind(MemoryTerminal().write, MemoryTerminal().size)
            start = time.process_time()
            for lines in frames:
                painter.set_live(lines)
                painter.paint()
            timings[kind].append((time.process_time() - start) / len(frames))
    ours, naive = min(timings[Renderer]), min(timings[FullRedraw])
    yield ("a frame's painting alone, CPU", f"{ours * 1e6:.0f} us",
           f"full redraw {naive * 1e6:.0f} us", f"{naive / ours:.2f}x")


def scrollback_rows():
    events = text_deltas(long_answer(SECTIONS // 2))
    (few, _), (many, _) = fastest_streams(
        [lambda: with_scrollback(100), lambda: with_scrollback(10_000)], events)
    yield ("frame per delta after 10,000 committed blocks", f"{many * 1e6:.0f} us",
           f"after 100: {few * 1e6:.0f} us", f"{many / few:.2f}x")


def open_block_rows():
    """A frame draws the end of the open block, at most the live area's rows, so its
    cost stops growing once the block is taller than the screen (a code fence ends only
    at its closing fence): the median CPU time of a frame (each delta's best of RUNS)
    in the last tenth of a 300-line fence against its first tenth."""
    code = "```python\n" + "".join(f"    value_{n} = compute(value_{n - 1}, step={n})\n"
                                    for n in range(1, 301)) + "```\n\n"
    runs = []
    for _ in range(RUNS):
        screen, _ = repl_screen(Renderer)
        runs.append([])
        for event in text_deltas(code):
            start = time.process_time()
            stream(screen, [event])
            runs[-1].append(time.process_time() - start)
    seconds = [min(taken) for taken in zip(*runs)]  # each delta's best of RUNS
    tenth = len(seconds) // 10
    first, last = median(seconds[:tenth]), median(seconds[-tenth:])  # spikes left out
    yield ("frame per delta, end of a 300-line open code fence", f"{last * 1e6:.0f} us",
           f"its first tenth: {first * 1e6:.0f} us", f"{last / first:.1f}x")


def long_block_rows():
    """Streaming stays linear in the text, however it is shaped: the CPU per character
    of a 20,000-row table (one paragraph that never ends) and of a list 3,000 levels
    deep (a block per line, no blank line between them), each against a tenth of it,
    streamed into the REPL's screen with its frame cap. Once, every line that ended had
    all of the open text parsed again: ten times the text was a hundred times the work."""
    shapes = (("a 20,000-row table", lambda rows: "| a | b |\n|---|---|\n" + "".join(
                   f"| row {n} | value {n} |\n" for n in range(rows)), 20_000),
              ("a list 3,000 levels deep", lambda levels: "".join(
                   "  " * level + f"- level {level}\n" for level in range(levels)), 3_000))
    for what, make, size in shapes:
        large, small = (seconds_per_character(make(count)) for count in (size, size // 10))
        yield (f"per character, streaming {what}", f"{large * 1e9:.0f} ns",
               f"a tenth of it {small * 1e9:.0f} ns", f"{large / small:.2f}x")


def seconds_per_character(text: str) -> float:
    """CPU seconds per character to stream `text` word by word into the REPL's screen at
    DELTAS_PER_SECOND (its frame cap deciding the frames), the end included."""
    screen, _ = repl_screen(Renderer)
    start = time.process_time()
    stream_capped(screen, text_deltas(text))
    stream(screen, [{"type": "message_update", "assistantMessageEvent": {"type": "text_end"}}])
    return (time.process_time() - start) / len(text)


def narrowing_rows():
    """The frame after the window narrows from COLUMNS to half of it, with an answer's
    open paragraph in the live area: its CPU (best of RUNS) and bytes."""
    measured = {}
    for blocks in (100, 1_000):
        timings = []
        for _ in range(RUNS):
            screen, terminal = with_scrollback(blocks)
            stream(screen, text_deltas("An open paragraph, " * 20))
            terminal.columns = COLUMNS // 2
            screen.renderer.invalidate()
            start = time.process_time()
            screen.paint()
            timings.append(time.process_time() - start)
        measured[blocks] = min(timings), len(terminal.frames[-1].encode())
    (few, few_bytes), (many, many_bytes) = measured[100], measured[1_000]
    yield ("frame after the window narrows, 1,000 committed blocks",
           f"{many * 1000:.1f} ms, {many_bytes / 1024:.0f} KB",
           f"after 100: {few * 1000:.1f} ms, {few_bytes / 1024:.0f} KB", f"{many / few:.1f}x")
    held = {"content": [{"type": "text", "text": "A paragraph held open. " * 20}],
            "fault": {"hold_after_pieces": 40}}
    home, cwd = tempfile.mkdtemp(prefix="miniagent-bench-"), tempfile.mkdtemp()
    latencies = []
    with FakeServer([held] * ABORTS) as server:
        args = ["--base-url", server.base_url + "/v1", "--model", "fake-model"]
        for _ in range(ABORTS):
            latencies.append(narrowing_latency(args, home, cwd, server))
    mean = sum(latencies) / len(latencies)
    yield (f"a narrowing mid-stream to a screen drawn for it (mean of {ABORTS})",
           f"{mean * 1000:.0f} ms", f"goal {STREAM_GOAL * 1000:.0f} ms",
           f"{mean / STREAM_GOAL:.2f}x of goal")


def narrowing_latency(args: List[str], home: str, cwd: str, server: FakeServer) -> float:
    """Seconds from a narrowing (COLUMNS to half) to every row drawn for the new width,
    in the REPL streaming an answer held open, on a screen that reflows."""
    half = COLUMNS // 2
    with Terminal(args, env={"MINIAGENT_HOME": home}, cwd=cwd, columns=COLUMNS, rows=ROWS,
                  reflow=True) as term:
        term.expect_screen("> ")
        term.send("go\r")
        term.expect_screen("held open. A paragraph")
        start = time.perf_counter()
        term.resize(half, ROWS)
        term.wait_screen(lambda vt: all(len(row) < half for row in vt.transcript().split("\n")))
        taken = time.perf_counter() - start
        server.go_on.set()
        term.expect_screen("cost unknown")  # the footer ("context" may wrap at 50 columns)
        server.go_on.clear()
        term.send("\x04")
        term.wait()
    return taken


# --- The frame cap, in the real REPL ---------------------------------------------------------

def moment(term: Terminal, text: str) -> Tuple[float, int]:
    """When `text` is first on the visible rows, and the frames counted by then (both
    taken by the reader thread as it draws, so the wait adds nothing)."""
    seen: List[Tuple[float, int]] = []

    def there(vt) -> bool:
        if not seen and any(text in line for line in vt.lines()):
            seen.append((time.perf_counter(), vt.frames))
        return bool(seen)
    term.wait_screen(there, timeout=120)
    return seen[0]


def frame_rate_rows():
    home, cwd = tempfile.mkdtemp(prefix="miniagent-bench-"), tempfile.mkdtemp()
    text = long_answer(2 * SECTIONS)  # about 3 s of a reply, with a delta every ms
    script = write_script(cwd, [{"delayMs": 1, "content": [{"type": "text", "text": text}]}])
    with Terminal(["--provider", "scripted", "--script", script],
                  env={"MINIAGENT_HOME": home}, cwd=cwd, columns=COLUMNS, rows=ROWS) as term:
        term.expect_screen("> ")
        term.send("go\r")
        first_at, first_frames = moment(term, "Step 1: read")
        last_at, last_frames = moment(term, FOOTER)
        term.send("\x04")
        term.wait()
    seconds = last_at - first_at
    per_second = (last_frames - first_frames) / seconds
    deltas = len(text_deltas(text))
    yield (f"frames/s, REPL streaming {deltas:,} deltas in {seconds:.1f} s",
           f"{per_second:.1f} /s", f"goal {FRAME_GOAL} /s",
           f"{per_second / FRAME_GOAL:.2f}x of goal")


def rows():
    yield from abort_rows()
    yield from render_rows()
    yield from renderer_rows()
    yield from scrollback_rows()
    yield from open_block_rows()
    yield from long_block_rows()
    yield from narrowing_rows()
    yield from frame_rate_rows()


if __name__ == "__main__":
    for row in rows():
        print(*row, sep="  |  ")
