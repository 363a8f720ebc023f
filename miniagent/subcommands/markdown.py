"""Markdown to HTML, small and safe: how the export shows a model's answers.

Models answer in Markdown. Shown raw, `**bold**` and fenced code are noise; handed to a
full Markdown library, the model's text could carry raw HTML into the page. So this is a
renderer of our own for the part of Markdown answers use:

    # Heading .. ###### Heading      paragraphs (a blank line apart; line breaks kept)
    **strong**  *emphasis*  `code`   ```lang fenced code```
    - item / * item / 1. item        [text](https://example.com)

The safety rule: **every character of the text is escaped first** (`escape`, the page's
own); markup is made only by this module, from the escaped text. So `<script>` in an
answer stays the text "<script>". A link keeps its target only when the scheme is
http, https or mailto (or it has none: `#part`, `docs/x.md`); `javascript:` and `data:`
links are shown as text. Nothing here emits a script, a style or an event attribute.

Example: markdown_html("Run `ls` **now**", escape) ->
         '<p>Run <code>ls</code> <strong>now</strong></p>'

Left out: tables, block quotes, images (shown as their text), nested lists, HTML blocks
(escaped, as all text), reference links.
"""

import re
from typing import Callable, List

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d{1,9}[.)]\s+(.*)$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)")
_SAFE_SCHEME = re.compile(r"^(https?:|mailto:|[^:]*$)", re.IGNORECASE)


def markdown_html(text: str, escape: Callable[[str], str]) -> str:
    """The text as HTML blocks; `escape` makes any text safe (export.escape)."""
    out: List[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            i = _code_block(lines, i, fence, escape, out)
        elif not line.strip():
            i += 1
        elif _HEADING.match(line):
            hashes, title = _HEADING.match(line).groups()
            out.append(f"<h{len(hashes) + 2}>{inline_html(title, escape)}</h{len(hashes) + 2}>")
            i += 1
        elif _BULLET.match(line) or _NUMBERED.match(line):
            i = _list(lines, i, escape, out)
        else:
            i = _paragraph(lines, i, escape, out)
    return "\n".join(out)


def _code_block(lines: List[str], i: int, fence: "re.Match[str]",
                escape: Callable[[str], str], out: List[str]) -> int:
    """Lines up to the closing fence (or the end), as written; returns the next index."""
    marker, language = fence.groups()
    end = i + 1
    while end < len(lines) and not lines[end].strip().startswith(marker):
        end += 1
    label = f' data-lang="{escape(language)}"' if language else ""
    out.append(f"<pre class=\"code\"{label}><code>{escape(chr(10).join(lines[i + 1:end]))}"
               f"</code></pre>")
    return end + 1


def _list(lines: List[str], i: int, escape: Callable[[str], str], out: List[str]) -> int:
    """Consecutive items of one kind (bullets or numbers) as one list."""
    pattern = _BULLET if _BULLET.match(lines[i]) else _NUMBERED
    tag = "ul" if pattern is _BULLET else "ol"
    items = []
    while i < len(lines) and pattern.match(lines[i]):
        items.append(f"<li>{inline_html(pattern.match(lines[i]).group(1), escape)}</li>")
        i += 1
    out.append(f"<{tag}>{''.join(items)}</{tag}>")
    return i


def _paragraph(lines: List[str], i: int, escape: Callable[[str], str], out: List[str]) -> int:
    """Lines up to a blank line or another block; its line breaks kept."""
    start = i
    while i < len(lines) and lines[i].strip() and not (
            _FENCE.match(lines[i]) or _HEADING.match(lines[i]) or
            (i > start and (_BULLET.match(lines[i]) or _NUMBERED.match(lines[i])))):
        i += 1
    body = "<br>\n".join(inline_html(line, escape) for line in lines[start:i])
    out.append(f"<p>{body}</p>")
    return i


def inline_html(text: str, escape: Callable[[str], str]) -> str:
    """Code spans, links, strong and emphasis inside one line. Code spans are cut out
    first, so nothing inside them is read as markup."""
    pieces = _CODE_SPAN.split(text)
    html = []
    # split() with the span's two groups gives: text, backticks, code, text, ...
    for index in range(0, len(pieces), 3):
        html.append(_styled(pieces[index], escape))
        if index + 2 < len(pieces):
            html.append(f"<code>{escape(pieces[index + 2].strip() or pieces[index + 2])}</code>")
    return "".join(html)


def _styled(text: str, escape: Callable[[str], str]) -> str:
    """Escaped text with links, strong and emphasis; markup only from our own tags."""
    parts = []
    last = 0
    for link in _LINK.finditer(text):
        parts.append(_emphasis(escape(text[last:link.start()])))
        label, target = link.groups()
        if _SAFE_SCHEME.match(target):
            parts.append(f'<a href="{escape(target)}" rel="noopener noreferrer">'
                         f"{_emphasis(escape(label))}</a>")
        else:  # javascript:, data:, vbscript: ... shown, never followed
            parts.append(escape(link.group(0)))
        last = link.end()
    parts.append(_emphasis(escape(text[last:])))
    return "".join(parts)


def _emphasis(escaped: str) -> str:
    """**strong** and *emphasis* on text that is already escaped (no < or " left in it)."""
    escaped = _STRONG.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", escaped)
    return _EMPHASIS.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", escaped)
