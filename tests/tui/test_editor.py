"""The editor: keys in, text, cursor and screen rows out."""

from miniagent.tui.editor import DRAWN_LINES, Editor
from miniagent.tui.history import History
from miniagent.tui.keys import Key
from miniagent.tui.menu import MAX_ROWS, Completion
from miniagent.tui.style import Style
from miniagent.tui.width import text_width

PLAIN = Style(False)


def press(editor, *keys):
    """Feed keys; a plain string types its characters."""
    used = []
    for key in keys:
        if isinstance(key, str):
            used += [editor.handle(Key("char", char)) for char in key]
        else:
            used.append(editor.handle(key))
    return used


def ctrl(letter):
    return Key(letter, ctrl=True)


def editor_with(text, **kwargs):
    editor = Editor(PLAIN, **kwargs)
    editor.set_text(text)
    return editor


def test_typing_and_moving_edit_at_the_cursor():
    editor = Editor(PLAIN)
    press(editor, "helo", Key("left"), "l", Key("end"), "!", Key("home"), ">")
    assert editor.text == ">hello!"
    assert editor.cursor == (0, 1)
    press(editor, Key("backspace"), Key("delete"))
    assert editor.text == "ello!"
    press(editor, ctrl("e"), Key("left"), ctrl("k"))
    assert editor.text == "ello"
    press(editor, ctrl("a"), Key("right"), ctrl("u"))
    assert editor.text == "llo"


def test_words_move_and_delete_stopping_at_punctuation():
    editor = editor_with("open src/app.py now")
    press(editor, Key("left", ctrl=True))
    assert editor.cursor == (0, 16)
    press(editor, Key("char", "b", alt=True), Key("b", alt=True))
    assert editor.cursor == (0, 9)
    press(editor, Key("f", alt=True))
    assert editor.cursor == (0, 12)
    press(editor, Key("end"), ctrl("w"), Key("backspace", alt=True))
    assert editor.text == "open src/app."
    assert editor.is_empty() is False


def test_alt_letters_are_not_typed():
    editor = Editor(PLAIN)
    press(editor, "ab", Key("char", "x", alt=True))
    assert editor.text == "ab"


def test_ctrl_j_and_shift_enter_make_lines_and_arrows_cross_them():
    editor = Editor(PLAIN)
    press(editor, "one", ctrl("j"), "two", Key("enter", shift=True), "3")
    assert editor.lines == ["one", "two", "3"]
    press(editor, Key("up"))
    assert editor.cursor == (1, 1)
    press(editor, Key("up"), Key("end"), Key("right"))
    assert editor.cursor == (1, 0)  # Right at a line's end goes to the next line
    press(editor, Key("backspace"))  # at a line's start: joins it to the one above
    assert (editor.text, editor.cursor) == ("onetwo\n3", (0, 3))
    press(editor, ctrl("a"), Key("delete"))
    assert editor.text == "netwo\n3"
    press(editor, ctrl("e"), ctrl("k"))  # at the line's end Ctrl-K joins the next line
    assert editor.text == "netwo3"


def test_plain_enter_is_left_to_the_caller_but_continues_after_a_backslash():
    editor = Editor(PLAIN)
    press(editor, "first \\")
    assert editor.enter_continues()
    assert editor.handle(Key("enter")) is True
    assert editor.text == "first \n"
    press(editor, "second")
    assert editor.enter_continues() is False
    assert editor.handle(Key("enter")) is False
    assert editor.handle(Key("escape")) is False
    assert editor.handle(ctrl("c")) is False
    assert editor.handle(Key("enter", alt=True)) is False
    assert editor.text == "first \nsecond"


def test_a_paste_is_inserted_whole_with_its_lines():
    editor = editor_with("see: ")
    assert editor.handle(Key("paste", "a\r\nb\n\x1b[31mc"))
    assert editor.text == "see: a\nb\n[31mc"  # no escape code gets into the text
    assert editor.cursor == (2, 5)


def test_submit_returns_the_text_clears_and_remembers_it_once():
    history = History(None)
    editor = Editor(PLAIN, history=history)
    press(editor, "hi")
    assert editor.submit() == "hi"
    assert editor.is_empty()
    press(editor, "hi")
    editor.submit()
    press(editor, "3")
    editor.submit(remember=False)
    press(editor, "  ")
    editor.submit()
    assert history.entries == ["hi"]


