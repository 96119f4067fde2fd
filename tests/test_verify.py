"""Claim verification (swr.verify.verify): windows, one batched embedding call, stored vectors reused,
the literal path, the merge, the verdict, the CLI and the Verify page.

Most tests use the fast fake embedder on the real Qdrant Edge store; the CLI test runs the real
CLI with MiniLM (in this process: conftest's ``swr_cli``); the page test is one AppTest on the bundled e5.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import numpy as np
import pytest

import swr.text.claims as cl
import swr.verify.verify as vf
from swr.core.errors import BadRequest
from swr.core.ids import sentence_id
from swr.core.rules.verify import E5
from swr.core.types import Sentence
from swr.store import open_store
from swr.verify.claim_io import read_claims
from swr.verify.results import PATHS
from swr.verify.windows import slide

ROOT = Path(__file__).resolve().parent.parent

KETTLE = ("The KX-2000 kettle holds 1.7 litres of water. It boils a full jug in four minutes. "
          "Never use the kettle without water. The warranty covers the heating element for two years. "
          "The lid opens with a button on the handle. Descale it every month with white vinegar. "
          "The power cord is 75 cm long. Keep the kettle away from children.\n")
BLENDER = ("The ZX-9 blender has a 1200 W motor. Its jar holds 1.5 litres. "
           "The blender warranty lasts three years from the date of purchase. "
           "Clean the blades under running water right after use. "
           "Never run the blender empty for more than ten seconds.\n")
CLAIMS = ["the warranty covers the heating element for two years", "the blender jar holds 1.5 litres",
          "the kettle boils water in four minutes"]


class Spy:
    """Wraps an embedder's encode_passages and records the size of every call."""

    def __init__(self, embedder):
        self.sizes: list[int] = []
        self._orig = embedder.encode_passages
        embedder.encode_passages = self

    def __call__(self, texts):
        self.sizes.append(len(texts))
        return self._orig(texts)


@pytest.fixture
def kb(fake_engine):
    res = fake_engine.index_files("manuals", [("kettle.txt", KETTLE.encode()), ("blender.txt", BLENDER.encode())])
    assert all(r.ok for r in res)
    return "manuals"


# -- windows --------------------------------------------------------------------------------
def test_slide_makes_windows_of_w_sentences_every_s_and_always_reaches_the_end():
    assert slide(0, 5, 2, 1) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert slide(0, 5, 2, 2) == [(0, 1), (2, 3), (4, 5)]
    assert slide(0, 4, 2, 2) == [(0, 1), (2, 3), (3, 4)]  # the step skips the end: a last window ends there
    assert slide(10, 16, 3, 2) == [(10, 12), (12, 14), (14, 16)]
    assert slide(3, 3, 2, 1) == [(3, 3)]  # shorter than w: one window
    assert slide(3, 4, 5, 1) == [(3, 4)]
    assert slide(0, 3, 1, 1) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert slide(0, 9, 4, 10) == [(0, 3), (6, 9)]
    assert slide(5, 4, 2, 1) == []
    with pytest.raises(ValueError):
        slide(0, 3, 0, 1)
    for first, last, w, s in [(0, 20, 3, 2), (2, 9, 4, 3), (0, 7, 2, 5)]:
        wins = slide(first, last, w, s)
        assert wins[0][0] == first and wins[-1][1] == last
        assert all(b - a + 1 == w for a, b in wins)
        covered = {i for a, b in wins for i in range(a, b + 1)}
        assert covered == set(range(first, last + 1)) or s > w


# -- batching and stored vectors ------------------------------------------------------------
def test_windows_of_all_claims_and_candidates_go_to_the_model_in_one_call(fake_engine, kb):
    spy = Spy(fake_engine.embedder)
    calls0 = fake_engine.embedder.calls
    results = vf.verify_many(fake_engine, CLAIMS, kb, candidates=10, use_top=5, window=2, step=1, threshold=0.5)
    assert spy.sizes and len(spy.sizes) == 1, spy.sizes
    windows = sum(r.counts["windows"] for r in results)
    assert windows > 10 and spy.sizes[0] >= 10
    assert all(r.counts["encode_calls"] == 1 and r.counts["claims"] == 3 for r in results)
    # the rest of the model calls are the claims' query embeddings
    assert fake_engine.embedder.calls - calls0 == 1 + 2 * len(CLAIMS)
    assert [r.claim for r in results] == CLAIMS


def test_single_sentence_windows_reuse_stored_vectors_without_embedding(fake_engine, kb):
    spy = Spy(fake_engine.embedder)
    r = vf.verify(fake_engine, CLAIMS[0], kb, window=1, threshold=0.0, candidates=10, use_top=3)
    assert spy.sizes == [] and r.counts["encode_calls"] == 0 and r.counts["stored_vectors"] > 0
    # and the scores are the very cosines an embedding would give
    q = fake_engine.embedder.encode_query(CLAIMS[0])
    for e in r.entries:
        if e.path in ("window", "semantic"):
            assert e.window_first == e.window_last
            want = float(fake_engine.embedder.encode_passages([e.text])[0] @ q)
            assert abs(e.score - want) < 1e-5


