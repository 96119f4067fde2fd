"""Feedback that becomes a test, and what the sparse side searched for.

Real Qdrant Edge store; the fast fake embedder where the model does not matter (roles, storage,
trash, the pages through AppTest), the real jieba BM25 everywhere. A not-helpful answer with its
right sentence becomes a golden question (origin feedback) that the preset-questions panel shows
and the very next Tune sweep measures."""
from __future__ import annotations

import csv
import html
import io
import json

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, FakeEmbedder
from swr import evaluate
from swr.core.errors import BadRequest, Forbidden, NotFound
from swr.core.settings import Settings
from swr.manage import golden, presets
from swr.manage.access import Actor, AuditLog
from swr.manage.feedback import FeedbackLog, feedback_path

DOC = ("The QX-5 kettle has a 1.7 litre jug and a 2200 W heater.\n"
       "Descale the QX-5 kettle every month with white vinegar.\n"
       "Code E4 on the QX-5 display means the base contact is loose.\n"
       "The QX-5 warranty lasts three years from the date of purchase.\n"
       "Keep the receipt for any warranty claim.\n")
RIGHT = "The QX-5 warranty lasts three years from the date of purchase."


@pytest.fixture
def eng(tmp_path):
    from swr.engine import Engine

    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="")
    e = Engine(s, embedder=FakeEmbedder())
    assert e.index_files("faq", [("qx5.txt", DOC.encode())])[0].ok
    assert e.index_files("other", [("o.txt", b"Other text about lamps.\n")])[0].ok
    yield e
    e.close()


def _sentence(eng, text: str) -> dict:
    doc = eng.docs("faq")[0]
    s = next(s for s in eng.doc_sentences("faq", doc.doc_id) if s.text.strip() == text)
    return {"doc_id": s.doc_id, "i": s.i, "source": s.source, "sentence": s.text, "page": s.page}


# -- the golden set ----------------------------------------------------------------------------

def test_golden_rows_add_list_delete_with_stable_ids_and_atomic_writes(eng):
    s = eng.settings
    assert eng.golden("faq") == []
    row = eng.add_golden("faq", "How long is the QX-5 warranty?", "three years", "qx5.txt")
    assert row["id"] == golden.row_id("How long is the QX-5 warranty?") and row["origin"] == "cli"
    again = eng.add_golden("faq", "How long is the QX-5 warranty?", "three  years\nfrom", "qx5.txt", origin="panel")
    assert again["id"] == row["id"] and again["expected_answer"] == "three years from"  # one row per question
    eng.add_golden("faq", "What does E4 mean?", "base contact is loose")
    rows = eng.golden("faq")
    assert [r["question"] for r in rows] == ["How long is the QX-5 warranty?", "What does E4 mean?"]
    # the panel (pandas) and Tune read the same file
    assert presets.load_golden(s, "faq")["question"].tolist() == [r["question"] for r in rows]
    assert [q.answers for q in presets.golden_questions(s, "faq")] == [["three years from"], ["base contact is loose"]]
    gone = eng.delete_golden("faq", [rows[1]["id"]])
    assert [g["question"] for g in gone] == ["What does E4 mean?"]
    with pytest.raises(NotFound):
        eng.delete_golden("faq", ["nosuchid00"])
    assert len(eng.golden("faq")) == 1
    assert eng.delete_golden("faq", ["How long is the QX-5 warranty?"])  # a question text names its row
    assert eng.golden("faq") == []
    with pytest.raises(BadRequest):
        eng.add_golden("faq", "A question?", "  ")
    with pytest.raises(NotFound):
        eng.golden("nope")
    assert not [p for p in golden.golden_path(s, "faq").parent.iterdir() if p.name.endswith(".tmp")]


