"""Markdown to HTML, small and safe: how the export shows a model's answers.

Models answer in Markdown. Shown raw, `**bold**` and fenced code are noise; handed to a
full Markdown library, the model's text could carry raw HTML into the page. So the
export renders it itself, from the blocks and spans of the terminal's own parser
(tui/markdown.py: one parser, two renderers, so an answer reads the same in both):

    # Heading .. ###### Heading      paragraphs (a blank line apart; line breaks kept)
    **strong**  *emphasis*  `code`   ```lang fenced code```
    - item / * item / 1. item        nested by indent; > quote; --- rule
    [text](https://example.com)

The safety rule: **every character of the text is escaped** (`escape`, the page's own)
on its way into the page; markup is made only here, from fixed tags, around escaped
text. So `<script>` in an answer stays the text "<script>". A link keeps its target
only when the scheme is http, https or mailto (or it has none: `#part`, `docs/x.md`);
`javascript:` and `data:` links are shown as the text they were written as. Nothing
here emits a script, a style or an event attribute.

Example: markdown_html("Run `ls` **now**", escape) ->
         '<p>Run <code>ls</code> <strong>now</strong></p>'

Left out (as in the parser): tables (shown as their lines), images (shown as their
text), HTML blocks (escaped, as all text), reference links.
"""

import re
from typing import Callable, List

from ..tui.markdown import Block, Span, parse_blocks, parse_inline

_SAFE_SCHEME = re.compile(r"^(https?:|mailto:|[^:]*$)", re.IGNORECASE)


def markdown_html(text: str, escape: Callable[[str], str]) -> str:
    """The text as HTML blocks; `escape` makes any text safe (export.escape)."""
    blocks = [block for block in parse_blocks(text) if block.kind != "blank"]
    out: List[str] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind in ("bullet", "numbered"):
            end = _list_end(blocks, i)
            out.append(_list_html(blocks[i:end], escape))
            i = end
            continue
        out.append(_block_html(block, escape))
        i += 1
    return "\n".join(out)


def _block_html(block: Block, escape: Callable[[str], str]) -> str:
    if block.kind == "code":
        label = f' data-lang="{escape(block.lang)}"' if block.lang else ""
        return f'<pre class="code"{label}><code>{escape(chr(10).join(block.lines))}</code></pre>'
    if block.kind == "heading":
        tag = f"h{min(block.level + 2, 6)}"  # the page's own headings are h1 and h2
        return f"<{tag}>{_lines_html(block.lines, escape)}</{tag}>"
    if block.kind == "quote":
        return f"<blockquote>{_lines_html(block.lines, escape)}</blockquote>"
    if block.kind == "rule":
        return "<hr>"
    return f"<p>{_lines_html(block.lines, escape)}</p>"


def _list_end(blocks: List[Block], i: int) -> int:
    """Where the list that starts at `i` ends: at a block that is not an item, or at an
    item at the margin of the other kind (bullets after numbers start a new list)."""
    end = i + 1
    while end < len(blocks) and blocks[end].kind in ("bullet", "numbered") and not (
            blocks[end].level == 0 and blocks[end].kind != blocks[i].kind):
        end += 1
    return end


def _list_html(items: List[Block], escape: Callable[[str], str]) -> str:
    """Items as nested <ul>/<ol>: a deeper item opens a list inside the item before it
    (one level deeper, however far it is indented), a shallower one closes lists."""
    html: List[str] = []
    open_lists: List[str] = []  # the tags of the lists open, outermost first
    for item in items:
        tag = "ul" if item.kind == "bullet" else "ol"
        depth = min(item.level, len(open_lists))  # the list this item goes in
        while len(open_lists) > depth + 1 or (
                len(open_lists) == depth + 1 and open_lists[-1] != tag):
            html.append(f"</li></{open_lists.pop()}>")
        if len(open_lists) == depth + 1:
            html.append("</li>")
        else:
            html.append(f"<{tag}>")
            open_lists.append(tag)
        html.append(f"<li>{_lines_html(item.lines, escape)}")
    html += [f"</li></{name}>" for name in reversed(open_lists)]
    return "".join(html)


def _lines_html(lines: List[str], escape: Callable[[str], str]) -> str:
    """A block's lines, each read for spans, their line breaks kept."""
    return "<br>\n".join(inline_html(line, escape) for line in lines)


def inline_html(text: str, escape: Callable[[str], str]) -> str:
    """Code spans, links, strong and emphasis inside one line."""
    return _spans_html(parse_inline(text), escape)


def _spans_html(spans: List[Span], escape: Callable[[str], str]) -> str:
    return "".join(_span_html(span, escape) for span in spans)


def _span_html(span: Span, escape: Callable[[str], str]) -> str:
    """One span, its text escaped; markup only from our own tags."""
    if span.kind == "text":
        return escape(span.text)
    if span.kind == "code":
        return f"<code>{escape(span.text)}</code>"
    if span.kind == "link" and not _SAFE_SCHEME.match(span.url):
        # javascript:, data:, vbscript: ... shown as written, never followed
        return escape(f"[{span.text}]({span.url})")
    inner = _spans_html(span.children, escape)
    if span.kind == "link":
        return f'<a href="{escape(span.url)}" rel="noopener noreferrer">{inner}</a>'
    tag = "strong" if span.kind == "strong" else "em"
    return f"<{tag}>{inner}</{tag}>"
