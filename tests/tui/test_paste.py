"""Large pastes: a marker in the editor, the whole text on submit."""

from miniagent.tui.paste import Pastes

BIG = "\n".join(f"line {n}" for n in range(1, 201))  # 200 lines


def test_a_paste_of_more_than_ten_lines_becomes_a_marker_and_expands_back():
    pastes = Pastes()
    assert pastes.collapse(BIG) == "[paste #1 +200 lines]"
    assert pastes.expand("why? [paste #1 +200 lines] thanks") == f"why? {BIG} thanks"


def test_a_paste_of_more_than_a_thousand_characters_is_counted_in_characters():
    pastes = Pastes()
    assert pastes.collapse("x" * 1001) == "[paste #1 1001 chars]"
    assert pastes.collapse("y" * 1000) == "y" * 1000  # the limits are pi's: more than
    assert pastes.collapse("a\n" * 9 + "a") == "a\n" * 9 + "a"  # ten lines is no paste


def test_markers_are_numbered_and_the_numbering_starts_again_once_all_are_sent():
    pastes = Pastes()
    first, second = pastes.collapse(BIG), pastes.collapse("z" * 2000)
    assert (first, second) == ("[paste #1 +200 lines]", "[paste #2 2000 chars]")
    assert pastes.expand(f"{second}{first}") == "z" * 2000 + BIG
    assert pastes.collapse(BIG) == "[paste #1 +200 lines]"


def test_a_marker_changed_by_hand_or_never_pasted_goes_as_typed():
    pastes = Pastes()
    pastes.collapse(BIG)
    assert pastes.expand("[paste #1 +200 line] [paste #7 +12 lines]") == \
        "[paste #1 +200 line] [paste #7 +12 lines]"


def test_the_start_of_a_marker_that_ends_the_text_for_backspace():
    pastes = Pastes()
    marker = pastes.collapse(BIG)
    assert pastes.marker_start("see " + marker) == 4
    assert pastes.marker_start("see " + marker + " ") == -1
    assert pastes.marker_start("see [paste #2 +200 lines]") == -1  # not a kept paste
    pastes.forget()
    assert pastes.marker_start("see " + marker) == -1