def test_sample_kb_golden_keeps_the_bundled_questions_when_one_is_added(tmp_path):
    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path / "home", sample_kb="sample")
    bundled = golden.list_golden(s, "sample")
    assert len(bundled) == 30
    golden.add_golden(s, "sample", "电热水壶的保修期是多久？", "整机保修", "kettle_manual_zh.md", origin="feedback")
    rows = golden.list_golden(s, "sample")
    assert len(rows) == 31 and rows[-1]["origin"] == "feedback"
    assert [r["question"] for r in rows[:30]] == [r["question"] for r in bundled]
    assert golden.golden_path(s, "sample").is_file()


# -- feedback becomes a test --------------------------------------------------------------------

@pytest.mark.parametrize("order", ["verdict-first", "sentence-first"])
def test_not_helpful_with_the_right_sentence_becomes_a_golden_question(eng, order):
    q = "How long is the QX-5 warranty?"
    settings = {"window_size": 0, "top_k": 1, "mode": "sparse", "fusion": "dbsf", "dense_k": 50, "sparse_k": 50}
    common = {"question": q, "answer": "sess-1", "settings": settings}
    steps = [("answer", {"verdict": "not_helpful", "answer_text": "Keep the receipt."}),
             ("right_sentence", _sentence(eng, RIGHT))]
    if order == "sentence-first":
        steps.reverse()
    first = eng.record_feedback("faq", steps[0][0], **common, **steps[0][1])
    assert first["golden"] is None
    second = eng.record_feedback("faq", steps[1][0], **common, **steps[1][1])
    made = second["golden"]
    assert made and made["question"] == q and made["expected_answer"] == RIGHT and made["origin"] == "feedback"
    assert made["source"] == "qx5.txt"
    assert [(r["question"], r["origin"]) for r in eng.golden("faq")] == [(q, "feedback")]
    # Tune's question list is the golden set: the question is there at once, its expected snippet the sentence
    tq = presets.golden_questions(eng.settings, "faq")
    assert [(x.question, x.answers, x.source) for x in tq] == [(q, [RIGHT], "qx5.txt")]
    rep = eng.feedback("faq")
    assert rep["summary"] == {"kb": "faq", "entries": 2, "helpful": 0, "not_helpful": 1, "wrong_hits": 0,
                              "right_sentences": 1, "golden": 1}
    nh = rep["not_helpful"][0]
    assert nh["question"] == q and nh["settings"] == settings and nh["right_sentence"]["sentence"] == RIGHT
    assert nh["golden"] == made["id"]


def test_helpful_wrong_hits_counts_csv_and_a_restart(eng, tmp_path):
    w = _sentence(eng, "Keep the receipt for any warranty claim.")
    eng.record_feedback("faq", "answer", question="Is descaling needed?", answer="a1", verdict="helpful",
                        settings={"top_k": 3, "mode": "hybrid"})
    eng.record_feedback("faq", "answer", question="Warranty?", answer="a2", verdict="helpful")
    eng.record_feedback("faq", "answer", question="Warranty?", answer="a2", verdict="not_helpful")  # changed mind
    eng.record_feedback("faq", "wrong_hit", question="Warranty?", answer="a2", **w)
    with pytest.raises(BadRequest):
        eng.record_feedback("faq", "answer", question="Warranty?", answer="a2", verdict="meh")
    with pytest.raises(BadRequest):
        eng.record_feedback("faq", "wrong_hit", question="Warranty?", answer="a2")
    summary = eng.feedback("faq")["summary"]
    assert (summary["helpful"], summary["not_helpful"], summary["wrong_hits"], summary["golden"]) == (1, 1, 1, 0)
    assert eng.golden("faq") == []  # a wrong hit alone makes no test
    # a new process on the same SWR_HOME reads it all back
    again = FeedbackLog(Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=eng.settings.home), "faq")
    assert again.summary() == summary
    rows = list(csv.DictReader(io.StringIO(eng.feedback("faq")["csv"])))
    assert [r["kind"] for r in rows] == ["answer", "answer", "answer", "wrong_hit"]
    assert rows[0]["top_k"] == "3" and rows[0]["mode"] == "hybrid" and json.loads(rows[0]["settings"])["top_k"] == 3
    assert rows[3]["sentence"] == "Keep the receipt for any warranty claim." and rows[3]["source"] == "qx5.txt"
    assert json.loads(feedback_path(eng.settings, "faq").read_text())["kb"] == "faq"