def test_store_returns_the_stored_dense_vectors_on_both_backends(tmp_path, settings):
    from swr.text.sparse import SparseEncoder

    for kind in ("edge", "server"):
        s = settings.with_(home=tmp_path / kind, qdrant_url=":memory:" if kind == "server" else None)
        store = open_store(s)
        store.ensure({"model": "m", "runtime": "t", "dim": 4, "splitter": "x", "sparse": SparseEncoder().version})
        sents = [Sentence(kb="k", doc_id="d", source="d.txt", i=i, n=2, start=0, end=1, text=t)
                 for i, t in enumerate(["one", "two"])]
        dense = np.array([[1, 0, 0, 0], [0, 0.6, 0.8, 0]], dtype=np.float32)
        store.upsert(sents, dense, SparseEncoder().encode_documents(["one", "two"]))
        ids = [sentence_id("k", "d", 0), sentence_id("k", "d", 1), sentence_id("k", "d", 7)]
        got = store.vectors(ids)
        assert set(got) == set(ids[:2]), kind
        assert np.allclose(got[ids[1]], dense[1], atol=1e-6), kind
        store.close()


# -- paths, merge, verdict ------------------------------------------------------------------
def test_key_terms_and_containment():
    terms = cl.key_terms("The warranty covers the heating element of the KX-2000 for two years")
    assert terms == ["warranty", "covers", "heating", "element", "kx-2000", "two", "years"]
    assert cl.contained(["warranty", "covers", "kx-2000"], "Warranty: it will cover the KX-2000.") == \
        ["warranty", "covers", "kx-2000"]
    assert cl.contained(["保修期", "两年"], "本产品保修期为两年。") == ["保修期", "两年"]
    assert cl.negated("Never use it empty.") and cl.negated("请勿空烧") and not cl.negated("Use it with water.")


def test_literal_path_finds_the_sentence_holding_the_key_terms(fake_engine, kb):
    r = vf.verify(fake_engine, "heating element warranty: two years", kb, threshold=0.9)
    assert r.verdict == "supported" and r.deciding == 0
    e = r.entries[0]
    assert e.paths["literal"] == 1.0 and e.path == "literal" and e.score == 1.0 and e.supported
    assert e.role == "supports" and e.reasons
    # the focus is the one sentence that holds every term; the window is highlighted inside its chunk
    assert e.focus.startswith("The warranty covers the heating element") and e.focus in e.text
    assert set(e.terms) == {"heating", "element", "warranty", "two", "years"}
    mark = e.chunk.hits[0]
    assert e.chunk.text[mark.start:mark.end] == e.text
    assert e.chunk_first <= e.window_first <= e.window_last <= e.chunk_last


def test_a_negated_window_contradicts_with_its_reason(fake_engine, kb):
    r = vf.verify(fake_engine, "the kettle may be used without water", kb, threshold=0.5, window=1)
    assert r.key_terms == ["kettle", "used", "without", "water"]
    never = [e for e in r.entries if e.text == "Never use the kettle without water."]
    assert never and not never[0].supported and never[0].role == "contradicts"
    assert any("polarity" in w for w in never[0].warnings)
    assert r.verdict == "contradicted" and "polarity" in r.reasons[0]


def test_merge_keeps_one_entry_per_chunk_with_its_highest_scoring_path(fake_engine, kb):
    r = vf.verify(fake_engine, "the warranty lasts two or three years", kb, candidates=10, use_top=5,
                  threshold=0.0, top_k=10, passage_window=1)
    chunks = [(e.doc_id, e.chunk_first) for e in r.entries]
    assert len(chunks) == len(set(chunks)) >= 2
    assert {e.source for e in r.entries} == {"kettle.txt", "blender.txt"}
    for e in r.entries:
        assert e.score == pytest.approx(max(e.paths.values()))
        assert e.paths[e.path] == pytest.approx(e.score)
    rank = {"supports": 0, "contradicts": 1, "other subject": 2, "weak": 3}
    order = [(rank[e.role], -e.score) for e in r.entries[1:]]
    assert order == sorted(order)  # after the deciding window: by role, then score
    assert len(vf.verify(fake_engine, "the warranty lasts two or three years", kb, candidates=10, use_top=5,
                         threshold=0.0, top_k=1, passage_window=1).entries) == 1


