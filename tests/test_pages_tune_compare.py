"""The Tune and Compare pages through ``streamlit.testing.v1.AppTest``, on the real engine (bundled
multilingual-e5-small + Qdrant Edge) in a temporary SWR_HOME, as in ``test_app.py``.

One engine per module (``st.cache_resource``): SWR_HOME is set before the first AppTest; the first
run indexes the sample KB with the real model, hence the long ``default_timeout``. The grids are
tiny (2 windows x 2 top-k x 1 mode, one chunk size, 6 questions).
"""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import app_environment

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TUNE = "pages/2_Tune.py"
COMPARE = "pages/4_Compare.py"
Q = "电热水壶第一次使用前要做什么？"
BLENDER_TXT = ("The ZX-9 blender has a 1200 W motor. Its jar holds 1.5 litres. "
               "The ZX-9 warranty lasts three years from the date of purchase. "
               "To claim it, call the service line with your receipt. "
               "Never run the blender empty for more than ten seconds. "
               "Clean the blades under running water right after use.\n").encode()
EVIL_TXT = ("Safety notice for the QQ-1 toaster. <script>alert('x')</script> "
            "Click [here](javascript:alert(1)) <img src=x onerror=alert(2)> to win. "
            "The QQ-1 toaster warranty is one year. Descale it every month. "
            "Never put the QQ-1 toaster in water. Unplug it before cleaning.\n").encode()


_STARTED: list = []


@pytest.fixture(scope="module", autouse=True)
def app_home(tmp_path_factory):
    """One SWR_HOME for the module's shared engine (conftest's environment); closes the engine the
    pages used, and starts none just to close it."""
    with app_environment(tmp_path_factory.mktemp("tunehome"),
                         close=lambda: _STARTED and _STARTED[0].close()) as home:
        yield home


@pytest.fixture
def engine(app_home):
    """The engine the pages use (the very cached instance)."""
    from swr.app import base as ui

    eng = ui.get_engine()
    if not _STARTED:
        _STARTED.append(eng)
    return eng


def page(path: str, kb: str = "sample") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    assert not at.exception, at.exception
    if at.selectbox(key="w_kb").value != kb:
        at.selectbox(key="w_kb").set_value(kb).run()
        assert not at.exception, at.exception
    at.switch_page(path).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="w_kb").value == kb, "the page keeps the chat's knowledge base"
    return at


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def page_html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.html)


def charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def sweep(at: AppTest, chunks: int | None = None, window_modes: list[str] | None = None) -> AppTest:
    """Run a 2 windows x 2 top-k grid in hybrid mode on at most 6 questions (and one chunk size);
    ``window_modes`` (default: the page's, every mode) narrows the window modes swept."""
    if window_modes is not None:
        at.multiselect(key="w_tune_window_modes").set_value(window_modes)
    at.multiselect(key="w_tune_windows").set_value([0, 2])
    at.multiselect(key="w_tune_top_ks").set_value([1, 3])
    at.multiselect(key="w_tune_modes").set_value(["hybrid"])
    at.toggle(key="w_tune_chunks").set_value(chunks is not None)
    at.multiselect(key="w_tune_chunk_sizes").set_value([chunks or 256])
    at.number_input(key="w_tune_limit").set_value(6)
    button(at, "Run sweep").click()
    return run(at)


# --------------------------------------------------------------------------------------------
# Tune


def test_pareto_frontier_per_method():
    import pandas as pd

    from swr.app import tune_charts as ui

    df = pd.DataFrame({"series": ["w"] * 4 + ["c"] * 2, "context_chars": [100, 200, 300, 400, 150, 500],
                       "hit_rate": [0.5, 0.4, 0.7, 0.7, 0.6, 0.9]})
    front = ui.pareto(df, "hit_rate")
    assert set(front.index) == {0, 2, 4, 5}, "dominated (more context, no better) configurations are off it"
    spec = ui.frontier_chart(df.assign(configuration="x", mrr=0.0, context_tokens=0, latency_ms=0.0)).to_dict()
    rows = next(iter(v for v in spec["datasets"].values() if len(v) == 4))
    assert {r["context_chars"] for r in rows} == {100, 300, 150, 500}, "the line runs through the frontier"


