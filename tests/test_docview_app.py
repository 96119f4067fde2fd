"""The "open in document" control in the chat (AppTest, real engine: bundled e5 + Qdrant Edge on
the sample knowledge base): a button per hit under the evidence, opening the document view with
the hit marked inside the whole document."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT

Q = "电热水壶第一次使用前要做什么？"
pytestmark = pytest.mark.usefixtures("app_home")  # conftest: one SWR_HOME for the module


def test_every_hit_has_an_open_in_document_button_that_opens_the_view():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    at.chat_input[0].set_value(Q).run()
    assert not at.exception, at.exception
    result = at.session_state["history"][0]["result"]
    n_hits = sum(len(p.hits) for p in result.passages)
    opens = [b for b in at.button if b.key and b.key.startswith("opendoc-1-")]
    assert len(opens) == n_hits >= 1
    assert any("Open in document" in e.label for e in at.expander)
    first = result.passages[0]
    best = min(first.hits, key=lambda h: h.rank)
    at.button(key=f"opendoc-1-1-{best.i}").click().run()
    assert not at.exception, at.exception
    page = "\n".join(h.value for h in at.html)
    assert 'class="swr-dv-doc"' in page, "the document view opened"
    assert f'swr-dv-hit" data-i="{best.i}"' in page
    assert f'data-i="{first.first}" id="swr-dv-window"' in page
