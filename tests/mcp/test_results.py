"""An MCP tool's answer as the model sees it: blocks mapped, long text cut in the middle."""

import base64
import json
import os

from miniagent.mcp.results import MAX_TEXT_BYTES, cut_middle, model_content


def test_text_and_images_are_kept_as_they_are():
    blocks, details = model_content("s", {"content": [
        {"type": "text", "text": "hello"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"}]})
    assert blocks == [{"type": "text", "text": "hello"},
                      {"type": "image", "data": "aGk=", "mimeType": "image/png"}]
    assert details == {}


def test_structured_content_alone_is_shown_as_json():
    blocks, _ = model_content("s", {"content": [], "structuredContent": {"temp": 21}})
    assert json.loads(blocks[0]["text"]) == {"temp": 21}


def test_an_embedded_text_resource_is_its_text_and_a_link_says_how_to_read_it():
    blocks, _ = model_content("docs", {"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside"}},
        {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}]}, can_read=True)
    assert blocks[0]["text"] == "inside"
    assert blocks[1]["text"] == ('[Resource file:///b.txt "b"; read it with '
                                 'read_mcp_resource (server "docs")]')


def test_a_binary_blob_is_saved_to_a_file_the_model_is_told_of():
    blob = base64.b64encode(b"\x00\x01PDF").decode()
    blocks, _ = model_content("s", {"content": [{"type": "resource", "resource": {
        "uri": "file:///r.pdf", "blob": blob, "mimeType": "application/pdf"}}]})
    text = blocks[0]["text"]
    path = text.rsplit(" saved to ", 1)[1].rstrip("]")
    assert text.startswith("[Binary resource file:///r.pdf (application/pdf, 5B)")
    assert path.endswith(".pdf") and open(path, "rb").read() == b"\x00\x01PDF"
    os.remove(path)


def test_an_image_blob_becomes_an_image_and_a_json_blob_text():
    image = base64.b64encode(b"png").decode()
    data = base64.b64encode(b'{"a": 1}').decode()
    blocks, _ = model_content("s", {"content": [
        {"type": "resource", "resource": {"uri": "x:1", "blob": image, "mimeType": "image/png"}},
        {"type": "resource", "resource": {"uri": "x:2", "blob": data, "mimeType": "application/json"}}]})
    assert blocks[0] == {"type": "image", "data": image, "mimeType": "image/png"}
    assert blocks[1]["text"] == '{"a": 1}'


def test_text_over_20_kb_keeps_both_ends_and_the_whole_in_a_file():
    text = "start\n" + "é" * 30_000 + "\nend"
    blocks, details = model_content("s", {"content": [{"type": "text", "text": text}]})
    shown = blocks[0]["text"]
    assert len(shown.encode()) < MAX_TEXT_BYTES + 500
    assert "start" in shown and shown.rstrip().splitlines()[-3].endswith("end")
    assert "chars truncated…" in shown
    assert f"[Full output: {details['fullOutputPath']}" in shown
    assert open(details["fullOutputPath"], encoding="utf-8").read() == text


def test_cut_middle_keeps_whole_characters():
    assert cut_middle("abcdefghij", 4) == "ab…6 chars truncated…ij"
    assert cut_middle("short", 10) is None
    assert cut_middle("éééé", 3) == "…3 chars truncated…é"  # 1 byte is no whole é