def test_tune_sweeps_golden_questions_shows_table_charts_and_applies_to_chat(engine):
    at = page(TUNE)
    links = {link.proto.label for link in at.get("page_link")}
    assert {"Chat", "Knowledge bases", "Tune", "Compare"} <= links, links
    assert ("Verify" in links) == (ROOT / "pages" / "3_Verify.py").is_file()
    assert "30 usable questions" in html.unescape(at.caption[1].value), "the sample KB's golden file"
    # no chunk baseline here (chunking the whole sample KB embeds it all again: slow), fixed windows only
    assert set(at.multiselect(key="w_tune_window_modes").value) == {"fixed", "section", "budget"}, "the default"
    sweep(at, window_modes=["fixed"])
    assert at.progress and at.progress[0].value == 100
    table = at.dataframe[0].value
    assert len(table) == 2 * 2, "2 windows x 2 top-k"
    assert set(table["method"]) == {"window"} and (table["questions"] == 6).all()
    assert {"hit_rate", "mrr", "context_chars", "context_tokens", "latency_ms"} <= set(table.columns)
    w = table[table["method"] == "window"].set_index(["window_size", "top_k"])
    assert w.loc[(2, 3), "context_chars"] > w.loc[(0, 1), "context_chars"]
    assert w.loc[(2, 3), "hit_rate"] >= w.loc[(0, 1), "hit_rate"] and w["hit_rate"].max() > 0
    specs = charts(at)
    assert len(specs) == 2, "the frontier chart and the heatmap"
    frontier, heat = (json.dumps(s, ensure_ascii=False) for s in specs)
    assert '"line"' in frontier and '"point"' in frontier and "context_chars" in frontier and "series" in frontier
    assert "window_size" in heat and "top_k" in heat and '"rect"' in heat
    from swr.app import tune_charts as ui

    df = ui.tune_frame(at.session_state["tune_result"]["rows"])
    data = ui.frontier_chart(df).to_dict()["datasets"]
    series = {r["series"] for rows in data.values() for r in rows}
    assert series == {"sentence windows"}
    assert at.download_button[0].label == "Export CSV"

    # apply a configuration that is not the chat's default (window 3, top-k 3)
    pick = at.selectbox(key="tune_pick")
    best = ui.best_window_row(at.session_state["tune_result"]["rows"])
    assert pick.value == best.config.label(), "the best configuration is preselected"
    pick.set_value("window w=0 hybrid k=1")
    button(at, "Apply to chat").click()
    run(at)
    assert "Applied to the chat: window 0 · top-k 1 · hybrid" in html.unescape(at.success[0].value)
    ss = at.session_state
    assert (ss["cfg_window"], ss["cfg_top_k"], ss["cfg_mode"]) == (0, 1, "hybrid")
    assert at.dataframe[0].value.equals(table), "the results survive reruns"

    at.switch_page("app.py").run()
    assert not at.exception
    assert at.slider(key="w_window").value == 0 and at.slider(key="w_top_k").value == 1
    assert at.radio(key="w_mode").value == "hybrid"
    at.chat_input[0].set_value(Q).run()
    assert not at.exception
    stamp = html.unescape(re.search(r'<div class="swr-stamp">(.*?)</div>', page_html(at)).group(1))
    assert stamp.startswith(f"window 0 · top-k 1 · hybrid/{engine.settings.fusion}"), \
        "the chat uses exactly what was tested"

    at.switch_page(TUNE).run()
    assert not at.exception and len(at.dataframe[0].value) == 4, "still there after a page switch"
    at.selectbox(key="tune_pick").set_value("window w=2 hybrid k=3")
    button(at, "Apply and chat").click().run()
    assert not at.exception
    assert at.chat_input, "switched to the chat page"
    assert at.slider(key="w_window").value == 2 and at.slider(key="w_top_k").value == 3


def test_tune_sweeps_section_windows_with_no_fixed_window_picked(engine):
    # section windows sweep the budgets: clearing the fixed windows is no reason to refuse the run
    at = page(TUNE)
    at.multiselect(key="w_tune_window_modes").set_value(["section"])
    at.multiselect(key="w_tune_windows").set_value([])
    at.multiselect(key="w_tune_budgets").set_value([600])
    at.multiselect(key="w_tune_top_ks").set_value([1, 3])
    at.multiselect(key="w_tune_modes").set_value(["hybrid"])
    at.toggle(key="w_tune_chunks").set_value(False)
    at.number_input(key="w_tune_limit").set_value(3)
    button(at, "Run sweep").click()
    at = run(at)
    assert not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert len(table) == 2 and set(table["window_mode"]) == {"section"}, table
    assert len(charts(at)) == 1, "the frontier only: the heatmap is of fixed windows"
    assert any("heatmap is of fixed windows" in c.value for c in at.caption)