def test_history_brings_back_whole_entries_and_then_the_draft():
    history = History(None)
    editor = Editor(PLAIN, history=history)
    for text in ("first", "two\nlines"):
        editor.set_text(text)
        editor.submit()
    press(editor, "dra", Key("left"))
    press(editor, Key("up"))
    assert editor.text == "two\nlines"
    assert editor.cursor == (1, 5)
    press(editor, Key("up"))  # inside the entry: to its first line
    assert (editor.text, editor.cursor) == ("two\nlines", (0, 3))
    press(editor, Key("up"))
    assert editor.text == "first"
    assert editor.handle(Key("up")) is False  # the oldest: nothing further
    press(editor, Key("down"))
    assert editor.text == "two\nlines"
    press(editor, Key("down"))
    assert editor.text == "dra"
    assert editor.handle(Key("down")) is False


def test_render_puts_the_prompt_first_and_the_continuation_after():
    editor = editor_with("one\ntwo", prompt="> ", continuation="· ")
    assert editor.render(40) == (["> one", "· two"], 1, 5)
    coloured = Editor(Style(True))
    coloured.set_text("x")
    rows, _, _ = coloured.render(40)
    assert rows == ["\x1b[1;36m> \x1b[0mx"]


def test_a_long_line_wraps_by_cells_and_a_wide_character_moves_whole():
    editor = editor_with("abcdefgh日ij")  # width 10: 9 cells, 7 after the prompt
    rows, row, column = editor.render(10)
    assert rows == ["> abcdefg", "  h日ij"]
    assert (row, column) == (1, 7)
    press(editor, Key("left"), Key("left"))  # the cursor before "i", after "日"
    assert editor.render(10)[1:] == (1, 5)
    editor.set_text("abcdef日")  # "日" needs 2 cells where only 1 is left
    assert editor.render(10)[0] == ["> abcdef", "  日"]


def test_a_cursor_after_a_full_row_starts_the_next_row():
    editor = editor_with("abcdefg")
    assert editor.render(10) == (["> abcdefg", "  "], 1, 2)
    press(editor, Key("left"))
    assert editor.render(10) == (["> abcdefg"], 0, 8)


def test_rows_are_never_wider_than_the_width_minus_one():
    editor = Editor(PLAIN, completer=lambda before: Completion(0, [
        (f"/command{n}", "help " * 30) for n in range(12)]))
    editor.set_text("日本語のテキスト" * 5 + "\nplain words " * 8 + "\n\tindented")
    for width in (5, 10, 17, 40):
        rows, row, column = editor.render(width)
        assert all(text_width(line) <= width - 1 for line in rows), width
        assert column < width - 1  # never in the last column
    press(editor, Key("tab"))
    rows, _, _ = editor.render(30)
    assert len(rows) > 8 and all(text_width(line) <= 29 for line in rows)


def commands_completer(before):
    names = [("/help", "list the commands"), ("/session", "the session's file"),
             ("/search", "find words"), ("/skill:review", "review a change")]
    if not before.startswith("/"):
        return None
    return Completion(0, [item for item in names if item[0].startswith(before)])


def test_tab_with_one_choice_applies_it():
    editor = editor_with("/he", completer=commands_completer)
    assert editor.handle(Key("tab"))
    assert editor.text == "/help"
    assert editor.render(40)[0] == ["> /help"]


def test_tab_with_nothing_to_offer_changes_nothing():
    editor = editor_with("hello", completer=commands_completer)
    assert editor.handle(Key("tab"))
    assert editor.text == "hello" and editor.menu is None
    assert Editor(PLAIN).handle(Key("tab")) is False  # no completer: the caller's key


def test_the_menu_opens_with_the_common_start_cycles_and_enter_applies_it():
    editor = editor_with("/s", completer=commands_completer)
    press(editor, Key("tab"))
    assert editor.text == "/s"  # "/session", "/search", "/skill:review" share only "/s"
    rows, row, column = editor.render(40)
    assert rows == ["> /s", "> /session       the session's file",
                    "  /search        find words", "  /skill:review  review a change"]
    assert (row, column) == (0, 4)
    press(editor, Key("tab"), Key("down"), Key("tab"), Key("up"), Key("tab", shift=True))
    assert editor.render(40)[0][2].startswith("> /search")
    assert editor.handle(Key("enter")) is True  # Enter took the choice: nothing is sent
    assert editor.text == "/search"
    assert editor.menu is None
    assert editor.handle(Key("enter")) is False  # now Enter is the caller's again


def test_the_common_start_of_several_choices_is_put_in():
    editor = editor_with("/se", completer=commands_completer)
    press(editor, Key("tab"))
    assert editor.text == "/se"
    editor.set_text("/sk")
    editor.completer = lambda before: Completion(0, [("/skill:a", ""), ("/skill:b", "")])
    press(editor, Key("tab"))
    assert editor.text == "/skill:"
    assert editor.menu is not None


