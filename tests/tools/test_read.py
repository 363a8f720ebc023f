"""read: pi's tool tests plus the edge cases of the tools issue."""

import base64
import re
import threading
import tracemalloc

import pytest

from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.tools import create_tools
from miniagent.tools import read as read_module
from miniagent.tools.read import image_mime

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def read(cwd, **args):
    tool = create_tools(["read"])[0]
    return tool.execute("call-1", validate_arguments(tool, args), ToolContext(cwd=str(cwd)))


def text_of(result):
    return result.content[0]["text"]


def write_lines(path, count, template="Line {}"):
    path.write_text("\n".join(template.format(i) for i in range(1, count + 1)))


# --- pi's tests ---------------------------------------------------------------------------

def test_small_file_is_returned_verbatim(tmp_path):
    (tmp_path / "a.txt").write_text("Hello\nworld\n")
    result = read(tmp_path, path="a.txt")
    assert text_of(result) == "Hello\nworld\n"
    assert "offset=" not in text_of(result)
    assert result.details is None


def test_missing_file(tmp_path):
    with pytest.raises(ToolError, match="not found") as info:
        read(tmp_path, path="nope.txt")
    assert str(tmp_path / "nope.txt") in str(info.value)


def test_2500_lines_truncated_at_2000(tmp_path):
    write_lines(tmp_path / "big.txt", 2500)
    result = read(tmp_path, path="big.txt")
    text = text_of(result)
    assert "Line 1\n" in text and "Line 2000" in text and "Line 2001" not in text
    assert text.endswith("\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    truncation = result.details["truncation"]
    assert truncation["truncated"] and truncation["truncatedBy"] == "lines"
    assert truncation["totalLines"] == 2500 and truncation["outputLines"] == 2000


def test_byte_limit_notice(tmp_path):
    write_lines(tmp_path / "wide.txt", 500, "Line {} " + "x" * 200)
    text = text_of(read(tmp_path, path="wide.txt"))
    assert re.search(r"\[Showing lines 1-(\d+) of 500 \(50\.0KB limit\)\. "
                     r"Use offset=(\d+) to continue\.\]$", text)
    assert len(text.encode()) < 51200 + 100


def test_offset(tmp_path):
    write_lines(tmp_path / "f.txt", 100)
    text = text_of(read(tmp_path, path="f.txt", offset=51))
    assert text.startswith("Line 51\n") and text.endswith("Line 100")
    assert "Line 50\n" not in text and "offset=" not in text


def test_limit(tmp_path):
    write_lines(tmp_path / "f.txt", 100)
    text = text_of(read(tmp_path, path="f.txt", limit=10))
    assert text == "\n".join(f"Line {i}" for i in range(1, 11)) + \
        "\n\n[90 more lines in file. Use offset=11 to continue.]"


def test_offset_and_limit(tmp_path):
    write_lines(tmp_path / "f.txt", 100)
    text = text_of(read(tmp_path, path="f.txt", offset=41, limit=20))
    assert text.startswith("Line 41\n") and "Line 60\n" in text and "Line 61" not in text
    assert text.endswith("[40 more lines in file. Use offset=61 to continue.]")


def test_offset_beyond_end(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb\nc")
    with pytest.raises(ToolError) as info:
        read(tmp_path, path="f.txt", offset=100)
    assert str(info.value) == "Offset 100 is beyond end of file (3 lines total)"


def test_image_detected_by_content_not_name(tmp_path):
    (tmp_path / "image.txt").write_bytes(PNG_1PX)
    result = read(tmp_path, path="image.txt")
    assert "Read image file [image/png]" in text_of(result)
    image = result.content[1]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"]) == PNG_1PX


def test_text_named_png_is_read_as_text(tmp_path):
    (tmp_path / "not-an-image.png").write_text("just text")
    result = read(tmp_path, path="not-an-image.png")
    assert text_of(result) == "just text" and len(result.content) == 1


# --- our edge cases ------------------------------------------------------------------------

def test_trailing_newline_makes_an_extra_line(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    with pytest.raises(ToolError, match=r"^Offset 5 is beyond end of file \(4 lines total\)$"):
        read(tmp_path, path="f.txt", offset=5)
    assert text_of(read(tmp_path, path="f.txt", offset=0)) == "a\nb\nc\n"


def test_2500_lines_ending_in_a_newline_report_2501(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"Line {i}\n" for i in range(1, 2501)))
    assert text_of(read(tmp_path, path="big.txt")).endswith(
        "[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]")


def test_no_trailing_newline(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb")
    assert text_of(read(tmp_path, path="f.txt", offset=2)) == "b"


def test_empty_file(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    assert text_of(read(tmp_path, path="empty.txt")) == "(empty file)"


def test_crlf_and_bom_are_shown_as_they_are(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert text_of(read(tmp_path, path="f.txt")) == "\ufeffone\r\ntwo\r\n"


def test_invalid_utf8_is_replaced_and_noted(tmp_path):
    (tmp_path / "latin1.txt").write_bytes("café\nok\n".encode("latin-1"))
    text = text_of(read(tmp_path, path="latin1.txt"))
    assert text.startswith("caf\ufffd\nok\n")
    assert "not valid UTF-8" in text


def test_binary_file_is_described_not_dumped(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02garbage\xff" * 200)
    result = read(tmp_path, path="blob.bin")
    text = text_of(result)
    assert "binary" in text and "2.1KB" in text and "xxd" in text
    assert "garbage" not in text and not result.is_error


def test_100kb_single_line_points_to_bash(tmp_path):
    (tmp_path / "one.txt").write_text("x" * 100_000 + "\nshort\n")
    result = read(tmp_path, path="one.txt")
    text = text_of(result)
    assert "Line 1 is 97.7KB" in text
    assert f"sed -n '1p' {tmp_path / 'one.txt'} | head -c 51200" in text
    assert result.details["truncation"]["firstLineExceedsLimit"]
    assert text_of(read(tmp_path, path="one.txt", offset=2)) == "short\n"


def test_long_line_after_short_ones_stops_before_it(tmp_path):
    (tmp_path / "f.txt").write_text("a\nb\n" + "y" * 60_000 + "\nc")
    text = text_of(read(tmp_path, path="f.txt"))
    assert text == "a\nb\n\n[Showing lines 1-2 of 4 (50.0KB limit). Use offset=3 to continue.]"


def test_directory_is_not_a_file(tmp_path):
    with pytest.raises(ToolError, match="is a directory"):
        read(tmp_path, path=".")


def test_path_forms(tmp_path):
    (tmp_path / "a b.txt").write_text("spaced")
    assert text_of(read(tmp_path, path="@a\u00a0b.txt")) == "spaced"
    assert text_of(read("/", path=str(tmp_path / "a b.txt"))) == "spaced"


def test_large_file_read_near_the_end_is_bounded(tmp_path):
    # 200k lines: the selection is the last 3; the window never holds the whole file.
    write_lines(tmp_path / "big.txt", 200_000)
    text = text_of(read(tmp_path, path="big.txt", offset=199_998))
    assert text == "Line 199998\nLine 199999\nLine 200000"


def test_aborted_before_start(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    tool = create_tools(["read"])[0]
    abort = threading.Event()
    abort.set()
    with pytest.raises(ToolError, match="Operation aborted"):
        tool.execute("c", {"path": "f.txt"}, ToolContext(cwd=str(tmp_path), abort=abort))


def test_60kb_first_line_message(tmp_path):
    (tmp_path / "one.txt").write_text("x" * 60_000)
    text = text_of(read(tmp_path, path="one.txt"))
    assert text.startswith("[Line 1 is 58.6KB") and "50.0KB" in text


def test_long_lines_with_an_offset(tmp_path):
    # Each line alone is over the byte limit: every offset gets the bash hint for its line.
    (tmp_path / "wide.txt").write_text("\n".join(c * 60_000 for c in "abc"))
    text = text_of(read(tmp_path, path="wide.txt", offset=2))
    assert text.startswith("[Line 2 is 58.6KB")
    assert f"sed -n '2p' {tmp_path / 'wide.txt'} | head -c 51200" in text
    assert "b" * 100 not in text
    (tmp_path / "mixed.txt").write_text("short\n" + "y" * 60_000 + "\nz\n")
    assert text_of(read(tmp_path, path="mixed.txt", offset=1, limit=1)) == \
        "short\n\n[3 more lines in file. Use offset=2 to continue.]"
    assert text_of(read(tmp_path, path="mixed.txt", offset=3)) == "z\n"


@pytest.mark.parametrize("head, mime", [
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"), (b"GIF89a\x01\x00", "image/gif"),
    (b"GIF87a\x01\x00", "image/gif"), (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
    (b"RIFF\x10\x00\x00\x00WAVEfmt ", None), (b"\x89PNG\r\n", None),  # cut-off PNG magic
])
def test_image_types_by_magic_bytes(head, mime):
    assert image_mime(head) == mime


def test_image_over_the_size_limit_is_refused_with_a_way_out(tmp_path):
    with open(tmp_path / "huge.png", "wb") as f:
        f.write(PNG_1PX)
        f.truncate(5 * 1024 * 1024)  # sparse: 5 MB on paper, no time spent writing it
    with pytest.raises(ToolError) as info:
        read(tmp_path, path="huge.png")
    message = str(info.value)
    assert "5.0MB" in message and "4.5MB" in message and "-resize" in message


def test_proc_file_reporting_size_zero_is_read(tmp_path):
    # /proc files say st_size 0 but have content: the size must come from reading.
    text = text_of(read(tmp_path, path="/proc/self/status"))
    assert text.startswith("Name:") and "(empty file)" not in text


def test_device_is_refused_not_read(tmp_path):
    with pytest.raises(ToolError) as info:
        read(tmp_path, path="/dev/zero")
    assert "character device" in str(info.value) and "timeout 5 head -c" in str(info.value)


def test_permission_denied_says_what_to_check(tmp_path, monkeypatch):
    # Tests run as root, whom chmod does not stop: make open() refuse instead.
    (tmp_path / "secret.txt").write_text("x")

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(read_module, "open", refuse, raising=False)
    with pytest.raises(ToolError) as info:
        read(tmp_path, path="secret.txt")
    message = str(info.value)
    assert message.startswith(f"Permission denied: {tmp_path / 'secret.txt'}")
    assert "ls -l" in message


def test_reading_near_the_end_uses_bounded_memory(tmp_path):
    # 8 MB of lines; reading the last ones must not hold the file: the peak of Python's
    # allocations stays near two 256 KB chunks (a wide 2 MB bound).
    with open(tmp_path / "big.txt", "w") as f:
        for first in range(0, 200_000, 10_000):
            f.write("".join(f"{i:08d} {'x' * 31}\n" for i in range(first, first + 10_000)))
    tracemalloc.start()
    try:
        text = text_of(read(tmp_path, path="big.txt", offset=199_999))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == f"{199_998:08d} {'x' * 31}\n{199_999:08d} {'x' * 31}\n"
    assert peak < 2 * 1024 * 1024
