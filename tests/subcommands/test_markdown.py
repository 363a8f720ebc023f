"""The export's own Markdown renderer: the common blocks, and hostile input kept as text."""

from miniagent.subcommands.export import escape
from miniagent.subcommands.markdown import markdown_html


def md(text):
    return markdown_html(text, escape)


def test_paragraphs_emphasis_and_code_spans():
    assert md("Run `ls -la` **now**, *please*.\nSecond line\n\nNext") == (
        "<p>Run <code>ls -la</code> <strong>now</strong>, <em>please</em>.<br>\n"
        "Second line</p>\n<p>Next</p>")


def test_headings_lists_and_fenced_code():
    page = md("# Plan\n- read *it*\n- fix it\n1. first\n2. second\n```python\nif a < b:\n"
              "    print('**no**')\n```")
    assert page == ("<h3>Plan</h3>\n<ul><li>read <em>it</em></li><li>fix it</li></ul>\n"
                    "<ol><li>first</li><li>second</li></ol>\n"
                    '<pre class="code" data-lang="python"><code>if a &lt; b:\n'
                    "    print(&#x27;**no**&#x27;)</code></pre>")


def test_an_unclosed_fence_runs_to_the_end():
    assert md("```\n*x*") == '<pre class="code"><code>*x*</code></pre>'


def test_safe_links_are_links():
    assert md("[docs](https://example.com/a?b=1&c=2)") == (
        '<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">docs</a></p>')
    assert 'href="notes.md#top"' in md("[n](notes.md#top)")
    assert 'href="mailto:me@example.com"' in md("[m](mailto:me@example.com)")


def test_html_in_markdown_stays_text():
    page = md('<script>alert(1)</script>\n\n**<img src=x onerror="alert(2)">**\n\n`<b>`')
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<strong>&lt;img src=x onerror=&quot;alert(2)&quot;&gt;</strong>" in page


def test_dangerous_link_schemes_are_never_followed():
    for target in ("javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<b>x</b>",
                   "vbscript:msgbox", "java\tscript:alert(1)"):
        page = md(f"[click]({target})")
        assert "<a " not in page and "href" not in page, target
    quoted = md('[x](https://a.example/"onmouseover="alert(1))')
    assert 'onmouseover="' not in quoted and "&quot;onmouseover=&quot;" in quoted


def test_markup_from_a_link_label_or_target_cannot_break_out():
    page = md('[<i>x</i>](https://e.example/"><script>)')
    assert "<i>" not in page and "<script>" not in page and "&quot;&gt;&lt;script&gt;" in page


def test_quotes_rules_and_nested_lists_from_the_shared_parser():
    page = md("- a\n  - b\n    1. c\n  - d\n- e\n\n> said **so**\n> twice\n\n---\n###### Six")
    assert page == ("<ul><li>a<ul><li>b<ol><li>c</li></ol></li><li>d</li></ul></li>"
                    "<li>e</li></ul>\n<blockquote>said <strong>so</strong><br>\ntwice</blockquote>\n"
                    "<hr>\n<h6>Six</h6>")


def test_markers_inside_code_spans_stay_text_and_styles_nest():
    assert md("`**kwargs` and **bold `x` *both***") == (
        "<p><code>**kwargs</code> and <strong>bold <code>x</code> <em>both</em></strong></p>")