def test_the_next_sweep_measures_whether_a_setting_finds_the_chosen_sentence(eng):
    """The golden question made from feedback is judged by the sentence chosen: missed where the
    context lacks it (window 0, top-k 1: the sparse top hit is another warranty sentence), a hit
    where a wider window brings it in."""
    q = "Which receipt for the warranty claim?"
    top = eng.retrieve(q, "faq", top_k=1, mode="sparse").hits[0].sentence.text.strip()
    assert top == "Keep the receipt for any warranty claim."
    eng.record_feedback("faq", "answer", question=q, answer="s-9", verdict="not_helpful")
    assert eng.record_feedback("faq", "right_sentence", question=q, answer="s-9", **_sentence(eng, RIGHT))["golden"]
    rows = evaluate.sweep(eng, "faq", presets.golden_questions(eng.settings, "faq"), windows=[0, 1], top_ks=[1],
                          modes=["sparse"], chunk_sizes=[], details=True, window_modes=["fixed"])
    by = {r.config.window_size: r.hit_rate for r in rows}
    assert by == {0: 0.0, 1: 1.0}


# -- trash ------------------------------------------------------------------------------------

def test_feedback_and_golden_go_to_the_trash_with_the_kb_and_come_back(eng):
    eng.record_feedback("faq", "answer", question="Warranty?", answer="a1", verdict="not_helpful")
    eng.record_feedback("faq", "right_sentence", question="Warranty?", answer="a1", **_sentence(eng, RIGHT))
    fpath, gpath = feedback_path(eng.settings, "faq"), golden.golden_path(eng.settings, "faq")
    assert fpath.is_file() and gpath.is_file()
    before = (fpath.read_bytes(), gpath.read_bytes())
    eng.delete_kb("faq")
    assert not fpath.exists() and not gpath.exists()  # a new "faq" starts without them
    entry = next(e for e in eng.trash.entries() if e.kb == "faq")
    eng.trash.restore(entry.id)
    assert (fpath.read_bytes(), gpath.read_bytes()) == before
    assert eng.feedback("faq")["summary"]["golden"] == 1
    eng.delete_kb("faq", trash=False)
    assert not fpath.exists() and not gpath.exists()


# -- roles ------------------------------------------------------------------------------------

def _view(eng, actor):
    return eng.as_user(actor, audit=AuditLog(eng.settings.home / "audit.jsonl"))


def test_roles_agent_gives_feedback_editor_edits_viewer_writes_nothing(eng):
    audit = AuditLog(eng.settings.home / "audit.jsonl")
    agent = _view(eng, Actor("ann", "agent", frozenset({"faq"})))
    agent.record_feedback("faq", "answer", question="Warranty?", answer="x1", verdict="not_helpful")
    made = agent.record_feedback("faq", "right_sentence", question="Warranty?", answer="x1", **_sentence(eng, RIGHT))
    assert made["golden"]["origin"] == "feedback" and made["user"] == "ann"
    assert agent.golden("faq")[0]["question"] == "Warranty?"
    assert agent.feedback("faq")["summary"]["golden"] == 1
    with pytest.raises(Forbidden):
        agent.add_golden("faq", "Q?", "a")
    with pytest.raises(Forbidden):
        agent.delete_golden("faq", [made["golden"]["id"]])
    with pytest.raises(NotFound):
        agent.record_feedback("other", "answer", question="Q?", answer="x2", verdict="helpful")
    viewer = _view(eng, Actor("vic", "viewer", frozenset({"faq"})))
    with pytest.raises(Forbidden):
        viewer.record_feedback("faq", "answer", question="Warranty?", answer="x3", verdict="helpful")
    with pytest.raises(Forbidden):
        viewer.add_golden("faq", "Q?", "a")
    assert viewer.golden("faq")  # reading is fine
    editor = _view(eng, Actor("ed", "editor", frozenset(), frozenset({"faq"})))
    row = editor.add_golden("faq", "What does E4 mean?", "base contact")
    assert row["origin"] == "panel"
    assert [g["id"] for g in editor.delete_golden("faq", [made["golden"]["id"]])] == [made["golden"]["id"]]
    assert [r["question"] for r in eng.golden("faq")] == ["What does E4 mean?"]
    acts = [(e["user"], e["action"], e.get("detail")) for e in reversed(audit.entries())]
    assert acts == [("ann", "golden_add", "feedback"), ("ann", "refused", None), ("ann", "refused", None),
                    ("vic", "refused", None), ("vic", "refused", None), ("ed", "golden_add", "panel"),
                    ("ed", "golden_delete", None)]
    log = (eng.settings.home / "audit.jsonl").read_text()
    assert "three years" not in log and "Warranty?" not in log  # ids and names, never text


