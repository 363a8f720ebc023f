"""The look of an exported session page (export.py): one page template, one stylesheet, one
line of script, all inlined into every page so that it needs nothing from anywhere.

The template's Content-Security-Policy lets the page load nothing at all and run one
script only: the one whose SHA-256 hash it names, ours. So even if a piece of session text
escaped export.escape, the browser would fetch nothing and run no script from it. (That is
also why the buttons get their click handlers from the script, not from onclick="...".)
Colours follow the reader's light or dark setting; fonts are the system's own.

Left out: themes and print styles.
"""

import base64
import hashlib

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '{script_hash}'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{style}</style></head>
<body><header>{header}
<p class="controls"><button data-open="1">Unfold all</button> <button data-open="">Fold all</button></p>
</header><main>
{body}
</main><script>{script}</script></body></html>
"""

# The buttons open or close every <details>: tool results, thinking, summaries, branches.
SCRIPT = ("document.querySelectorAll('button[data-open]').forEach(function(button){"
          "button.addEventListener('click',function(){var open=!!button.dataset.open;"
          "document.querySelectorAll('details').forEach(function(d){d.open=open;});});});")
SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()

STYLE = """
:root{--bg:#fdfdfc;--fg:#1f2328;--muted:#6e7781;--line:#d8dee4;--user:#eef4ff;--call:#f6f8fa;
--err:#b42318;--band:#fff8e6;--accent:#0b6bcb}
@media (prefers-color-scheme:dark){:root{--bg:#16181d;--fg:#e6e6e6;--muted:#9aa4ae;--line:#30363d;
--user:#1c2636;--call:#1f232a;--err:#ff7b72;--band:#2b2514;--accent:#58a6ff}}
body{margin:0 auto;max-width:60rem;padding:1.5rem;background:var(--bg);color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.3rem;margin:0 0 .5rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.totals{font-weight:600;margin:.6rem 0 .2rem}.tools,.models{color:var(--muted);margin:.2rem 0}
.models{padding-left:1.2rem}header{border-bottom:1px solid var(--line);padding-bottom:.8rem;margin-bottom:1rem}
pre,code,.call{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0 0;max-height:30rem;overflow:auto}
.msg{margin:.8rem 0;padding:.6rem .8rem;border-radius:6px;border:1px solid var(--line)}
.user{background:var(--user)}.who{color:var(--muted);font-size:.85rem;margin-bottom:.3rem}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.call{background:var(--call);border-left:3px solid var(--accent);padding:.3rem .6rem;margin:.4rem 0}
.tool{font-weight:700;color:var(--accent)}.call dt{color:var(--muted)}
.call dd{white-space:pre-wrap;overflow-wrap:anywhere}
details.result,details.thinking{margin:.2rem 0 .2rem 1.2rem;color:var(--muted)}
details.thinking .text{font-style:italic}
details.error>summary,.error{color:var(--err)}summary{cursor:pointer;overflow-wrap:anywhere}
.usage{float:right}.setting{color:var(--muted);font-size:.85rem;margin:.3rem 0}
.band{background:var(--band);border:1px dashed var(--muted);border-radius:6px;padding:.5rem .8rem;margin:1rem 0}
.band>.who{font-weight:600;color:var(--fg)}
.fork{border-left:3px solid var(--line);padding-left:.8rem;margin:1rem 0}
details.branch>summary{font-weight:600;margin:.5rem 0}
.label{background:var(--accent);color:var(--bg);border-radius:4px;padding:0 .4rem;font-size:.8rem}
.empty,.controls{color:var(--muted)}button{font:inherit;font-size:.85rem}
.markdown>:first-child{margin-top:0}.markdown>:last-child{margin-bottom:0}.markdown p{margin:.4rem 0}
.markdown pre.code{background:var(--call);padding:.4rem .6rem;border-radius:4px}
.markdown code{background:var(--call);padding:0 .2rem;border-radius:3px}.markdown pre code{padding:0}
pre.diff .add{color:#1a7f37}pre.diff .del{color:var(--err)}pre.diff .hunk,pre.diff .file{color:var(--muted)}
details.system>summary{color:var(--muted);font-weight:600}
"""