def test_tune_uploaded_jsonl_question_set_with_chunk_baseline(engine):
    engine.index_files("tune-small", [("blender.txt", BLENDER_TXT)])
    at = page(TUNE, "tune-small")
    assert "no preset questions" in at.info[0].value
    at.radio(key="tune_src").set_value("Upload a file").run()
    rows = [{"question": "How long is the ZX-9 warranty?", "answers": ["three years"]},
            {"question": "How much does the ZX-9 jar hold?", "expected_answer": "1.5 litres|1.5 l"},
            {"question": "no answer here"}]
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()
    at.file_uploader(key="tune_upload").set_value([("mine.jsonl", data, "application/json")]).run()
    assert not at.exception
    assert "2 usable questions (1 without an expected answer skipped)" in html.unescape(at.caption[1].value)
    sweep(at, chunks=128)
    table = at.dataframe[0].value
    # 2 fixed windows x 2 top-k, the section and budget windows the page sweeps by default, 1 chunk size x 2
    fixed = table[table["window_mode"] == "fixed"]
    assert len(fixed) == 4 and set(table["window_mode"].dropna()) == {"fixed", "section", "budget"}
    assert len(table[table["method"] == "chunks"]) == 2 and (table["questions"] == 2).all()
    assert set(table["method"]) == {"window", "chunks"} and set(table["chunk_size"].dropna()) == {128}
    assert "mine.jsonl" in html.unescape(" ".join(c.value for c in at.caption))
    from swr.app import tune_charts as ui

    data = ui.frontier_chart(ui.tune_frame(at.session_state["tune_result"]["rows"])).to_dict()["datasets"]
    assert {r["series"] for rows in data.values() for r in rows} == {"sentence windows", "chunks 128"}, \
        "one line per method"
    assert "~chunks:tune-small:128:20" in [k["kb"] for k in engine.kbs(hidden=True)]
    assert at.selectbox(key="w_kb").options == [o for o in at.selectbox(key="w_kb").options if "~" not in o]

    at.file_uploader(key="tune_upload").set_value([("bad.csv", b"foo,bar\n1,2\n", "text/csv")]).run()
    assert not at.exception
    assert "bad.csv: not a question set" in html.unescape(at.error[0].value)


# --------------------------------------------------------------------------------------------
# Compare and the probe


_ONLY = re.compile(r'<div class="swr-passage swr-only swr-only-([ab])" id="ac([ab])-passage-\d+">'
                   r'<div class="swr-onlybadge">(.*?)</div>')


def test_compare_two_windows_marks_sentences_only_one_side_sent(engine):
    at = page(COMPARE)
    assert at.text_input(key="w_cmp_q").value == Q, "the first preset question"
    assert (at.slider(key="w_cmp_a_window").value, at.slider(key="w_cmp_b_window").value) == (1, 3)
    at.button(key="cmp-go").click()
    run(at)
    body = page_html(at)
    assert body.count('class="swr-answer"') == 2, "both answers"
    a_cards = re.findall(r'id="aca-passage-\d+"', body)
    b_cards = re.findall(r'id="acb-passage-\d+"', body)
    assert a_cards and b_cards, "both evidence lists"
    marked = _ONLY.findall(body)
    assert marked and all(s == t == "b" for s, t, _ in marked), "window 3 sends sentences window 1 does not"
    assert all("only in B" in html.unescape(m[2]) for m in marked)
    res = at.session_state["cmp_result"]["sides"]
    from swr.app import compare as ui

    a, b = (ui.context_sentences(res[s]["result"].passages) for s in "ab")
    assert a < b, "same hits: window 1's sentences are a subset of window 3's"
    assert f"only in <span class=\"swr-side-b\">B</span> <b>{len(b - a)}</b>" in body
    assert res["a"]["result"].settings["window_size"] == 1 and res["b"]["result"].settings["window_size"] == 3
    # each side's hits open in their document, as the chat's do
    for side in "ab":
        hits = sum(len(p.hits) for p in res[side]["result"].passages)
        assert len([b for b in at.button if b.key and b.key.startswith(f"opendoc-cmp-{side}-")]) == hits >= 1
    first = res["b"]["result"].passages[0]
    best = min(first.hits, key=lambda h: h.rank)
    at.button(key=f"opendoc-cmp-b-1-{best.i}").click()
    run(at)
    view = "\n".join(h.value for h in at.html)
    assert 'class="swr-dv-doc"' in view and f'swr-dv-hit" data-i="{best.i}"' in view, "the document view opened"

    # a preset sets both sides from the chat's settings
    at.selectbox(key="cmp_preset").set_value("hybrid vs dense").run()
    assert not at.exception
    assert at.radio(key="w_cmp_a_mode").value == "hybrid" and at.radio(key="w_cmp_b_mode").value == "dense"
    assert at.slider(key="w_cmp_a_window").value == at.slider(key="w_cmp_b_window").value == 3
    at.button(key="cmp-go").click()
    run(at)
    res = at.session_state["cmp_result"]["sides"]
    assert res["b"]["result"].settings["mode"] == "dense"
    a, b = (ui.context_sentences(res[s]["result"].passages) for s in "ab")
    sides = {s for s, _, _ in _ONLY.findall(page_html(at))}
    assert sides == {s for s, only in (("a", a - b), ("b", b - a)) if only}, "marks follow the set difference"