def test_verdict_follows_the_threshold(fake_engine, kb):
    # "Its jar holds 1.5 litres." states jar and holds (two thirds of the claim's facts, "blender" names
    # the subject) but not half its key terms: it supports exactly when its cosine reaches the threshold
    claim = "the blender jar holds water"
    probe = vf.verify(fake_engine, claim, kb, threshold=-0.5)
    best = max(e.paths.get("cosine", -1) for e in probe.entries if e.supported)
    at = vf.verify(fake_engine, claim, kb, threshold=best)
    above = vf.verify(fake_engine, claim, kb, threshold=best + 1e-4)
    assert at.verdict == "supported" and at.supporting and at.entries[0].supported
    # no support any more (a window of the blender's that negates, "Never run the blender empty", may
    # now decide as a contradiction); the entries are still shown, flagged
    assert above.verdict != "supported" and not above.supporting and above.entries
    assert vf.default_threshold("intfloat/multilingual-e5-small") == vf.E5_THRESHOLD == E5.support
    assert vf.default_threshold("all-MiniLM-L6-v2") == vf.OTHER_THRESHOLD
    assert vf.verify(fake_engine, claim, kb).threshold == vf.OTHER_THRESHOLD
    d = at.to_dict()
    json.dumps(d)
    assert d["verdict"] == "supported" and d["entries"][0]["chunk"]["hits"][0]["start"] >= 0


def test_bad_knobs_and_claim_lists(fake_engine, kb):
    for bad in ({"window": 0}, {"step": 0}, {"candidates": 0}, {"threshold": 2.0}, {"mode": "fuzzy"},
                {"passage_window": 99}, {"top_k": 0}):
        with pytest.raises(BadRequest):
            vf.verify(fake_engine, "a claim", kb, **bad)
    with pytest.raises(BadRequest):
        vf.verify(fake_engine, "   ", kb)
    with pytest.raises(BadRequest):
        vf.verify_many(fake_engine, ["a", "b"], ["manuals"])
    assert read_claims("c.txt", b"one claim\n\n second claim \r\n") == ["one claim", "second claim"]
    assert read_claims("c.csv", b"id,claim\n1,\"a, b\"\n2,c\n") == ["a, b", "c"]
    assert read_claims("c.jsonl", b'{"claim": "x"}\n"y"\n') == ["x", "y"]


# -- CLI --------------------------------------------------------------------------------------
def test_cli_verify_json(tmp_path, swr_cli):
    env = {"SWR_HOME": str(tmp_path / "home"), "SWR_EMBED_MODEL": "all-MiniLM-L6-v2",
           "HF_HUB_OFFLINE": "1", "SWR_SECRETS": str(tmp_path / "none.toml")}
    doc = tmp_path / "kettle.txt"
    doc.write_text(KETTLE, encoding="utf-8")

    def run(*args):
        return swr_cli(*args, env=env, unset=("QDRANT_URL", "OPENAI_BASE_URL"), code=None)

    p = run("index", str(doc), "--kb", "k", "--json")
    assert p.code == 0, p.stderr
    p = run("verify", "The heating element has a two-year warranty", "--kb", "k", "--json", "--threshold", "0.5")
    assert p.code == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["verdict"] == "supported" and out["threshold"] == 0.5
    e = out["entries"][0]
    assert "warranty" in e["text"] and e["path"] in PATHS and e["source"] == "kettle.txt"
    assert {"chunk_first", "chunk_last", "window_first", "window_last", "score", "chunk", "paths"} <= set(e)
    p = run("verify", "The kettle is made of solid gold and plays music", "--kb", "k", "--json", "--threshold", "0.9")
    assert p.code == 0, p.stderr
    out = json.loads(p.stdout)  # a claim the document does not make is not supported
    assert out["verdict"] != "supported" and out["threshold"] == 0.9


# -- page ---------------------------------------------------------------------------------------
EVIL = ("Safety notice for the QQ-1 toaster. <script>alert('x')</script> Click [here](javascript:alert(1)) now. "
        "The QQ-1 toaster warranty is one year. Unplug the toaster before cleaning it.\n")


@pytest.fixture
def page_home(tmp_path, monkeypatch):
    """The page's engine in a fresh SWR_HOME whose 'sample' KB is one small untrusted document."""
    from swr.app import base as ui

    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "evil.txt").write_text(EVIL, encoding="utf-8")
    monkeypatch.setattr("swr.engine.SAMPLE_DIR", samples)
    for k in ("QDRANT_URL", "OPENAI_BASE_URL", "SWR_EMBED_MODEL", "SWR_SAMPLE_KB", "SWR_MODE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("SWR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SWR_SECRETS", str(tmp_path / "none.toml"))
    ui.get_engine.clear()
    yield
    try:
        ui.get_engine().close()
    finally:
        ui.get_engine.clear()


def test_verify_page_shows_verdicts_and_escaped_highlighted_windows(page_home):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/3_Verify.py").run()
    assert not at.exception, at.exception
    at.text_area(key="verify_claims").set_value("The QQ-1 toaster has a one-year warranty\nthe moon is made of cheese")
    at.button(key="verify_go").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table["claim"]) == ["The QQ-1 toaster has a one-year warranty", "the moon is made of cheese"]
    assert list(table["verdict"]) == ["supported", "not found"]
    page = "\n".join(h.value for h in at.html)
    assert "<mark" in page and "toaster warranty is one year" in html.unescape(page)
    assert "<script>" not in page and "javascript:alert" not in page  # document text is escaped
