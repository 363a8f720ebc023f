"""@path attachments: the file travels in the prompt; a word that names none stays text."""

import base64

from miniagent.modes.attach import expand_attachments

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                       "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def test_a_text_file_is_a_tagged_block_before_the_prompt(tmp_path):
    (tmp_path / "app.py").write_text("print('hi')\n")
    message, warnings = expand_attachments("explain @app.py.", str(tmp_path))
    assert warnings == []
    assert message["content"] == [{"type": "text", "text": (
        f'<file name="{tmp_path / "app.py"}">\nprint(\'hi\')\n</file>\n\nexplain @app.py.')}]


def test_an_image_is_an_image_block(tmp_path):
    (tmp_path / "dot.png").write_bytes(PNG)
    message, warnings = expand_attachments("what is @dot.png", str(tmp_path))
    assert message["content"][0]["text"].startswith(f'<file name="{tmp_path / "dot.png"}"></file>')
    assert message["content"][1] == {"type": "image", "mimeType": "image/png",
                                     "data": base64.b64encode(PNG).decode("ascii")}


def test_a_path_with_spaces_is_attached_in_double_quotes(tmp_path):
    (tmp_path / "my shot.png").write_bytes(PNG)
    message, warnings = expand_attachments('what is @"my shot.png"?', str(tmp_path))
    assert warnings == [] and message["content"][1]["type"] == "image"
    _, warnings = expand_attachments('what is @"no such.png"', str(tmp_path))
    assert warnings == [f"@no such.png is not attached: File not found: {tmp_path / 'no such.png'}."]


def test_what_is_not_a_readable_file_stays_as_typed_with_one_warning_each(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "src").mkdir()
    typed = "mail me@example.com about @bob, @blob.bin and @src"
    prompt, warnings = expand_attachments(typed, str(tmp_path))
    assert prompt == typed
    assert warnings == [
        f"@bob is not attached: File not found: {tmp_path / 'bob'}.",
        "@blob.bin is not attached: a binary file; ask the model to inspect it with bash.",
        f"@src is not attached: {tmp_path / 'src'} is a directory, not a file."]


def test_a_long_file_is_cut_as_the_read_tool_cuts_it(tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    message, _ = expand_attachments("@big.txt", str(tmp_path))
    text = message["content"][0]["text"]
    assert "line 2000\n" in text and "line 2001" not in text
    assert "Use offset=2001 to continue" in text


def test_typed_text_gives_back_the_prompt_without_its_attachments(tmp_path):
    """/fork and /tree put a prompt back in the input line: resending it must not attach
    the files a second time."""
    from miniagent.modes.attach import typed_text
    (tmp_path / "a.py").write_text("x = 1\n</file>\n")  # even a file that looks like a tag
    message, _ = expand_attachments("look at @a.py and @a.py", str(tmp_path))
    assert typed_text(message["content"][0]["text"]) == "look at @a.py and @a.py"
    assert typed_text("no attachments here") == "no attachments here"


def test_an_image_for_a_model_that_takes_none_is_attached_and_said_so(tmp_path):
    # Found side by side with pi: the image vanished from the request with no word.
    from fake_server import FakeServer
    from helpers import answer, run_cli
    (tmp_path / "dot.png").write_bytes(PNG)
    with FakeServer([answer("A dot.")]) as srv:  # a model the registry does not know: text
        done = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--no-session",
                       "-p", "what is @dot.png", cwd=str(tmp_path))
    assert done.returncode == 0 and done.stdout == "A dot.\n"
    said = [line for line in done.stderr.splitlines() if "dot.png" in line]
    assert said == ['miniagent: warning: @dot.png: this model takes no images, so it will not '
                    'see this one (in models.json, "input": ["text", "image"] says a model does)']
    _, warnings = expand_attachments("what is @dot.png", str(tmp_path), sees_images=True)
    assert warnings == []