def test_compare_escapes_document_text(engine):
    engine.index_files("evil-cmp", [("toaster.txt", EVIL_TXT)])
    at = page(COMPARE, "sample")
    at.selectbox(key="w_kb").set_value("evil-cmp").run()
    assert at.selectbox(key="w_kb").value == "evil-cmp", "picking another knowledge base on this page works"
    assert at.text_input(key="w_cmp_q").value == "", "no preset question in that one: the sample's is gone"
    at.text_input(key="w_cmp_q").input("QQ-1 toaster safety notice <b>now</b>").run()
    at.slider(key="w_cmp_a_window").set_value(0)
    at.slider(key="w_cmp_b_window").set_value(2)
    at.button(key="cmp-go").click()
    run(at)
    body = page_html(at)
    assert "swr-only-b" in body and "&#60;script&#62;" in body
    assert "<script" not in body.lower() and "<img" not in body.lower() and "<b>now" not in body
    assert 'href="javascript' not in body.lower()


def test_probe_shows_ranks_and_the_limit_that_cut_a_sentence(engine):
    kb = engine.settings.sample_kb
    doc = next(d for d in engine.docs(kb) if d.source == "kettle_manual_zh.md")
    sentences = engine.doc_sentences(kb, doc.doc_id)
    top = engine.retrieve(Q, kb, top_k=3, mode="hybrid").hits
    target = next(h.sentence for h in top if h.sentence.doc_id == doc.doc_id)
    at = page(COMPARE)
    docs = at.selectbox(key="probe_doc")
    docs.set_value(doc.doc_id).run()
    pick = next(s for s in at.selectbox if s.label == "Sentence (type to search)")
    assert len(pick.options) == len(sentences)
    pick.set_value(target.i).run()
    at.button(key="probe-go").click()
    run(at)
    m = {x.label: x.value for x in at.metric}
    assert m["Cut by"] == "nothing (retrieved)", m
    assert m["Rank (hybrid)"].startswith("#") and m["Dense rank"].startswith("#")
    assert float(m["Dense score"]) > 0 and m["Sparse rank"].startswith("#")
    assert "Retrieved at rank" in html.unescape(page_html(at))
    p = at.session_state["probe_result"]["probe"]
    assert p["i"] == target.i and p["doc_id"] == doc.doc_id and p["retrieved"]

    # a sentence of another document, with top-k 1 on side A: not retrieved, and the reason says why
    other = next(d for d in engine.docs(kb) if d.source == "air_fryer_manual_en.md")
    at.slider(key="w_cmp_a_top_k").set_value(1)
    at.selectbox(key="probe_doc").set_value(other.doc_id).run()
    pick = next(s for s in at.selectbox if s.label == "Sentence (type to search)")
    pick.set_value(engine.doc_sentences(kb, other.doc_id)[5].i).run()
    at.button(key="probe-go").click()
    run(at)
    p = at.session_state["probe_result"]["probe"]
    assert p["doc_id"] == other.doc_id and not p["retrieved"] and p["params"]["top_k"] == 1
    m = {x.label: x.value for x in at.metric}
    assert m["Cut by"] in ("top-k", "candidate pool") and m["Dense score"] != "–"


# --------------------------------------------------------------------------------------------
# one RetrievalParams: the chat, Compare, the probe and Tune's sweep test the same settings


def _hits_of(passages) -> list[tuple]:
    return [(p.doc_id, p.first, p.last, [h.i for h in p.hits]) for p in passages]