def test_escape_closes_the_menu_and_other_keys_close_it_and_act():
    editor = editor_with("/s", completer=commands_completer)
    press(editor, Key("tab"))
    assert editor.handle(Key("escape")) is True
    assert editor.render(40)[0] == ["> /s"]
    press(editor, Key("tab"), Key("left"))
    assert editor.menu is None and editor.cursor == (0, 1)


def test_typing_with_the_menu_open_narrows_it():
    editor = editor_with("/s", completer=commands_completer)
    press(editor, Key("tab"), "e", "a")
    rows, _, _ = editor.render(40)
    assert rows == ["> /sea", "> /search  find words"]
    press(editor, "x")
    assert editor.render(40)[0] == ["> /seax"]


def test_a_long_menu_scrolls_to_keep_the_selection_in_view():
    items = [(f"file{n:02}", "") for n in range(20)]
    editor = editor_with("@f", completer=lambda before: Completion(1, items))
    press(editor, Key("tab"))
    assert len(editor.render(40)[0]) == 1 + MAX_ROWS
    for _ in range(10):
        press(editor, Key("tab"))
    rows = editor.render(40)[0]
    assert len(rows) == 1 + MAX_ROWS
    assert rows[-1] == "> file10" and rows[1] == "  file03"
    press(editor, *[Key("up")] * 10)
    assert editor.render(40)[0][1] == "> file00"
    press(editor, Key("up"))  # round to the last
    assert editor.render(40)[0][-1] == "> file19"
    press(editor, Key("enter"))
    assert editor.text == "@file19"


def test_the_selected_row_is_inverse_with_colour():
    editor = Editor(Style(True), completer=commands_completer)
    editor.set_text("/s")
    press(editor, Key("tab"))
    rows, _, _ = editor.render(40)
    assert rows[1].startswith("\x1b[7;1m> /session")
    assert rows[2] == "  /search        \x1b[2mfind words\x1b[0m"


def test_a_submitted_multi_line_input_comes_back_whole_in_the_next_run(tmp_path):
    path = str(tmp_path / "history.jsonl")
    editor = Editor(PLAIN, history=History(path))
    press(editor, "fix", ctrl("j"), "this")
    editor.submit()
    history = History(path)
    history.load()
    later = Editor(PLAIN, history=history)
    press(later, Key("up"))
    assert later.lines == ["fix", "this"]


def test_a_huge_text_is_drawn_around_the_cursor_with_counts_and_kept_whole():
    editor = Editor(PLAIN)  # a paste is a marker; a huge history entry is the text
    text = "\n".join(f"line {n}" for n in range(20_000))
    editor.set_text(text)
    rows, row, column = editor.render(80)
    assert rows[0] == "  … 19800 lines above" and rows[-1] == "· line 19999"
    assert len(rows) == DRAWN_LINES + 1 and (row, column) == (len(rows) - 1, len("· line 19999"))
    editor.handle(Key("up"))
    rows, row, _ = editor.render(80)
    assert rows[row].startswith("· line 19998")
    assert editor.text == text  # what is sent is the whole text


def paste(text):
    return Key("paste", text=text)


def test_a_large_paste_shows_a_marker_and_submit_sends_the_whole_text():
    editor = Editor(PLAIN, history=History(None))
    big = "\n".join(f"row {n}" for n in range(200))
    press(editor, "look: ", paste(big), " why?")
    assert editor.text == "look: [paste #1 +200 lines] why?"
    rows, _, _ = editor.render(80)
    assert rows == ["> look: [paste #1 +200 lines] why?"]
    assert editor.submit() == f"look: {big} why?"
    assert editor.is_empty()


def test_backspace_after_a_marker_deletes_it_whole_and_a_small_paste_goes_in_as_is():
    editor = Editor(PLAIN)
    press(editor, paste("x" * 1500), paste("a\nb"))
    assert editor.text == "[paste #1 1500 chars]a\nb"
    press(editor, Key("backspace"), Key("backspace"), Key("backspace"))
    assert editor.text == "[paste #1 1500 chars]"
    press(editor, Key("backspace"))
    assert editor.text == ""


def test_ctrl_c_s_clear_forgets_the_pastes_and_the_on_paste_hook_sees_the_paste_first():
    editor = Editor(PLAIN, on_paste=lambda text: text.upper())
    press(editor, paste("abc"), paste("q\n" * 20))
    assert editor.text == "ABC[paste #1 +21 lines]"
    editor.clear()
    press(editor, "[paste #1 +21 lines]")
    assert editor.submit() == "[paste #1 +21 lines]"  # typed, not a paste: as typed
