"""The Streamlit pages through ``streamlit.testing.v1.AppTest``, on the real engine (bundled
multilingual-e5-small + Qdrant Edge) in a temporary SWR_HOME.

``st.cache_resource`` lives as long as the process, so every AppTest of this module shares one
engine: SWR_HOME is set once, before the first AppTest, and the engine is closed at the end. The
first run indexes the sample KB with the real model (15-20 s), hence ``default_timeout=120``.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from fake_llm import fake_llm  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
KB_PAGE = "pages/1_Knowledge_bases.py"
pytestmark = pytest.mark.usefixtures("app_home")  # conftest: one SWR_HOME for the module
Q = "电热水壶第一次使用前要做什么？"

GOOD_TXT = ("The ZX-9 blender has a 1200 W motor. Its jar holds 1.5 litres. "
            "The ZX-9 warranty lasts three years from the date of purchase. "
            "To claim it, call the service line with your receipt. "
            "Never run the blender empty for more than ten seconds. "
            "Clean the blades under running water right after use.\n").encode()
EVIL_TXT = ("Safety notice for the QQ-1 toaster. <script>alert('x')</script> "
            "Click [here](javascript:alert(1)) <img src=x onerror=alert(2)> to win. "
            "The QQ-1 toaster warranty is one year.\n").encode()


@pytest.fixture
def engine(app_home):
    """The engine the pages use (the very cached instance)."""
    from swr.app import base as ui

    return ui.get_engine()


def new_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    return at


def page_html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.html)


_CARD = re.compile(r'<div class="swr-passage" id="([^"]+)">(.*?)<div class="swr-text"[^>]*>(.*?)</div>', re.S)


def cards(at: AppTest, anchor: str = r"a\d+-") -> list[dict]:
    """Passage cards whose anchor id starts with ``anchor`` (``a1-``: answer 1 as made;
    ``a1p-``: the live preview of answer 1)."""
    out = []
    for m in _CARD.finditer(page_html(at)):
        if re.match(anchor, m.group(1)):
            out.append({"id": m.group(1), "head": html.unescape(re.sub("<[^>]+>", "", m.group(2))),
                        "html": m.group(3), "text": html.unescape(re.sub("<[^>]+>", "", m.group(3)))})
    return out


def stamps(at: AppTest) -> list[str]:
    return [html.unescape(m) for m in re.findall(r'<div class="swr-stamp">(.*?)</div>', page_html(at))]


def errors(at: AppTest) -> str:
    return "\n".join(html.unescape(e.value) for e in at.error)


def buttons(at: AppTest) -> dict[str, object]:
    return {b.label: b for b in at.button}


# --------------------------------------------------------------------------------------------
# chat page


def test_ask_sample_question_shows_answer_and_highlighted_evidence(engine):
    at = new_app()
    assert at.chat_input, "the chat input is there"
    assert Q in buttons(at), "a fresh page offers the sample questions"
    ask(at, Q)
    assert [m.avatar for m in at.chat_message] == ["user", "assistant"]
    html_ = page_html(at)
    assert 'class="swr-answer' in html_  # plain, or "swr-answer swr-checked" with its marks
    found = cards(at, r"a1-")
    assert found and all(c["text"] for c in found)
    assert any("<mark" in c["html"] for c in found), "the hit sentence is highlighted inside its window"
    assert any("kettle_manual_zh.md" in c["head"] for c in found)
    assert "context" in html_ and "tokens" in html_  # the size of the context
    assert 'href="#a1-passage-1"' in html_  # the citation links to its passage
    stamp = stamps(at)[0]
    assert "window 3" in stamp and "top-k 3" in stamp and "hybrid/dbsf" in stamp
    assert "multilingual-e5-small" in stamp and "no LLM" in stamp
    assert at.download_button[0].label == "Export evidence card"
    entry = at.session_state["history"][0]
    from swr.app.components.answer import evidence_card

    card = evidence_card(entry["result"])
    assert card.startswith("<!DOCTYPE html>") and "<mark" in card and "window_size" in html.unescape(card)
    assert "<script" not in card.lower()


def test_window_slider_rewindows_last_answer_without_embedding(engine):
    at = ask(new_app(), Q)
    before = sum(len(c["text"]) for c in cards(at, r"a1-"))
    calls = engine.embedder.calls
    at.slider(key="w_window").set_value(6).run()
    assert not at.exception
    preview = cards(at, r"a1p-")
    after = sum(len(c["text"]) for c in preview)
    assert after > before, (before, after)
    assert any("<mark" in c["html"] for c in preview)
    assert engine.embedder.calls == calls, "moving the window must not embed"
    assert "window 3 → 6" in html.unescape(page_html(at))
    assert stamps(at)[0].startswith("window 3"), "the answer keeps the settings it was made with"

    # every text asked of the embedder (its cache included: a cached question would not reach the
    # model, so the model is not where to look)
    outer, embedded = engine.embedder, []
    one, many = outer.encode_query, outer.encode_queries
    outer.encode_query = lambda text: embedded.append(text) or one(text)
    outer.encode_queries = lambda texts: embedded.extend(texts) or many(texts)
    try:
        buttons(at)["Regenerate answer with this context"].click().run()
    finally:
        del outer.encode_query, outer.encode_queries
    assert not at.exception
    # the new answer's check embeds the answer's own sentences; the question is never embedded again
    assert embedded and Q not in embedded, embedded
    s = stamps(at)
    assert len(s) == 2 and s[0].startswith("window 3") and s[1].startswith("window 6")
    assert sum(len(c["text"]) for c in cards(at, r"a2-")) == after
    assert "Regenerate answer with this context" not in buttons(at)


def test_top_k_change_reranks_last_question_from_cached_query(engine):
    at = ask(new_app(), Q)
    n_before = len(at.session_state["history"][0]["result"].passages)
    # the model embeds no query again (a deeper top k may embed new candidates' windows as passages:
    # the cross-lingual fusion reads them, swr/retrieve/xl_window.py)
    model, asked = engine.embedder.inner, []
    one, many = model.encode_query, model.encode_queries
    model.encode_query = lambda text: asked.append(text) or one(text)
    model.encode_queries = lambda texts: asked.extend(texts) or many(texts)
    try:
        at.slider(key="w_top_k").set_value(8).run()
    finally:
        del model.encode_query, model.encode_queries
    assert not at.exception
    assert not asked, f"the query vector is cached: {asked}"
    assert "top-k 3 → 8" in html.unescape(page_html(at))
    assert len(cards(at, r"a1p-")) > n_before


def test_score_cutoff_knob_filters_last_question(engine):
    at = ask(new_app(), Q)
    at.checkbox(key="w_cutoff").check().run()
    at.number_input(key="w_min_score").set_value(5.0).run()  # far above any RRF score
    assert not at.exception
    body = html.unescape(page_html(at))
    assert "score cutoff off → 5.0" in body and "stages" not in body and "none →" not in body
    assert not cards(at, r"a1p-") and "No passage found" in body
    at.checkbox(key="w_cutoff").uncheck().run()
    assert "Regenerate answer with this context" not in buttons(at), "back to the settings of the answer"


def test_history_and_knobs_survive_page_switch(engine):
    at = ask(new_app(), Q)
    at.slider(key="w_window").set_value(5).run()
    at.switch_page(KB_PAGE).run()
    assert not at.exception
    assert not at.chat_message
    at.switch_page("app.py").run()
    assert not at.exception
    assert len(at.chat_message) == 2 and cards(at, r"a1")
    assert at.slider(key="w_window").value == 5


def test_switch_knowledge_base(engine):
    engine.index_files("switch-test", [("blender.txt", GOOD_TXT), ("toaster.txt", EVIL_TXT)])
    at = new_app()
    assert "switch-test" in at.selectbox(key="w_kb").options
    at.selectbox(key="w_kb").set_value("switch-test").run()
    assert any(c.value == "2 documents · 6 sentences" or c.value.startswith("2 documents ·") for c in at.sidebar.caption)
    ask(at, "How long is the ZX-9 warranty?")
    found = cards(at, r"a1-")
    assert found and {c["head"].split(" · ")[0].split("] ", 1)[1] for c in found} <= {"blender.txt", "toaster.txt"}
    assert any("three years" in c["text"] for c in found)
    assert "kettle" not in page_html(at)
    # the filters offer this KB's files; a file filter does not follow into another KB
    assert set(at.multiselect(key="w_sources").options) == {"blender.txt", "toaster.txt"}
    at.multiselect(key="w_sources").select("blender.txt").run()
    assert at.session_state["cfg_sources"] == ["blender.txt"]
    at.selectbox(key="w_kb").set_value("sample").run()
    assert at.session_state["cfg_sources"] == [] and not at.exception
    ask(at, Q)
    assert cards(at, r"a2-"), "the sample KB is searched without the other KB's file filter"


def test_document_text_is_escaped(engine):
    engine.index_files("switch-test", [("toaster.txt", EVIL_TXT)])
    at = new_app()
    at.selectbox(key="w_kb").set_value("switch-test").run()
    ask(at, "QQ-1 toaster safety notice")
    body = page_html(at)
    assert "&#60;script&#62;" in body or "&lt;script&gt;" in body
    assert "<script" not in body.lower() and "<img" not in body.lower()
    assert 'href="javascript' not in body.lower()


def test_demo_mode_hides_knobs_and_preset_asks(engine):
    at = new_app()
    at.toggle(key="w_demo").set_value(True).run()
    assert not at.exception
    assert not [s for s in at.slider if s.key in ("w_window", "w_top_k")], "demo mode hides the knobs"
    presets = [b for b in at.button if (b.key or "").startswith("preset-")]
    assert len(presets) >= 10 and presets[0].label == Q
    presets[0].click().run()
    assert not at.exception
    assert len(at.chat_message) == 2
    assert any("<mark" in c["html"] for c in cards(at, r"a1-"))
    assert stamps(at)[0].startswith("window 3")
    at.toggle(key="w_demo").set_value(False).run()
    assert at.slider(key="w_window").value == 3, "the knobs come back with their values"


def test_llm_answer_streams_and_failure_falls_back(engine, fake_llm):  # noqa: F811
    from swr.answer.llm import Answerer, LLMConfig

    saved = engine.answerer, engine.settings
    engine.answerer = Answerer(LLMConfig(base_url=fake_llm.base_url, api_key="sk-test", model="fake-model",
                                         timeout_s=5))
    engine.settings = engine.settings.with_(llm_model="fake-model")
    fake_llm.reply = "Boil water once and pour it away [1]."
    try:
        at = ask(new_app(), Q)
        body = page_html(at)
        assert "LLM answer" in body and "fake-model" in stamps(at)[0]
        assert "Boil water once and pour it away" in html.unescape(body)
        assert '<a href="#a1-passage-1">[1]</a>' in body
        assert fake_llm.requests and fake_llm.last_body["stream"] is True
        assert not at.error

        fake_llm.mode = "500"
        ask(at, "电热水壶的容量是多少？")
        assert "LLM failed" in errors(at)
        result = at.session_state["history"][-1]["result"]
        assert result.answer_kind == "extractive" and result.llm_error
        assert cards(at, r"a2-"), "the evidence is still shown"
    finally:
        engine.answerer, engine.settings = saved


# --------------------------------------------------------------------------------------------
# knowledge base page


def kb_page() -> AppTest:
    at = new_app()
    at.switch_page(KB_PAGE).run()
    assert not at.exception, at.exception
    return at


def test_kb_page_create_upload_good_and_bad_file(engine):
    at = kb_page()
    at.text_input(key="new_kb").input("upload-test")
    buttons(at)["Create"].click().run()
    assert not at.exception
    assert "upload-test" in [k["kb"] for k in engine.kbs()]
    assert at.selectbox(key="w_kb").value == "upload-test"
    up = at.file_uploader(key="uploads")
    assert up.accept_multiple_files and {".txt", ".md", ".pdf", ".docx", ".html"} <= set(up.allowed_type)
    up.set_value([("blender.txt", GOOD_TXT, "text/plain"),
                  ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "application/pdf")]).run()
    at.button(key="index").click().run()
    assert not at.exception
    assert "broken.pdf" in errors(at), "the error names the bad file"
    table = at.dataframe[0].value
    rows = {r["file"]: r for r in table.to_dict("records")}
    assert rows["blender.txt"]["status"] == "indexed" and rows["blender.txt"]["sentences"] >= 5
    assert rows["broken.pdf"]["status"] == "error" and rows["broken.pdf"]["detail"]
    assert any(c.value.startswith("Done:") for c in at.caption)  # the bar's last line, kept after the rerun
    assert [d.source for d in engine.docs("upload-test")] == ["blender.txt"]

    at.button(key="index").click().run()  # the same files again: unchanged is skipped
    rows = {r["file"]: r for r in at.dataframe[0].value.to_dict("records")}
    assert rows["blender.txt"]["status"] == "unchanged"


def test_kb_page_documents_preview_delete_and_system(engine):
    engine.index_files("docs-test", [("blender.txt", GOOD_TXT), ("toaster.txt", EVIL_TXT)])
    at = kb_page()
    at.selectbox(key="w_kb").set_value("docs-test").run()
    docs = at.dataframe[0].value  # the Documents tab (no upload result yet)
    assert set(docs["file"]) == {"blender.txt", "toaster.txt"} and (docs["sentences"] > 0).all()
    body = page_html(at)
    assert 'class="swr-split"' in body and "swr-sent-n" in body, "the sentence split preview"
    assert "<script" not in body.lower()
    assert "qdrant-edge" in body and "multilingual-e5-small" in body, "the system panel"
    assert any(m.label == "Device" for m in at.metric)

    doc = at.selectbox(key="doc_pick")
    doc.select_index(next(k for k, o in enumerate(doc.options) if o.startswith("toaster.txt"))).run()
    at.button(key="delete-doc").click().run()
    assert not at.exception
    assert sorted(d.source for d in engine.docs("docs-test")) == ["blender.txt", "toaster.txt"]  # asks first
    assert any("Delete toaster.txt" in w.value for w in at.warning)
    at.button(key="delete-doc-no").click().run()
    assert not at.warning and len(engine.docs("docs-test")) == 2  # cancelled: nothing gone, no question
    at.button(key="delete-doc").click().run()
    at.button(key="delete-doc-yes").click().run()
    assert not at.exception
    assert [d.source for d in engine.docs("docs-test")] == ["blender.txt"]
    assert not at.warning  # the question is gone once used
    assert any("toaster.txt" in e.source for e in engine.trash.entries())


def test_kb_page_delete_kb_needs_confirmation(engine):
    engine.create_kb("doomed")
    at = kb_page()
    at.selectbox(key="w_kb").set_value("doomed").run()
    assert at.button(key="delete-kb").disabled
    box = at.checkbox(key="confirm_delete_kb-doomed")
    assert "“doomed”" in box.label and "0 documents" in box.label  # names what goes
    box.check().run()
    at.button(key="delete-kb").click().run()
    assert not at.exception
    assert "doomed" not in [k["kb"] for k in engine.kbs()]
    landed = at.selectbox(key="w_kb").value
    assert landed != "doomed"
    # the new selection's box is unticked and its delete button dead: no second click wipes it
    assert not at.checkbox(key=f"confirm_delete_kb-{landed}").value
    assert at.button(key="delete-kb").disabled
    assert "confirm_delete_kb-doomed" not in at.session_state
    [entry] = [e for e in engine.trash.entries() if e.kb == "doomed"]
    at.button(key=f"restore-{entry.id}").click().run()
    assert not at.exception and "doomed" in [k["kb"] for k in engine.kbs()]
    assert at.selectbox(key="w_kb").value == "doomed"


def test_kb_page_create_existing_says_it_exists_and_keeps_backslashes(engine):
    at = kb_page()
    at.text_input(key="new_kb").input("a\\b")
    next(b for b in at.button if b.label == "Create").click().run()
    [msg] = [s.value for s in at.success]  # one backslash (escaped as &#92;), not repr's two
    assert "Created knowledge base “a&#92;b”" in msg and "&#92;&#92;" not in msg, msg
    at.text_input(key="new_kb").input("a\\b")
    next(b for b in at.button if b.label == "Create").click().run()
    assert not at.success and any("exists already" in i.value for i in at.info)


def test_kb_page_preset_questions_are_editable(engine, app_home):
    engine.index_files("presets-test", [("blender.txt", GOOD_TXT)])
    at = kb_page()
    at.selectbox(key="w_kb").set_value("presets-test").run()
    assert len(at.data_editor) == 1
    at.session_state["golden-presets-test"] = {
        "edited_rows": {}, "deleted_rows": [],
        "added_rows": [{"question": "How long is the ZX-9 warranty?", "expected_answer": "three years",
                        "source": "blender.txt"}]}
    buttons(at)["Save preset questions"].click().run()
    assert not at.exception
    saved = (app_home / "golden" / "presets-test.csv").read_text(encoding="utf-8")
    assert "How long is the ZX-9 warranty?" in saved

    chat = new_app()
    chat.selectbox(key="w_kb").set_value("presets-test").run()
    chat.toggle(key="w_demo").set_value(True).run()
    preset = next(b for b in chat.button if b.label == "How long is the ZX-9 warranty?")
    preset.click().run()
    assert not chat.exception
    assert any("three years" in c["text"] for c in cards(chat, r"a1-"))


def test_follow_up_is_searched_as_a_standalone_question_shown_editable_and_re_askable(engine):
    at = new_app()
    ask(at, "电饭煲显示E4是什么意思？")
    ask(at, "那E2呢？")
    body = html.unescape(page_html(at))
    assert "searched for: <b>电饭煲显示E2是什么意思？</b>" in body
    assert any(c["head"].startswith("[") and "顶部传感器开路" in c["text"] for c in cards(at, r"a2-")), \
        "the second answer keeps its own evidence: the rice cooker's E2"
    assert any("内胆未放入" in c["text"] for c in cards(at, r"a1-")), "the first answer keeps its evidence"
    box = next(t for t in at.text_input if t.value == "电饭煲显示E2是什么意思？")
    box.set_value("电饭煲 E3 顶部传感器短路").run()
    next(b for b in at.button if b.label == "Ask again" and b.key.startswith("reask-")).click().run()
    assert not at.exception, at.exception
    body = html.unescape(page_html(at))
    assert "searched for: <b>电饭煲 E3 顶部传感器短路</b>" in body
    assert any("顶部传感器短路" in c["text"] for c in cards(at, r"a3-"))

def test_kb_deleted_elsewhere_keeps_the_question_and_marks_old_answers(engine):
    """Another user deletes my knowledge base: my next question is not run against the one the
    selection fell back to; a notice, the question kept; the old answer is marked."""
    engine.index_files("mine", [("blender.txt", GOOD_TXT)])
    at = new_app()
    at.selectbox(key="w_kb").set_value("mine").run()
    ask(at, "How long is the ZX-9 warranty?")
    assert "knowledge base “mine”" in html.unescape(page_html(at))  # each answer names its KB
    engine.delete_kb("mine")  # elsewhere
    at.chat_input[0].set_value("Does the ZX-9 need descaling?").run()
    assert not at.exception
    body = html.unescape(page_html(at))
    errors = " ".join(e.value for e in at.error)
    assert "deleted" in html.unescape(errors) and "Your question was not asked" in html.unescape(errors)
    assert "Does the ZX-9 need descaling?" in body  # kept, with "Ask again"
    assert len(state_history(at)) == 1  # nothing was asked of the fallback KB
    assert "has been deleted since this answer" in body
    assert "Ask again" in buttons(at)


def state_history(at):
    return at.session_state["history"]


def test_history_is_restored_after_a_reload(engine):
    at = ask(new_app(), Q)
    sid = at.query_params["s"][0] if isinstance(at.query_params["s"], list) else at.query_params["s"]
    assert len(sid) == 32
    fresh = AppTest.from_file(APP, default_timeout=120)
    fresh.query_params["s"] = sid  # a reload: the same URL, a new browser session
    fresh.run()
    assert not fresh.exception
    [entry] = fresh.session_state["history"]
    assert entry["question"] == Q and entry["result"].passages
    assert cards(fresh, r"a1-"), "the restored answer shows its evidence"
    other = new_app()  # no id: a new conversation
    assert not other.session_state["history"]


def test_export_is_named_after_the_question_and_date():
    from swr.answer.result import AskResult
    from swr.app.components.answer import export_name

    r = AskResult(question="电热水壶 / first use? <x>", kb="k", answer="", answer_kind="extractive", passages=[],
                  settings={}, context_chars=0, context_tokens=0, timings={}, created_at="2026-12-01T09:20:31+00:00")
    assert export_name(r) == "evidence-电热水壶-first-use-x-2026-12-01-0920.html"
    r.question = "../../etc/passwd"
    assert export_name(r) == "evidence-etc-passwd-2026-12-01-0920.html"