def test_chat_compare_probe_and_sweep_use_the_sidebars_params(engine, monkeypatch):
    from swr.core.params import RetrievalParams

    at = page("app.py")
    at.radio(key="w_fusion").set_value("rrf").run()
    at.number_input(key="w_dense_k").set_value(30).run()
    at.number_input(key="w_sparse_k").set_value(40).run()
    at.checkbox(key="w_cutoff").check().run()  # min score 0.0: a cutoff stage that keeps every hit
    at.slider(key="w_window").set_value(2).run()
    at.chat_input[0].set_value(Q).run()
    assert not at.exception, at.exception
    entry = at.session_state["history"][0]
    chat: RetrievalParams = entry["params"]
    assert (chat.fusion, chat.dense_k, chat.sparse_k, chat.window_size, chat.stages, chat.min_score) == \
        ("rrf", 30, 40, 2, ("cutoff",), 0.0), chat
    assert entry["retrieval"].request == chat, "the engine ran the sidebar's params"

    # Compare: the preset "hybrid vs dense" starts both sides from the chat's params; A is the chat's
    at.switch_page(COMPARE).run()
    assert not at.exception, at.exception
    at.text_input(key="w_cmp_q").input(Q).run()
    at.selectbox(key="cmp_preset").set_value("hybrid vs dense").run()
    at.button(key="cmp-go").click()
    run(at)
    sides = at.session_state["cmp_result"]["sides"]
    assert sides["a"]["params"] == chat
    assert sides["b"]["params"] == chat.with_(mode="dense")
    assert _hits_of(sides["a"]["result"].passages) == _hits_of(entry["result"].passages), \
        "Compare ranks as the chat does"

    # the probe with side A: the chat's params, and the chat's top hit is its rank 1
    top = entry["retrieval"].hits[0].sentence
    at.selectbox(key="probe_doc").set_value(top.doc_id).run()
    next(s for s in at.selectbox if s.label == "Sentence (type to search)").set_value(top.i).run()
    at.radio(key="probe_side").set_value("a").run()
    at.button(key="probe-go").click()
    run(at)
    got = at.session_state["probe_result"]
    assert got["params"] == chat
    assert {k: got["probe"]["params"][k] for k in ("mode", "fusion", "dense_k", "sparse_k", "top_k")} == \
        {"mode": chat.mode, "fusion": "rrf", "dense_k": 30, "sparse_k": 40, "top_k": chat.top_k}
    assert got["probe"]["rank"] == 1, "the probe ranks as the chat does"

    # Tune: every search of the sweep is the chat's params with only top-k and mode changed
    calls: list[RetrievalParams] = []
    real = engine.retrieve

    def recording(question, kb, params=None, **changes):
        calls.append((params or engine.default_params()).with_(**changes))
        return real(question, kb, params, **changes)

    monkeypatch.setattr(engine, "retrieve", recording)
    at.switch_page(TUNE).run()
    assert not at.exception, at.exception
    sweep(at)
    assert at.session_state["tune_result"]["params"] == chat
    assert calls and all(c.with_(top_k=chat.top_k, mode=chat.mode) == chat for c in calls), calls[:3]
    # max(top-k) of the grid, and top-k 1 searched on its own: the sample knowledge base is of two
    # languages, whose fusion places sentences by the top k it fills (Retrieval.prefix_exact)
    assert {c.mode for c in calls} == {"hybrid"} and {c.top_k for c in calls} == {1, 3}
    assert sum(c.top_k == 1 for c in calls) == sum(c.top_k == 3 for c in calls)


def test_apply_params_is_the_inverse_of_chat_params(engine):
    """Applying a tested configuration (Tune) writes back the very params the pages read."""
    tested = engine.default_params(window_size=1, top_k=7, mode="sparse", fusion="weighted", dense_weight=0.7,
                                   dense_k=11, sparse_k=12, sources=["kettle_manual_zh.md"], lang="zh",
                                   min_score=0.25)
    script = ("import streamlit as st\nfrom swr.app import state\nfrom swr.app.base import get_engine\n"
              "state.apply_params(st.session_state['tested'])\n"
              "st.session_state['read'] = state.chat_params(get_engine().default_params())\n")
    at = AppTest.from_string(script, default_timeout=120)
    at.session_state["tested"] = tested
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["read"] == tested


def test_verify_page_limits_claims_by_verify_params(engine, monkeypatch):
    """The Verify page's knobs and claim limit are VerifyParams' (the CLI's), not page constants."""
    from dataclasses import dataclass

    from swr.app import verify as page_module
    from swr.core.params import VerifyParams

    @dataclass(frozen=True)
    class TwoClaims(VerifyParams):
        max_claims: int = 2

    monkeypatch.setattr(page_module, "VerifyParams", TwoClaims)
    at = page("pages/3_Verify.py")
    d = VerifyParams()
    assert at.number_input(key="verify_candidates").value == d.candidates
    assert at.number_input(key="verify_window").value == d.window
    at.text_area(key="verify_claims").set_value("电热水壶要煮沸三次\n壶内装满水至MAX刻度\n月亮是奶酪做的")
    at.button(key="verify_go").click().run()
    assert not at.exception, at.exception
    assert "Only the first 2 of 3 claims" in at.warning[0].value
    assert len(at.dataframe[0].value) == 2