# -- §3: the BM25 terms -------------------------------------------------------------------------

def test_retrieval_carries_the_questions_bm25_terms_and_each_hits_matched_terms(eng):
    from swr.text.sparse import SparseEncoder

    r = eng.retrieve("What does E4 mean on the QX-5?", "faq", top_k=3, mode="sparse")
    assert r.query_tokens == ["e4", "mean", "qx-5"]  # the code kept whole, stop words gone, stemmed
    top = r.hits[0]
    assert "E4" in top.sentence.text and top.matched_tokens == ["e4", "mean", "qx-5"]  # "means" stems to "mean"
    assert all(set(h.matched_tokens) <= set(r.query_tokens) for h in r.hits)
    res = eng.ask("What does E4 mean on the QX-5?", "faq", top_k=3, mode="sparse")
    assert res.query_tokens == r.query_tokens
    e4 = [h for p in res.passages for h in p.hits if "E4" in h.sentence]
    assert [h.matched_tokens for h in e4] == [["e4", "mean", "qx-5"]]  # the passage hit keeps them
    dumped = [h for p in res.to_dict()["passages"] for h in p["hits"] if "E4" in h["sentence"]]
    assert dumped[0]["matched_tokens"] == ["e4", "mean", "qx-5"]
    zh = SparseEncoder("jieba")
    terms = zh.query_tokens("KX-2000 电热水壶的额定功率是多少？")
    assert terms == ["kx-2000", "电热水壶", "额定功率"]  # jieba's precise cut, the model number whole
    assert zh.matched_tokens(terms, "KX-2000 的额定功率：1800W") == ["kx-2000", "额定功率"]
    assert zh.matched_tokens(terms, "KX-3000 的容量：1.7L") == []  # KX-3000 is another model
    assert SparseEncoder("qdrant").query_tokens("E4") is None


def test_terms_are_escaped_in_the_header_and_on_the_badges():
    from swr.app.components.evidence import head
    from swr.core.types import Passage, PassageHit
    from swr.manage.render import passage_html

    hit = PassageHit(i=0, sentence="x <b>y</b>", score=1.0, start=0, end=10, matched_tokens=["<b>y</b>"])
    p = Passage(doc_id="d", source="s.txt", first=0, last=0, text="x <b>y</b>", hits=[hit], score=1.0)
    card = passage_html(p, 1)
    assert "matched &#60;b&#62;y&#60;&#47;b&#62;" in card.replace("/", "&#47;") or "matched &#60;b&#62;" in card
    assert "<b>" not in card
    h = head([p], 10, 3, query_tokens=["<img src=x>", "e4"])
    assert "<img" not in h and "&#60;img" in h and ">e4</code>" in h and "BM25 searched for" in h
    assert "terms not shown" in head([p], 10, 3, query_tokens=None)
    assert "BM25" not in head([p], 10, 3)  # the preview of a hand-built retrieval passes none


# -- the pages (AppTest, fake embedder on the real store) ----------------------------------------

