"""tui: a small terminal user interface library, standard library only.

How does a program draw a live screen in a terminal without flicker and without
losing the user's scrollback? This package is the answer miniagent uses, in a few
files that import nothing of the agent (so they can be read, and reused, alone):

    terminal.py   the keyboard in "raw" mode: one key at a time, no echo, Ctrl-C and
                  Ctrl-Z still signals; put back as it was on every way out
    keys.py       bytes to keys: arrows, Alt and Ctrl, Esc told from escape sequences,
                  UTF-8 split across reads, bracketed paste
    width.py      how many columns a piece of text takes (wide CJK, combining marks,
                  colour codes that take none), cutting and wrapping to a width
    style.py      colours and bold as escape codes, or none at all (NO_COLOR)
    renderer.py   the live area at the bottom: finished lines are printed once into
                  the scrollback; only the lines of the live area that changed are
                  repainted
    editor.py     a multi-line input editor with history and a completion menu
    paste.py      a large paste as a marker in the editor, sent whole
    history.py    the inputs typed before, whole, in a JSON Lines file
    menu.py       the completion menu: the choices under the input, scrolled
    picker.py     choosing one row of a list: type to filter, arrows, Enter, Esc
    markdown.py   Markdown to terminal lines (the HTML export reuses its block parser)
    table.py      a Markdown table aligned in a box
    markdown_stream.py  a streamed answer, committed block by block, in linear time
    diff_view.py  a unified diff, coloured, its changed words marked
    spinner.py    the status line: a spinner, what runs, for how long

This is pi's "regular" mode (pi-tui's `tuiMode: regular`): the terminal keeps its own
scrollback and the program owns only the bottom few lines. pi 1.6 also has a
fullscreen mode (the alternate screen, its own scrolling); that is left out here.
"""
