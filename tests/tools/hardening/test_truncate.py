"""Truncation: pi's truncation cases, checked on our functions."""

import pytest

from miniagent.tools.hardening.truncate import (cap_listing, format_size, parse_limit, printable,
                                      truncate_head, truncate_line, truncate_tail)


@pytest.mark.ex_truncate
def test_head_untouched_when_within_limits():
    result = truncate_head("a\nb\n")
    assert result.content == "a\nb\n"
    assert not result.truncated and result.truncated_by is None
    assert (result.total_lines, result.output_lines, result.total_bytes) == (3, 3, 4)


@pytest.mark.ex_truncate
def test_head_by_lines():
    result = truncate_head("a\nb\nc", max_lines=2)
    assert result.content == "a\nb"
    assert result.truncated_by == "lines"
    assert (result.total_lines, result.output_lines, result.output_bytes) == (3, 2, 3)


@pytest.mark.ex_truncate
def test_head_by_bytes_keeps_whole_lines():
    result = truncate_head("abc\ndef\ng", max_bytes=5)
    assert result.content == "abc"
    assert result.truncated_by == "bytes"
    assert result.output_lines == 1


@pytest.mark.ex_truncate
def test_head_first_line_over_the_limit():
    result = truncate_head("x" * 60000)
    assert result.content == ""
    assert result.first_line_exceeds_limit
    assert result.truncated_by == "bytes" and result.output_lines == 0


@pytest.mark.ex_truncate
def test_head_counts_utf8_bytes_not_characters():
    result = truncate_head("é" * 3 + "\n" + "é", max_bytes=6)
    assert result.content == "ééé"
    assert result.output_bytes == 6


@pytest.mark.ex_truncate
def test_tail_by_lines():
    result = truncate_tail("a\nb\nc", max_lines=2)
    assert result.content == "b\nc"
    assert result.truncated_by == "lines"


@pytest.mark.ex_truncate
def test_tail_partial_last_line():
    result = truncate_tail("x" * 100, max_bytes=10)
    assert result.content == "x" * 10
    assert result.last_line_partial
    assert truncate_tail("x" * 100 + "\n", max_bytes=10).content == "x" * 9 + "\n"


@pytest.mark.ex_truncate
def test_tail_never_cuts_a_character():
    assert truncate_tail("é" * 10, max_bytes=5).content == "éé"
    assert truncate_tail("a\n" + "日本語" * 5, max_bytes=7).content == "本語"


@pytest.mark.ex_truncate
def test_tail_counts_utf8_bytes_and_the_newlines_between_lines():
    result = truncate_tail("é\né\né", max_bytes=5)  # 2 + 1 + 2 bytes fit; 8 do not
    assert result.content == "é\né" and result.truncated_by == "bytes"
    assert (result.total_lines, result.total_bytes, result.output_lines, result.output_bytes) == \
        (3, 8, 2, 5)


def test_format_size_rounds_half_up():
    assert [format_size(n) for n in (1023, 1024, 1280, 51200, 60000, 1048576)] == \
        ["1023B", "1.0KB", "1.3KB", "50.0KB", "58.6KB", "1.0MB"]


def test_truncate_line():
    assert truncate_line("x" * 500) == "x" * 500
    assert truncate_line("x" * 501) == "x" * 500 + "... [truncated]"


@pytest.mark.ex_truncate
def test_details_use_camel_case_keys():
    details = truncate_head("a\nb\nc", max_lines=2).to_details()
    assert details == {"truncated": True, "truncatedBy": "lines", "totalLines": 3,
                       "totalBytes": 5, "outputLines": 2, "outputBytes": 3,
                       "lastLinePartial": False, "firstLineExceedsLimit": False,
                       "maxLines": 2, "maxBytes": 51200}


def test_cap_listing_adds_notices_and_the_byte_cap():
    assert cap_listing(["a", "b"], [], {}) == ("a\nb", None)
    text, details = cap_listing(["a"], ["one", "two"], {"k": 1})
    assert text == "a\n\n[one. two]" and details == {"k": 1}
    text, details = cap_listing(["y" * 1000] * 100, [], {})
    assert len(text.encode()) < 51200 + 200
    assert "50.0KB" in text and details["truncation"]["truncatedBy"] == "bytes"


def test_printable_replaces_undecodable_bytes():
    name = b"caf\xe9.txt".decode("utf-8", errors="surrogateescape")
    assert printable(name) == "caf\ufffd.txt" and printable("plain é") == "plain é"
    assert cap_listing([name], [f"e.g. {name}"], {}) == \
        ("caf\ufffd.txt\n\n[e.g. caf\ufffd.txt]", None)


def test_parse_limit_defaults_and_floors_at_one():
    assert parse_limit(None, 100) == 100
    assert parse_limit(2.7, 100) == 2
    assert parse_limit(0, 100) == 1 and parse_limit(-5, 100) == 1