@pytest.fixture
def app_eng(eng, monkeypatch):
    from swr.app import base as ui

    monkeypatch.setattr(ui, "get_engine", lambda: eng)
    return eng


def _text(at) -> str:
    return html.unescape(" ".join(str(e.value) for e in list(at.markdown) + list(at.caption) + list(at.html)))


def test_chat_feedback_makes_a_golden_question_tune_lists_and_the_feedback_page_counts(app_eng):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="w_kb").set_value("faq").run()
    at.chat_input[0].set_value("How long is the QX-5 warranty?").run()
    assert not at.exception, at.exception
    assert "BM25 searched for" in _text(at) and "qx-5" in _text(at)
    at.button(key="fb-down-1").click().run()
    assert "marked not helpful" in _text(at) and "choose the right sentence" in _text(at)
    picker = at.selectbox(key="fb-sent-1")
    labels = list(picker.options)  # every sentence of the passages, labelled "[n] sentence i: text"
    assert len(labels) == 5 and labels[0].startswith("[1] sentence 1: The QX-5 kettle")
    picker.set_value(next(n for n, lab in enumerate(labels) if "three years" in lab)).run()
    at.button(key="fb-right-1").click().run()
    assert not at.exception, at.exception
    assert "now golden question" in _text(at)
    done = at.button(key="fb-right-1")  # confirmed like "Wrong hit": marked, and not clicked twice
    assert done.label.startswith("Marked:") and done.disabled
    rows = app_eng.golden("faq")
    assert [(r["question"], r["expected_answer"], r["origin"]) for r in rows] == \
        [("How long is the QX-5 warranty?", RIGHT, "feedback")]

    at.switch_page("pages/2_Tune.py").run()  # the same session: Tune's question list, at once
    assert not at.exception, at.exception
    assert at.selectbox(key="w_kb").value == "faq"
    assert any("1 from feedback" in e.label for e in at.expander)
    qlist = next(h.value for h in at.html if "swr-tune-qs" in h.value)
    assert 'class="swr-tq swr-tq-fb"' in qlist and "How long is the QX-5 warranty?" in html.unescape(qlist)

    at.switch_page("pages/5_Feedback.py").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Not helpful"] == "1" and metrics["Golden from feedback"] == "1" and metrics["Right sentences"] == "1"
    table = at.dataframe[0].value
    assert table["question"].tolist() == ["How long is the QX-5 warranty?"]
    assert "top-k" in table["settings"][0] and table["right sentence"][0] == RIGHT
    assert at.download_button[0].label == "Export CSV"


def test_the_document_view_offers_the_right_sentence_too(app_eng):
    """The document view of a hit ("open in document") lists the sentences it shows; choosing one
    there is the same feedback as under the evidence."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.selectbox(key="w_kb").set_value("faq").run()
    at.chat_input[0].set_value("How long is the QX-5 warranty?").run()
    at.button(key="fb-down-1").click().run()
    result = at.session_state["history"][0]["result"]
    p = result.passages[0]
    hit = min(p.hits, key=lambda h: h.rank)
    at.button(key=f"opendoc-1-1-{hit.i}").click().run()
    assert not at.exception, at.exception
    picker = at.selectbox(key="fb-dvsent-1")
    labels = list(picker.options)
    assert len(labels) >= 5 and any("three years" in lab for lab in labels)  # the text view: window ± 10
    # a selection inside the dialog reruns only the dialog in a browser; AppTest reruns the page,
    # which closes the dialog: choose first, then open it again with the choice made
    at.session_state["fb-dvsent-1"] = next(n for n, lab in enumerate(labels) if "three years" in lab)
    at.button(key=f"opendoc-1-1-{hit.i}").click().run()
    assert not at.button(key="fb-dvright-1").disabled
    at.button(key="fb-dvright-1").click().run()
    assert not at.exception, at.exception
    assert [(r["question"], r["expected_answer"], r["origin"]) for r in app_eng.golden("faq")] == \
        [("How long is the QX-5 warranty?", RIGHT, "feedback")]
