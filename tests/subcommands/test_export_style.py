"""The exported page's template (exportstyle.py): it loads nothing and runs only its own script."""

import base64
import hashlib
import re

from miniagent.subcommands.export import render_html
from miniagent.subcommands.export_style import SCRIPT, SCRIPT_HASH
from miniagent.session.tree import Session


def test_the_page_loads_nothing_and_runs_only_its_own_script(tmp_path):
    session = Session.create(str(tmp_path), persist=False)
    session.append_message({"role": "user", "content": "hello"})
    page = render_html(session.header, session.entries)
    assert not re.search(r"""(src|href)=|@import|url\(|https?://""", page)
    assert re.search(r"<script>(.*)</script>", page).group(1) == SCRIPT
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert SCRIPT_HASH == f"sha256-{digest}"
    assert f"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'" in page
    assert "onclick" not in page  # an inline handler would need 'unsafe-inline' scripts
