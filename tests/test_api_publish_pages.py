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


def test_words_published_from_the_knowledge_bases_page_reach_the_translation(engine):  # noqa: F811
    """An editor's own words on the Knowledge bases page: a line it cannot read is named and nothing is
    published; a good list is published (a version of its own) and a question tried shows them."""
    at, before = page("pages/1_Knowledge_bases.py"), engine.published("sample")
    at.text_area(key="words-sample").set_value("Aquila\t电热水壶\nAquila alone").run()
    assert [e.value for e in at.error] and "Line 2" in at.error[0].value and engine.published("sample") == before
    at.text_area(key="words-sample").set_value("Aquila\t电热水壶")
    run(at)
    button(at, "Publish words").click()
    run(at)
    pub = engine.published("sample")
    assert pub.origin == "words" and pub.params["glossary"] == [["Aquila", "电热水壶"]]
    at.text_input(key="words-try").set_value("How do I descale the Aquila?")
    run(at)
    said = [m.value for m in at.markdown if "Translated" in m.value]
    assert "电热水壶" in said[0] and "with these words" in said[0] and "电热水壶" not in said[1], said
    engine.publish("sample", engine.default_params(), "test")  # leave the module's engine as it was
