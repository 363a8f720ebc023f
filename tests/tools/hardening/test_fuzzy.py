"""fuzzy: edit's normalised matching (docs/decisions.md D9): the look-alikes a model may type
instead of the file's characters, and that only the matched region changes."""

import threading

import pytest

from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.tools import create_tools
from miniagent.tools.hardening import fuzzy as fuzzy_module
from helpers import run_edit as edit, one_edit as one, make_file as make


@pytest.mark.parametrize("content, old, new, expected", [
    ("line one   \nline two  \nline three\n", "line one\nline two\n", "replaced\n",
     "replaced\nline three\n"),
    ("你好，世界\n你好（世界）\n", "你好,世界\n你好(世界)\n", "new\n", "new\n"),
    ("ＡＢＣ１２３\ncafe\u0301\n", "ABC123\ncafé\n", "new\n", "new\n"),
    ("say \u2018hi\u2019 and \u201cbye\u201d\n", "say 'hi' and \"bye\"", "x", "x\n"),
    ("a \u2013 b \u2014 c\n", "a - b - c", "x", "x\n"),
    ("a\u00a0b\n", "a b", "x", "x\n"),
], ids=["trailing_spaces_ignored", "fullwidth_punctuation_as_ascii",
        "fullwidth_letters_and_combining_accents_as_composed", "smart_quotes_as_plain_quotes",
        "en_and_em_dashes_as_hyphens", "no_break_space_as_space"])
def test_edit_matches(tmp_path, content, old, new, expected):
    path = make(tmp_path, content)
    edit(tmp_path, "f.txt", one(old, new))
    assert path.read_text() == expected


def test_normalised_match_leaves_every_other_byte_alone(tmp_path):
    before = ("head \u201ckeep\u201d\t  \r\n"
              "target \u2018x\u2019 \u2013 y   \r\n"
              "tail\u00a0space  \r\nlast")
    path = make(tmp_path, before)
    edit(tmp_path, "f.txt", one("target 'x' - y\n", "changed\n"))
    assert path.read_bytes().decode() == before.replace(
        "target \u2018x\u2019 \u2013 y   \r\n", "changed\r\n")


def test_normalised_match_keeps_the_rest_of_the_line(tmp_path):
    # pi rewrote the whole file normalised here ("Q trailing\nend"); D9 does not.
    path = make(tmp_path, "a\u2019b trailing   \nend")
    edit(tmp_path, "f.txt", one("a'b", "Q"))
    assert path.read_text() == "Q trailing   \nend"


def test_normalised_match_inside_a_line(tmp_path):
    path = make(tmp_path, "call(\u201ca\u201d, \u201cb\u201d)  # note  \n")
    edit(tmp_path, "f.txt", one('"b"', '"c"'))
    assert path.read_text() == "call(\u201ca\u201d, \"c\")  # note  \n"


def test_abort_stops_normalising_a_big_file(tmp_path, monkeypatch):
    # Normalising every line is the slow step of an edit of a big file (about 20 s for
    # 80 MB of accented text). Abort is set from another thread once it has begun; the
    # normaliser waits for that, since a busy thread can starve another of the GIL.
    lines = 1_000_000
    path = make(tmp_path, "x = 1\n" * lines + "end\n")
    abort, normalising = threading.Event(), threading.Event()
    normalise_line, calls = fuzzy_module.normalise_line, []

    def counting_normalise_line(line):
        calls.append(None)
        if len(calls) == 1:
            normalising.set()
            assert abort.wait(10)
        return normalise_line(line)

    monkeypatch.setattr(fuzzy_module, "normalise_line", counting_normalise_line)
    aborter = threading.Thread(target=lambda: normalising.wait(10) and abort.set())
    aborter.start()
    tool = create_tools(["edit"])[0]
    arguments = validate_arguments(tool, {"path": "f.txt", "edits": one("end", "END")})
    with pytest.raises(ToolError, match="Operation aborted"):
        tool.execute("c", arguments, ToolContext(cwd=str(tmp_path), abort=abort))
    aborter.join()
    assert len(calls) < lines // 100  # stopped early, not after every line
    assert path.read_text().endswith("end\n")  # nothing written
