"""The key decoder: the keys a caller gets for the bytes a terminal sends."""

import time

import pytest

from miniagent.tui.keys import Key, KeyDecoder


def decode(data: bytes):
    """All the keys in `data`, as if it came in one read and then nothing more."""
    decoder = KeyDecoder()
    keys = decoder.feed(data)
    return keys + decoder.flush()


def decode_byte_by_byte(data: bytes):
    decoder = KeyDecoder()
    keys = []
    for index in range(len(data)):
        keys += decoder.feed(data[index:index + 1])
    return keys + decoder.flush()


def char(text, **modifiers):
    return Key("char", text=text, **modifiers)


ENCODINGS = [
    (b"a", [char("a")]),
    (b"Z~ ", [char("Z"), char("~"), char(" ")]),
    (b"\r", [Key("enter")]),
    (b"\n", [Key("j", ctrl=True)]),
    (b"\t", [Key("tab")]),
    (b"\x1b[Z", [Key("tab", shift=True)]),
    (b"\x7f", [Key("backspace")]),
    (b"\x08", [Key("backspace")]),
    (b"\x1b\x7f", [Key("backspace", alt=True)]),
    (b"\x01", [Key("a", ctrl=True)]),
    (b"\x03", [Key("c", ctrl=True)]),
    (b"\x1a", [Key("z", ctrl=True)]),
    (b"\x1bx", [char("x", alt=True)]),
    (b"\x1b\r", [Key("enter", alt=True)]),
    (b"\x1b\xc3\xa9", [char("é", alt=True)]),
    (b"\x1b[A\x1b[B\x1b[C\x1b[D", [Key("up"), Key("down"), Key("right"), Key("left")]),
    (b"\x1bOA\x1bOB\x1bOC\x1bOD", [Key("up"), Key("down"), Key("right"), Key("left")]),
    (b"\x1b[1;2A", [Key("up", shift=True)]),
    (b"\x1b[1;3B", [Key("down", alt=True)]),
    (b"\x1b[1;5C", [Key("right", ctrl=True)]),
    (b"\x1b[1;6D", [Key("left", ctrl=True, shift=True)]),
    (b"\x1b[1;8A", [Key("up", ctrl=True, alt=True, shift=True)]),
    (b"\x1b[H\x1bOH\x1b[1~\x1b[7~", [Key("home")] * 4),
    (b"\x1b[F\x1bOF\x1b[4~\x1b[8~", [Key("end")] * 4),
    (b"\x1b[1;5H", [Key("home", ctrl=True)]),
    (b"\x1b[2~", [Key("insert")]),
    (b"\x1b[3~", [Key("delete")]),
    (b"\x1b[3;5~", [Key("delete", ctrl=True)]),
    (b"\x1b[5~\x1b[6~", [Key("pageup"), Key("pagedown")]),
    (b"\x1bOP\x1bOQ\x1bOR\x1bOS", [Key("f1"), Key("f2"), Key("f3"), Key("f4")]),
    (b"\x1b[11~\x1b[12~\x1b[13~\x1b[14~", [Key("f1"), Key("f2"), Key("f3"), Key("f4")]),
    (b"\x1b[15~\x1b[17~\x1b[18~\x1b[19~\x1b[20~\x1b[21~\x1b[23~\x1b[24~",
     [Key(f"f{n}") for n in range(5, 13)]),
    (b"\x1b[1;2P", [Key("f1", shift=True)]),
    (b"\x1b[15;5~", [Key("f5", ctrl=True)]),
    (b"\x1b[13;2u", [Key("enter", shift=True)]),
    (b"\x1b[13;3u", [Key("enter", alt=True)]),
    (b"\x1b[13u", [Key("enter")]),
    (b"\x1b[9;5u", [Key("tab", ctrl=True)]),
    (b"\x1b[27u", [Key("escape")]),
    (b"\x1b[127;3u", [Key("backspace", alt=True)]),
    (b"\x1b[97;5u", [Key("a", ctrl=True)]),
    (b"\x1b[27;2;13~", [Key("enter", shift=True)]),
    (b"\x1b[27;5;13~", [Key("enter", ctrl=True)]),
    (b"\x1b[27;5;97~", [Key("a", ctrl=True)]),
    (b"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80", [char("é"), char("日"), char("😀")]),
]


@pytest.mark.parametrize("data, keys", ENCODINGS, ids=[repr(data) for data, _ in ENCODINGS])
def test_each_encoding_decodes_to_its_keys(data, keys):
    assert decode(data) == keys


@pytest.mark.parametrize("data, keys", ENCODINGS, ids=[repr(data) for data, _ in ENCODINGS])
def test_the_same_keys_when_the_bytes_come_one_at_a_time(data, keys):
    assert decode_byte_by_byte(data) == keys


SEQUENCES = b"x\x1b[1;5A\xe6\x97\xa5\x1b[3;5~\x1bOP\x1b[13;2u\x1b[200~p\x1b[201~\x1bq"


