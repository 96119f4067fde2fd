"""Publishing from the pages (AppTest on the real engine): an editor's Tune sweep row published for
the knowledge base, with its evidence; a new session's chat then starts from it and its answers say
which version they used; the sidebar lists the versions. The fixtures are the Tune page tests'."""
from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest
from test_pages_tune_compare import APP, TUNE, Q, app_home, button, engine, page, page_html, run, sweep  # noqa: F401


def test_publish_from_tune_then_a_new_sessions_chat_uses_that_version(engine):  # noqa: F811
    at = page(TUNE)
    sweep(at)
    at.selectbox(key="tune_pick").set_value("window w=0 hybrid k=1")
    button(at, "Publish for this knowledge base").click()
    run(at)
    pub = engine.published("sample")
    assert pub is not None and pub.origin == "tune" and pub.by == "local"
    assert (pub.params["window_size"], pub.params["top_k"], pub.params["mode"]) == (0, 1, "hybrid")
    assert pub.evidence["n"] == 6 and pub.evidence["configuration"] == "window w=0 hybrid k=1"
    assert "hit_rate" in pub.evidence
    entries = [e for e in engine.as_user(__import__("swr.manage.access", fromlist=["Actor"]).Actor.local_user())
               .audit.entries() if e["action"] == "publish"]
    assert entries and entries[0]["object"] == f"v{pub.version}" and entries[0]["detail"] == "tune"

    other = AppTest.from_file(APP, default_timeout=300)  # another agent's session: a fresh chat
    run(other)
    assert other.slider(key="w_window").value == 0 and other.slider(key="w_top_k").value == 1
    other.chat_input[0].set_value(Q).run()
    assert not other.exception
    stamp = html.unescape(re.search(r'<div class="swr-stamp">(.*?)</div>', page_html(other)).group(1))
    assert stamp.startswith("window 0 · top-k 1 · hybrid") and f"published v{pub.version}" in stamp, stamp
    engine.publish("sample", engine.default_params(), "test")  # leave the module's engine as it was