@pytest.mark.parametrize("cut", range(1, len(SEQUENCES)))
def test_a_read_may_end_at_any_byte(cut):
    decoder = KeyDecoder()
    keys = decoder.feed(SEQUENCES[:cut]) + decoder.feed(SEQUENCES[cut:]) + decoder.flush()
    assert keys == [char("x"), Key("up", ctrl=True), char("日"), Key("delete", ctrl=True),
                    Key("f1"), Key("enter", shift=True), Key("paste", text="p"),
                    char("q", alt=True)]


def test_a_utf8_character_split_across_reads_waits_for_its_last_byte():
    decoder = KeyDecoder()
    assert decoder.feed(b"a\xe6\x97") == [char("a")]
    assert not decoder.waiting()  # only an Esc waits: the rest of a character just comes
    assert decoder.feed(b"\xa5b") == [char("日"), char("b")]


def test_a_broken_utf8_byte_is_a_replacement_character_not_a_lost_key():
    assert decode(b"\xffa\xc3b") == [char("\ufffd"), char("a"), char("\ufffd"), char("b")]


def test_a_lone_esc_waits_then_flushes_as_the_escape_key():
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.waiting()
    assert decoder.flush() == [Key("escape")]
    assert not decoder.waiting()


def test_esc_followed_in_time_by_the_rest_of_a_sequence_is_that_key():
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b") == []
    assert decoder.feed(b"[") == []
    assert decoder.waiting()  # ESC plus part of a sequence waits too
    assert decoder.feed(b"A") == [Key("up")]
    assert not decoder.waiting()


@pytest.mark.parametrize("data", [b"a", b"\r", b"\x1b[A", b"\x1bx", b"\xe6\x97", b"\x1b[200~\x1b"])
def test_a_buffer_that_does_not_end_in_esc_never_waits(data):
    decoder = KeyDecoder()
    decoder.feed(data)
    assert not decoder.waiting()


def test_an_unfinished_sequence_flushes_as_the_keys_it_was_typed_with():
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[1;") == []
    assert decoder.waiting()
    assert decoder.flush() == [char("[", alt=True), char("1"), char(";")]
    decoder.feed(b"\x1bO")
    assert decoder.flush() == [char("O", alt=True)]


def test_esc_twice_is_two_escape_keys():
    assert decode(b"\x1b\x1b") == [Key("escape"), Key("escape")]
    assert decode(b"\x1b\x1b[A") == [Key("escape"), Key("up")]


def test_unknown_sequences_are_dropped_whole_never_shown_as_text():
    unknown = b"\x1b[?1u\x1b[I\x1b[O\x1b[>1;2c\x1b[99~\x1b[1;2E\x1bOx\x1b[<0;3;4M\x1b[201~"
    assert decode(b"a" + unknown + b"b") == [char("a"), char("b")]


def test_dropped_control_bytes_are_no_keys():
    assert decode(b"\x00\x1c\x1d\x1e\x1fa") == [char("a")]


def test_a_paste_is_one_key_with_no_key_decoded_inside():
    pasted = b"line one\r\nline \x1b[A two\rthree\n\x03\x1b"
    assert decode(b"\x1b[200~" + pasted + b"\x1b[201~\r") == [
        Key("paste", text="line one\nline \x1b[A two\nthree\n\x03\x1b"), Key("enter")]


def test_a_paste_cut_between_reads_waits_for_its_end_marker_without_waiting_on_esc():
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[200~abc\x1b") == []
    assert not decoder.waiting()  # the Esc is pasted text, not a key to tell apart
    assert decoder.flush() == []  # a flush does not end a paste
    assert decoder.feed(b"[20") == []
    assert decoder.feed(b"1~x") == [Key("paste", text="abc"), char("x")]


def test_a_paste_of_utf8_cut_inside_a_character_is_whole():
    decoder = KeyDecoder()
    keys = decoder.feed(b"\x1b[200~\xe6\x97") + decoder.feed(b"\xa5\x1b[201~")
    assert keys == [Key("paste", text="日")]


def test_a_one_megabyte_paste_in_4k_reads_is_one_key_and_fast():
    line = "0123456789 abcdef \x1b é 日本\r\n"
    text = line * (1_000_000 // len(line.encode()))
    data = b"\x1b[200~" + text.encode() + b"\x1b[201~"
    decoder = KeyDecoder()
    keys = []
    started = time.perf_counter()
    for offset in range(0, len(data), 4096):
        keys += decoder.feed(data[offset:offset + 4096])
    elapsed = time.perf_counter() - started
    assert keys == [Key("paste", text=text.replace("\r\n", "\n"))]
    assert elapsed < 0.5


def test_a_paste_whose_end_marker_never_comes_is_ended_and_later_keys_are_keys():
    decoder = KeyDecoder()
    assert decoder.feed(b"\x1b[200~half a paste") == [] and decoder.pasting()
    assert decoder.end_paste() == [Key("paste", text="half a paste")]
    assert not decoder.pasting() and decoder.feed(b"x\r") == [Key("char", text="x"),
                                                              Key("enter")]
