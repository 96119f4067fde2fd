"""Store conformance: the embedded Qdrant Edge store and the Qdrant server store (here over
qdrant-client's in-memory mode, ``QDRANT_URL=:memory:``) must behave alike, down to the order of
the hits. Small hand-made 8-d vectors; real client-side BM25 vectors (``swr.text.sparse``).

The server-only parts (payload indexes, custom sharding with one shard key per knowledge base) are
checked with a recording client over the in-memory mode: that the right calls and keyword
arguments go out. A real Qdrant server or cluster is not available here.
"""
from __future__ import annotations

import hashlib
import json
import math

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from swr.core.errors import BadRequest, ModelMismatch, StoreUnavailable
from swr.core.ids import sentence_id
from swr.core.settings import Settings
from swr.core.types import DocInfo, Sentence
from swr.store import open_store
from swr.store.base import RRF_K, SearchRequest
from swr.store.edge import EdgeStore
from swr.store.server import META_SHARD, ServerStore, safe_url
from swr.text.sparse import TOKENIZERS, SparseEncoder

DIM = 8
BACKENDS = ("edge", "server")
ENC = SparseEncoder()  # the default tokenizer
META = {"model": "hand-made", "runtime": "test", "dim": DIM, "splitter": "t1", "sparse": ENC.version}


# -- helpers -------------------------------------------------------------------------------
def text_vec(text: str) -> np.ndarray:
    """A deterministic 8-d vector per text: identical texts get identical vectors."""
    seed = int(hashlib.md5(text.encode()).hexdigest()[:8], 16)
    return np.random.default_rng(seed).normal(size=DIM).astype(np.float32)


def make_settings(kind: str, home, **kw) -> Settings:
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, **kw)
    return s.with_(qdrant_url=":memory:") if kind == "server" else s


def make_store(kind: str, home, **kw):
    st_ = open_store(make_settings(kind, home, **kw))
    assert isinstance(st_, ServerStore if kind == "server" else EdgeStore)
    return st_


def sentences(kb, doc_id, texts, source=None, tags=(), lang=None, page=None):
    source = source or f"{doc_id}.txt"
    out, pos = [], 0
    for i, t in enumerate(texts):
        out.append(Sentence(kb=kb, doc_id=doc_id, source=source, i=i, n=len(texts), start=pos, end=pos + len(t),
                            text=t, page=page, tags=list(tags), lang=lang))
        pos += len(t) + 1
    return out


def index(store, kb, doc_id, texts, vectors=None, enc=ENC, **kw) -> list[Sentence]:
    """Write one document's sentences and its complete record, as the engine does."""
    sents = sentences(kb, doc_id, texts, **kw)
    dense = np.stack([text_vec(t) for t in texts]) if vectors is None else np.asarray(vectors, dtype=np.float32)
    store.create_kb(kb)
    store.upsert(sents, dense, enc.encode_documents(texts))
    store.put_doc(kb, DocInfo(doc_id=doc_id, source=sents[0].source, sentences=len(sents), complete=True,
                              tags=list(kw.get("tags", ()))))
    return sents


def ask(store, kb, question, *, vec=None, enc=ENC, **kw):
    dense = text_vec(question) if vec is None else np.asarray(vec, dtype=np.float32)
    return store.search(SearchRequest(kb=kb, dense=dense, sparse=enc.encode_query(question), **kw))


def key(h):
    return (h.sentence.kb, h.sentence.doc_id, h.sentence.i)


@pytest.fixture(params=BACKENDS)
def kind(request):
    return request.param


@pytest.fixture
def bare(kind, tmp_path):
    s = make_store(kind, tmp_path)
    yield s
    s.close()


@pytest.fixture
def store(bare):
    bare.ensure(META)
    return bare


KETTLE = ["The red kettle boils water fast.", "Descale the kettle with white vinegar.",
          "The blue lamp is bright at night.", "Water boils at one hundred degrees.",
          "Red lamps and red kettles sell well.", "Clean the filter every month.",
          "The kettle switches off automatically.", "Never immerse the base in water.",
          "电热水壶第一次使用前要煮沸后倒掉。"]


# -- collection ----------------------------------------------------------------------------
def test_ensure_records_meta_and_refuses_another_model(bare):
    assert bare.meta() is None
    assert bare.kbs() == [] and bare.count() == 0 and bare.docs("a") == [] and bare.get(["x"]) == []
    assert ask(bare, "a", "kettle") == []
    bare.ensure(META)
    assert bare.meta() == META
    bare.ensure(META)  # idempotent
    with pytest.raises(ModelMismatch, match="SWR_EMBED_MODEL=hand-made"):
        bare.ensure({**META, "model": "another"})
    with pytest.raises(ModelMismatch):
        bare.ensure({**META, "dim": 16})
    assert bare.meta() == META and bare.count() == 0 and bare.kbs() == []


def test_edge_meta_survives_reopening(tmp_path):
    s = make_store("edge", tmp_path)
    s.ensure(META)
    index(s, "a", "d1", KETTLE[:3])
    s.close()
    s = make_store("edge", tmp_path)
    try:
        assert s.meta() == META and s.count("a") == 3
        with pytest.raises(ModelMismatch):
            s.ensure({**META, "model": "another"})
    finally:
        s.close()


def test_edge_sentence_writes_flush_every_so_many_points(tmp_path, monkeypatch):
    """No flush (which holds the GIL for as long as it has data to write) gathers more than
    FLUSH_EVERY_POINTS sentences: a large upload flushes as it goes, not all at once later."""
    import swr.store.edge as edge_mod

    monkeypatch.setattr(edge_mod, "FLUSH_EVERY_POINTS", 4)
    monkeypatch.setattr(edge_mod, "FLUSH_EVERY_S", 1e9)  # only the point count flushes here
    s = make_store("edge", tmp_path)
    s.ensure(META)
    flushes = []
    real = s._edge.flush
    monkeypatch.setattr(s._edge, "flush", lambda: (flushes.append(s._unflushed), real())[1])
    try:
        for k in range(5):  # 5 documents of 3 sentences: 15 points
            index(s, "a", f"d{k}", KETTLE[:3])
        assert flushes == [6, 6] and s._unflushed == 3  # after the 2nd and the 4th document
        assert s.count("a") == 15
    finally:
        s.close()


# -- writes and reads ----------------------------------------------------------------------
def test_upsert_is_idempotent(store):
    sents = index(store, "a", "d1", KETTLE)
    assert store.count() == store.count("a") == len(KETTLE)
    index(store, "a", "d1", KETTLE)
    store.upsert(sents, np.stack([text_vec(t) for t in KETTLE]), ENC.encode_documents(KETTLE))
    assert store.count() == store.count("a") == len(KETTLE)
    assert store.count("b") == 0


def test_get_by_ids_round_trips_the_payload(store):
    sents = index(store, "a", "d1", KETTLE[:4], tags=["manual", "en"], lang="en", page=2)
    other = index(store, "b", "d1", ["中文句子。"])
    ids = [sentence_id("a", "d1", 2), sentence_id("nope", "d1", 0), sentence_id("b", "d1", 0), sentence_id("a", "d1", 0)]
    got = store.get(ids)
    assert sorted(got, key=lambda s: (s.kb, s.i)) == sorted([sents[2], other[0], sents[0]], key=lambda s: (s.kb, s.i))
    assert store.get([]) == []


def test_scroll_doc_returns_one_documents_sentences_in_order(store):
    texts = [f"Sentence number {i} of the manual." for i in range(30)]
    sents = sentences("a", "d1", texts)
    order = list(np.random.default_rng(1).permutation(len(texts)))
    store.create_kb("a")
    store.upsert([sents[k] for k in order], np.stack([text_vec(texts[k]) for k in order]),
                 ENC.encode_documents([texts[k] for k in order]))
    index(store, "a", "d2", KETTLE[:2])
    index(store, "b", "d1", KETTLE[:5])  # same doc_id in another knowledge base
    got = store.scroll_doc("a", "d1")
    assert got == sents
    assert [s.i for s in store.scroll_doc("b", "d1")] == [0, 1, 2, 3, 4]
    assert store.scroll_doc("a", "missing") == [] and store.scroll_doc("zzz", "d1") == []


def test_docs_and_the_complete_flag(store):
    store.create_kb("a")
    store.put_doc("a", DocInfo(doc_id="d2", source="z.txt", sentences=3, complete=False, chars=10, format="txt"))
    assert [(d.doc_id, d.complete) for d in store.docs("a")] == [("d2", False)]
    store.put_doc("a", DocInfo(doc_id="d2", source="z.txt", sentences=3, complete=True, chars=10, format="txt",
                               tags=["t"], indexed_at="2024-01-01T00:00:00"))
    store.put_doc("a", DocInfo(doc_id="d1", source="b.txt", sentences=1, complete=True))
    docs = store.docs("a")
    assert [d.source for d in docs] == ["b.txt", "z.txt"]  # sorted by source
    assert docs[1] == DocInfo(doc_id="d2", source="z.txt", sentences=3, complete=True, chars=10, format="txt",
                              tags=["t"], indexed_at="2024-01-01T00:00:00")
    assert store.docs("b") == []


def test_kbs_create_and_delete_only_that_kb(store):
    store.create_kb("b")
    store.create_kb("a")
    store.create_kb("a")
    assert store.kbs() == ["a", "b"]
    index(store, "a", "d1", KETTLE)
    index(store, "b", "d1", KETTLE)  # identical texts and doc_id
    index(store, "b", "d2", KETTLE[:3])
    store.create_kb("empty")
    assert store.kbs() == ["a", "b", "empty"]
    assert store.delete_kb("b") == len(KETTLE) + 3
    assert store.kbs() == ["a", "empty"]
    assert store.count("b") == 0 and store.docs("b") == [] and ask(store, "b", "kettle") == []
    assert store.count("a") == store.count() == len(KETTLE)
    assert [d.doc_id for d in store.docs("a")] == ["d1"]
    assert len(ask(store, "a", "red kettle", top_k=5)) == 5
    assert store.delete_kb("empty") == 0 and store.kbs() == ["a"]
    assert store.delete_kb("never-created") == 0
    assert store.meta() == META  # the collection record is untouched


def test_delete_doc(store):
    index(store, "a", "d1", KETTLE)
    index(store, "a", "d2", KETTLE[:2])
    index(store, "b", "d1", KETTLE[:4])
    assert store.delete_doc("a", "d1") == len(KETTLE)
    assert [d.doc_id for d in store.docs("a")] == ["d2"]
    assert store.count("a") == 2 and store.count("b") == 4 and store.scroll_doc("a", "d1") == []
    assert [d.doc_id for d in store.docs("b")] == ["d1"]
    assert store.delete_doc("a", "d1") == 0
    assert all(h.sentence.doc_id == "d2" for h in ask(store, "a", "kettle water", top_k=10))


def test_export_then_import_restores_points_with_vectors(store):
    """The trash's round trip: a knowledge base (or one document) exported with payloads and both
    vectors, deleted, imported back: the same points, the same search results, no re-embedding."""
    index(store, "a", "d1", KETTLE)
    index(store, "a", "d2", KETTLE[:3], source="two.txt")
    index(store, "b", "d1", KETTLE[:4])
    def found(mode):  # scores, and the hits above the last score (ties at the cut may swap: same score)
        got = sorted((round(h.score, 4), key(h)) for h in ask(store, "a", "red kettle water", top_k=6, mode=mode))
        return [sc for sc, _ in got], [g for g in got if g[0] > got[0][0]]

    before = {m: found(m) for m in ("dense", "sparse", "hybrid")}
    records = store.export_points("a")
    assert len(records) == len(KETTLE) + 3 + 2 + 1  # sentences, two doc records, the kb record
    sent = next(r for r in records if r["payload"]["type"] == "s" and r["payload"]["i"] == 0
                and r["payload"]["doc_id"] == "d1")
    want = text_vec(KETTLE[0])
    assert np.allclose(sent["dense"], want / np.linalg.norm(want), atol=1e-5)  # cosine: stored normalised
    assert sent["sparse"]["indices"] and len(sent["sparse"]["indices"]) == len(sent["sparse"]["values"])
    json.dumps(records)  # JSON-ready
    assert {r["payload"]["kb"] for r in records} == {"a"}
    assert store.delete_kb("a") == len(KETTLE) + 3 and store.kbs() == ["b"]
    assert store.import_points(json.loads(json.dumps(records))) == len(records)
    assert store.kbs() == ["a", "b"] and store.count("a") == len(KETTLE) + 3
    assert [d.doc_id for d in store.docs("a")] == ["d1", "d2"]
    assert {m: found(m) for m in before} == before
    one = store.export_points("a", "d2")
    assert len(one) == 3 + 1 and {r["payload"]["doc_id"] for r in one} == {"d2"}
    assert store.delete_doc("a", "d2") == 3
    store.import_points(one)
    assert store.scroll_doc("a", "d2")[2].text == KETTLE[2] and store.count("b") == 4


# -- search --------------------------------------------------------------------------------
def test_dense_search_ranks_by_cosine_with_annotations(store):
    index(store, "a", "d1", KETTLE)
    hits = ask(store, "a", "whatever", vec=text_vec(KETTLE[5]), mode="dense", top_k=4)
    assert len(hits) == 4 and hits[0].sentence.text == KETTLE[5]
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert [h.rank for h in hits] == [1, 2, 3, 4]
    assert [h.dense_rank for h in hits] == [1, 2, 3, 4]
    assert [h.dense_score for h in hits] == pytest.approx([h.score for h in hits])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_sparse_search_ranks_by_bm25_with_annotations(store):
    index(store, "a", "d1", KETTLE)
    hits = ask(store, "a", "vinegar descale", mode="sparse", top_k=5)
    assert hits[0].sentence.text == KETTLE[1]
    assert len(hits) == 1  # only one sentence holds those words: no zero-score filler
    hits = ask(store, "a", "red kettle", mode="sparse", top_k=5)
    assert {h.sentence.i for h in hits} <= {0, 1, 4, 6}
    assert hits[0].sentence.i in (0, 4)
    assert [h.sparse_rank for h in hits] == [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert [h.sparse_score for h in hits] == pytest.approx([h.score for h in hits])
    assert all(h.score > 0 and h.dense_rank is not None for h in hits)  # dense list is annotated too
    zh = ask(store, "a", "第一次使用前要做什么", mode="sparse", top_k=3)
    assert zh and zh[0].sentence.i == 8  # the multilingual tokenizer handles Chinese


def test_sparse_search_without_a_dense_vector(store):
    # how many documents say a word (swr.retrieve.xl_subjects.said_in): BM25 alone, no question vector
    index(store, "a", "d1", KETTLE)
    hits = store.search(SearchRequest(kb="a", dense=None, sparse=ENC.encode_query("vinegar"), mode="sparse",
                                      top_k=100, sparse_k=100))
    assert [h.sentence.text for h in hits] == [KETTLE[1]]


def test_hybrid_rrf_scores_are_rrf_with_k60(store):
    index(store, "a", "d1", KETTLE)
    hits = ask(store, "a", "kettle water", mode="hybrid", fusion="rrf", top_k=6)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1)) and len(hits) == 6
    for h in hits:
        expect = sum(1.0 / (RRF_K + r - 1) for r in (h.dense_rank, h.sparse_rank) if r is not None)
        assert h.score == pytest.approx(expect, rel=1e-4)
    assert any(h.sparse_rank is None for h in ask(store, "a", "vinegar", mode="hybrid", top_k=9))


def test_weighted_fusion_follows_the_dense_or_the_sparse_list(store):
    index(store, "a", "d1", KETTLE)
    q, vec = "red kettle water boils", text_vec(KETTLE[2])  # dense favours the lamp, sparse the kettles
    dense = [key(h) for h in ask(store, "a", q, vec=vec, mode="dense", top_k=4)]
    sparse = [key(h) for h in ask(store, "a", q, vec=vec, mode="sparse", top_k=4)]
    assert dense[0] != sparse[0] and len(sparse) == 4
    w1 = ask(store, "a", q, vec=vec, mode="hybrid", fusion="weighted", dense_weight=1.0, top_k=4)
    w0 = ask(store, "a", q, vec=vec, mode="hybrid", fusion="weighted", dense_weight=0.0, top_k=4)
    assert [key(h) for h in w1] == dense
    assert [key(h) for h in w0] == sparse
    mid = ask(store, "a", q, vec=vec, mode="hybrid", fusion="weighted", dense_weight=0.5, top_k=4)
    rrf = ask(store, "a", q, vec=vec, mode="hybrid", fusion="rrf", top_k=4)
    assert [key(h) for h in mid] == [key(h) for h in rrf]


def test_filters_by_source_tags_and_lang(store):
    index(store, "a", "d1", KETTLE, source="a.txt", tags=["x"], lang="en")
    index(store, "a", "d2", KETTLE, source="b.txt", tags=["y", "z"], lang="de")
    index(store, "a", "d3", KETTLE, source="c.txt")
    cases = [(dict(sources=["a.txt"]), {"a.txt"}), (dict(sources=["a.txt", "c.txt"]), {"a.txt", "c.txt"}),
             (dict(tags=["z"]), {"b.txt"}), (dict(tags=["x", "y"]), {"a.txt", "b.txt"}),
             (dict(lang="de"), {"b.txt"}), (dict(sources=["a.txt"], lang="de"), set()),
             (dict(sources=["nope.txt"]), set()), (dict(), {"a.txt", "b.txt", "c.txt"})]
    for mode in ("dense", "sparse", "hybrid"):
        for flt, allowed in cases:
            hits = ask(store, "a", "red kettle water", mode=mode, top_k=20, **flt)
            assert {h.sentence.source for h in hits} == allowed, (mode, flt)


def test_bad_requests_are_refused(store):
    for kw in (dict(mode="fuzzy"), dict(fusion="max"), dict(top_k=0), dict(dense_weight=1.5)):
        with pytest.raises(BadRequest):
            ask(store, "a", "kettle", **kw)


# -- isolation (property) ------------------------------------------------------------------
KBS = ["alpha", "beta", "Alpha", "alpha beta", "知识库"]
SHARED = KETTLE[:6]
WORDS = sorted({w.strip(".").lower() for t in KETTLE[:8] for w in t.split()}) + ["zebra", "电热水壶"]


@pytest.fixture(scope="module", params=BACKENDS)
def populated(request, tmp_path_factory):
    """Several knowledge bases holding identical texts (same doc ids, sources, tags) and a few of their own."""
    s = make_store(request.param, tmp_path_factory.mktemp(request.param))
    s.ensure(META)
    for n, kb in enumerate(KBS):
        index(s, kb, "shared", SHARED, source="shared.txt", tags=["common"], lang="en")
        index(s, kb, f"own{n}", [f"{kb} keeps its own kettle note {n}.", KETTLE[6 + n % 3]],
              source=f"own{n}.txt", tags=[kb, "common"], lang=["en", "zh", None][n % 3])
    s.create_kb("empty")
    yield s
    s.close()


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kb=st.sampled_from(KBS + ["empty", "ALPHA", "missing"]),
       mode=st.sampled_from(["dense", "sparse", "hybrid"]), fusion=st.sampled_from(["rrf", "weighted", "dbsf"]),
       weight=st.floats(0.0, 1.0), top_k=st.integers(1, 30),
       words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5),
       sources=st.lists(st.sampled_from(["shared.txt", "own0.txt", "own1.txt", "nope.txt"]), max_size=2),
       tags=st.lists(st.sampled_from(["common", "alpha", "Alpha", "beta"]), max_size=2),
       lang=st.sampled_from([None, "en", "zh"]))
def test_hits_never_leave_the_queried_kb(populated, kb, mode, fusion, weight, top_k, words, sources, tags, lang):
    hits = ask(populated, kb, " ".join(words), mode=mode, fusion=fusion, dense_weight=weight, top_k=top_k,
               sources=sources, tags=tags, lang=lang)
    assert len(hits) <= top_k
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert len({key(h) for h in hits}) == len(hits)
    for h in hits:
        assert h.sentence.kb == kb
        assert not sources or h.sentence.source in sources
        assert not tags or set(h.sentence.tags) & set(tags)
        assert lang is None or h.sentence.lang == lang
    if kb in ("empty", "ALPHA", "missing"):
        assert hits == []
    if kb in KBS and mode == "dense" and not (sources or tags or lang):
        assert len(hits) == min(top_k, len(SHARED) + 2)


# -- both backends answer alike ------------------------------------------------------------
def _groups(hits, rel=1e-6):
    """Hit keys grouped by tied scores (RRF ties, e.g. ranks 1+2 and 2+1): ties may be broken either way."""
    out = []
    for h in hits:
        if out and math.isclose(out[-1][0], h.score, rel_tol=rel, abs_tol=1e-9):
            out[-1][1].add(key(h))
        else:
            out.append((h.score, {key(h)}))
    return [g for _, g in out]


VOCAB = ["kettle", "lid", "filter", "water", "vinegar", "lamp", "switch", "base", "handle", "cable", "spout",
         "plug", "button", "timer", "glass", "steel"]


@pytest.mark.parametrize("tokenizer", sorted(TOKENIZERS))
def test_both_backends_return_the_same_hits_in_the_same_order(tmp_path, tokenizer):
    """Same data, same queries: the same hits in the same order with the same scores and annotations.

    Both backends get the same client-side BM25 vectors; this checks that Qdrant Edge and the server
    API (the IDF modifier, RRF k=60, weighted RRF, DBSF, filters) turn them into the same ranking. Every
    sentence has its own length (so no two tie on BM25) and its own random vector. No deletions:
    after them local mode's IDF forgets the deleted points at once, Qdrant Edge's only later.
    """
    enc = SparseEncoder(tokenizer)
    meta = {**META, "sparse": enc.version}
    rng = np.random.default_rng(7)
    corpus = {kb: [" ".join(rng.choice(VOCAB, size=n, replace=False)) + "." for n in range(3, 3 + size)]
              + ["电热水壶第一次使用前要煮沸后倒掉。"] for kb, size in (("a", 12), ("b", 9))}
    vecs = {kb: rng.normal(size=(len(t), DIM)).astype(np.float32) for kb, t in corpus.items()}
    stores = [make_store(k, tmp_path / k) for k in BACKENDS]
    try:
        for s in stores:
            s.ensure(meta)
            for kb, texts in corpus.items():
                index(s, kb, "d1", texts, vecs[kb], enc=enc, source=f"{kb}.txt", tags=["t"], lang="en")
        assert stores[0].count() == stores[1].count() and stores[0].kbs() == stores[1].kbs()
        questions = [" ".join(rng.choice(VOCAB, size=k, replace=False)) for k in (1, 1, 2, 2, 3, 4)]
        questions += ["zebra kettle", "第一次使用电热水壶", "unknownword"]
        checked = 0
        for kb in corpus:
            for qtext in questions:
                qvec = rng.normal(size=DIM).astype(np.float32)
                for mode in ("dense", "sparse"):  # the data has no ties (else ranks could swap)
                    scores = [h.score for h in ask(stores[0], kb, qtext, vec=qvec, enc=enc, mode=mode, top_k=100)]
                    assert len(set(np.round(scores, 5))) == len(scores), (kb, qtext, mode, scores)
                for kw in (dict(mode="dense"), dict(mode="sparse"), dict(mode="hybrid"),
                           dict(mode="hybrid", fusion="weighted", dense_weight=0.25),
                           dict(mode="hybrid", fusion="weighted", dense_weight=1.0),
                           dict(mode="hybrid", fusion="dbsf"), dict(mode="hybrid", fusion="dbsf", top_k=3, dense_k=5),
                           dict(mode="hybrid", top_k=3, dense_k=4, sparse_k=4),
                           dict(mode="sparse", sources=["a.txt"], top_k=3)):
                    kw = {"top_k": 8, **kw}
                    edge, server = (ask(s, kb, qtext, vec=qvec, enc=enc, **kw) for s in stores)
                    checked += bool(edge)
                    ge, gs = _groups(edge), _groups(server)  # a tie cut by top_k may keep either
                    assert ge[:-1] == gs[:-1] and [len(g) for g in ge[-1:]] == [len(g) for g in gs[-1:]], (kb, qtext, kw)
                    assert [h.score for h in edge] == pytest.approx([h.score for h in server], rel=1e-3)
                    by_key = {key(v): v for v in server}
                    for e in edge:  # the same annotations for the same sentence
                        v = by_key.get(key(e))
                        if v is None:
                            assert key(e) in ge[-1]
                            continue
                        assert (e.rank == v.rank) or len(_groups([e, v])) == 1
                        assert (e.dense_rank, e.sparse_rank) == (v.dense_rank, v.sparse_rank), (kb, qtext, kw)
                        for a, b in ((e.dense_score, v.dense_score), (e.sparse_score, v.sparse_score)):
                            assert (a is None and b is None) or a == pytest.approx(b, rel=1e-3, abs=1e-5)
        assert checked > 60
    finally:
        for s in stores:
            s.close()


# -- server-only: errors -------------------------------------------------------------------
def test_unreachable_server_fails_at_start_naming_the_url_not_the_key(tmp_path):
    s = Settings.from_env(env={"QDRANT_URL": "http://127.0.0.1:1", "QDRANT_API_KEY": "sekrit-key-123"},
                          secrets_path=tmp_path / "none.toml", home=tmp_path)
    with pytest.warns(UserWarning), pytest.raises(StoreUnavailable) as err:  # insecure-key warning
        open_store(s)
    assert "http://127.0.0.1:1" in err.value.message and "cannot be reached" in err.value.message
    assert "sekrit" not in err.value.message and "sekrit" not in str(err.value.to_dict())
    with pytest.raises(StoreUnavailable) as err:
        ServerStore(s.with_(qdrant_url="http://admin:pa55word@127.0.0.1:1", qdrant_api_key=None))
    assert "pa55word" not in err.value.message and "http://127.0.0.1:1" in err.value.message


def test_safe_url_strips_user_info():
    assert safe_url("https://u:p@qdrant.example:6333/x") == "https://qdrant.example:6333/x"
    assert safe_url("http://localhost:6333") == "http://localhost:6333"


def test_failures_during_queries_become_store_unavailable(tmp_path, monkeypatch):
    s = make_store("server", tmp_path)
    s.ensure(META)
    index(s, "a", "d1", KETTLE[:3])

    def down(*a, **k):
        raise ResponseHandlingException(httpx.ConnectError("[Errno 111] Connection refused"))

    monkeypatch.setattr(s._client, "query_batch_points", down)
    with pytest.raises(StoreUnavailable, match="cannot be reached while searching"):
        ask(s, "a", "kettle")

    def refused(*a, **k):
        raise UnexpectedResponse(401, "Unauthorized", b'{"status":"forbidden"}', httpx.Headers())

    monkeypatch.setattr(s._client, "count", refused)
    with pytest.raises(StoreUnavailable, match="QDRANT_API_KEY"):
        s.count("a")


# -- server-only: payload indexes and sharding, through a recording client -----------------
class RecordingClient:
    """An in-memory qdrant-client that records server-only calls and shard selectors, then runs the
    call without them (local mode rejects shard keys and ignores payload indexes)."""

    SHARDING = ("sharding_method", "shard_number", "replication_factor")

    def __init__(self):
        self.inner = QdrantClient(location=":memory:")
        self.calls: list[tuple] = []
        self.created: dict = {}
        self.indexes: dict = {}
        self.shard_keys: set = set()

    def __getattr__(self, name):
        fn = getattr(self.inner, name)

        def call(*a, **kw):
            if "shard_key_selector" in kw:
                self.calls.append((name, kw.pop("shard_key_selector")))
            return fn(*a, **kw)
        return call

    def create_collection(self, **kw):
        self.created = kw
        return self.inner.create_collection(**{k: v for k, v in kw.items() if k not in self.SHARDING})

    def get_collection(self, name):
        info = self.inner.get_collection(name)
        info.config.params.sharding_method = self.created.get("sharding_method")
        return info

    def create_payload_index(self, collection, field_name, field_schema, **kw):
        self.indexes[field_name] = field_schema

    def create_shard_key(self, collection, shard_key, **kw):
        self.calls.append(("create_shard_key", shard_key))
        if shard_key in self.shard_keys:  # what a server answers
            raise UnexpectedResponse(400, "Bad Request",
                                     f'{{"status":{{"error":"Wrong input: Shard key {shard_key} already exists"}}}}'
                                     .encode(), httpx.Headers())
        self.shard_keys.add(shard_key)

    def delete_shard_key(self, collection, shard_key, **kw):
        self.calls.append(("delete_shard_key", shard_key))
        self.shard_keys.discard(shard_key)

    def list_shard_keys(self, collection):
        return models.ShardKeysResponse(shard_keys=[models.ShardKeyDescription(key=k) for k in self.shard_keys])

    def query_batch_points(self, collection, requests, **kw):
        self.calls.extend(("query", r.shard_key) for r in requests)
        return self.inner.query_batch_points(collection, [r.model_copy(update={"shard_key": None}) for r in requests],
                                             **kw)

    def selectors(self, name=None):
        return [sel for n, sel in self.calls if name is None or n == name]


def server_settings(tmp_path, **kw) -> Settings:
    return Settings.from_env(env={"QDRANT_URL": "http://qdrant.test:6333"}, secrets_path=tmp_path / "none.toml",
                             home=tmp_path, **kw)


def test_server_creates_payload_indexes_without_sharding(tmp_path):
    rec = RecordingClient()
    s = ServerStore(server_settings(tmp_path), client=rec)
    assert s.location == "http://qdrant.test:6333" and s.backend == "qdrant-server"
    s.ensure(META)
    assert "sharding_method" not in rec.created
    assert rec.created["vectors_config"]["dense"].size == DIM
    assert rec.created["vectors_config"]["dense"].distance == models.Distance.COSINE
    assert rec.created["sparse_vectors_config"]["bm25"].modifier == models.Modifier.IDF
    assert set(rec.indexes) == {"kb", "type", "doc_id", "source", "tags", "lang", "i"}
    assert rec.indexes["kb"].is_tenant is True and rec.indexes["i"] == models.PayloadSchemaType.INTEGER
    index(s, "a", "d1", KETTLE[:3])
    ask(s, "a", "kettle")
    assert set(rec.selectors()) == {None}  # no shard keys anywhere


def test_memory_mode_skips_indexes_and_ignores_sharding(tmp_path):
    rec = RecordingClient()
    s = ServerStore(make_settings("server", tmp_path, qdrant_shard_by_kb=True), client=rec)
    s.ensure(META)
    index(s, "a", "d1", KETTLE[:3])
    assert s.backend == "qdrant-memory" and rec.indexes == {} and "sharding_method" not in rec.created
    assert set(rec.selectors()) == {None}


def test_sharding_by_kb_passes_the_kb_as_shard_key_everywhere(tmp_path):
    rec = RecordingClient()
    s = ServerStore(server_settings(tmp_path, qdrant_shard_by_kb=True, qdrant_shard_number=3,
                                    qdrant_replication_factor=2), client=rec)
    s.ensure(META)
    assert rec.created["sharding_method"] == models.ShardingMethod.CUSTOM
    assert rec.created["shard_number"] == 3 and rec.created["replication_factor"] == 2
    assert rec.selectors("create_shard_key") == [META_SHARD]
    assert rec.selectors("upsert") == [META_SHARD]  # the collection record
    rec.calls.clear()

    index(s, "a", "d1", KETTLE)
    index(s, "b", "d1", KETTLE)
    assert rec.selectors("create_shard_key") == ["a", "b"]
    assert rec.selectors("upsert") == ["a"] * 3 + ["b"] * 3  # kb record, sentences, doc record
    rec.calls.clear()

    hits = ask(s, "a", "red kettle", mode="hybrid", top_k=5)
    assert hits and {h.sentence.kb for h in hits} == {"a"}
    assert rec.selectors("query") == ["a", "a", "a"]
    assert [d.doc_id for d in s.docs("b")] == ["d1"] and s.count("b") == len(KETTLE)
    assert len(s.scroll_doc("a", "d1")) == len(KETTLE)
    assert set(rec.selectors("scroll")) == {"a", "b"} and rec.selectors("count") == ["b"]
    rec.calls.clear()

    assert s.kbs() == ["a", "b"] and s.count() == 2 * len(KETTLE) and s.meta() == META
    assert rec.selectors("scroll") == [None] and rec.selectors("count") == [None]  # all shards
    rec.calls.clear()

    assert s.delete_doc("a", "d1") == len(KETTLE)
    assert rec.selectors("delete") == ["a"] and rec.selectors("count") == ["a"]
    assert s.delete_kb("b") == len(KETTLE)
    assert rec.selectors("delete_shard_key") == ["b"] and "b" not in rec.shard_keys
    rec.calls.clear()
    assert ask(s, "b", "kettle") == [] and s.docs("b") == [] and s.count("b") == 0
    assert rec.selectors("query") == []  # no query on a shard key that does not exist
    with pytest.raises(BadRequest):
        s.create_kb(META_SHARD)


def test_two_processes_sharing_a_sharded_collection(tmp_path):
    rec = RecordingClient()
    one = ServerStore(server_settings(tmp_path, qdrant_shard_by_kb=True), client=rec)
    one.ensure(META)
    index(one, "a", "d1", KETTLE[:3])
    two = ServerStore(server_settings(tmp_path, qdrant_shard_by_kb=True), client=rec)  # a second process
    two.ensure(META)
    index(two, "a", "d2", KETTLE[3:5])  # its shard key exists already: answered 400, fine
    assert rec.selectors("create_shard_key") == [META_SHARD, "a", "a"]
    assert one.count("a") == two.count("a") == 5 and two.kbs() == ["a"]


def test_an_existing_collections_sharding_wins_over_the_setting(tmp_path):
    rec = RecordingClient()
    ServerStore(server_settings(tmp_path), client=rec).ensure(META)
    s = ServerStore(server_settings(tmp_path, qdrant_shard_by_kb=True), client=rec)
    rec.calls.clear()
    index(s, "a", "d1", KETTLE[:2])
    assert set(rec.selectors()) == {None}


def test_shard_settings_from_the_environment(tmp_path):
    base = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml")
    assert (base.qdrant_shard_by_kb, base.qdrant_shard_number, base.qdrant_replication_factor) == (False, 6, 2)
    for raw, want in (("1", True), ("true", True), ("YES", True), ("0", False), ("no", False), ("off", False)):
        s = Settings.from_env(env={"SWR_SHARD_BY_KB": raw, "SWR_SHARD_NUMBER": "4", "SWR_REPLICATION_FACTOR": "3"},
                              secrets_path=tmp_path / "none.toml")
        assert (s.qdrant_shard_by_kb, s.qdrant_shard_number, s.qdrant_replication_factor) == (want, 4, 3)
    (tmp_path / "secrets.toml").write_text("SWR_SHARD_BY_KB = true\n")
    assert Settings.from_env(env={}, secrets_path=tmp_path / "secrets.toml").qdrant_shard_by_kb is True


def test_bm25_idf_is_per_knowledge_base(store):
    """Another tenant's documents never change this tenant's BM25 scores."""
    index(store, "a", "d1", ["The E4 code means poor base contact.", "Descale the kettle monthly."])
    before = [(key(h), round(h.score, 5)) for h in ask(store, "a", "E4 kettle", mode="sparse", top_k=5)]
    index(store, "b", "d2", ["E4 E4 E4 kettle kettle."] * 1 + [f"kettle note {k}." for k in range(30)])
    after = [(key(h), round(h.score, 5)) for h in ask(store, "a", "E4 kettle", mode="sparse", top_k=5)]
    assert before == after and before


def test_dbsf_fusion_runs_in_qdrant(store):
    index(store, "a", "d1", ["The E4 code means poor base contact.", "Descale the kettle monthly.",
                              "The kettle base has a sensor.", "Warranty covers two years."])
    hits = ask(store, "a", "E4 kettle base", mode="hybrid", fusion="dbsf", top_k=3)
    assert hits and [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(h.dense_rank is not None or h.sparse_rank is not None for h in hits)


def test_server_refuses_a_dense_only_collection(tmp_path):
    """An existing collection without swr's BM25 vector is refused with the way out."""
    from qdrant_client import models

    from swr.core.errors import ModelMismatch

    store = make_store("server", tmp_path)
    store._client.create_collection(store.collection, vectors_config={
        "dense": models.VectorParams(size=8, distance=models.Distance.COSINE)})
    with pytest.raises(ModelMismatch) as exc:
        store.ensure({"model": "m", "runtime": "r", "dim": 8, "splitter": "s", "sparse": "jieba-bm25-1"})
    assert "'bm25'" in exc.value.message and "SWR_COLLECTION" in exc.value.message


def test_edge_builds_hnsw_once_enough_points_are_unindexed_and_still_answers_alike(tmp_path, monkeypatch):
    """The embedded store builds its HNSW index (optimize) when a document completes and the
    un-indexed points reach the threshold and the indexed ones; hits, filters and deletes agree
    with the scanned store before it."""
    import swr.store.edge as edge
    import swr.store.edge_build as edge_build
    import swr.store.edge_schedule as edge_schedule

    monkeypatch.setattr(edge_schedule, "OPTIMIZE_MIN_POINTS", 40)
    monkeypatch.setattr(edge, "INDEXING_THRESHOLD_KB", 1)  # 8-d vectors: 32 per KB
    steps = []  # the built copy is read through (GIL free) before the load that holds the GIL
    warm = edge_build.warm
    monkeypatch.setattr(edge_build, "warm", lambda folder: steps.append(("warm", folder)) or warm(folder))
    st_ = make_store("edge", tmp_path)
    st_.ensure(META)
    load = st_._builder._load
    st_._builder._load = lambda folder: steps.append(("load", folder)) or load(folder)
    rng = np.random.default_rng(0)
    texts = [f"sentence number {k} about {w}" for k, w in enumerate(["kettles", "lamps", "filters", "rice"] * 15)]
    vecs = rng.normal(size=(len(texts), DIM)).astype(np.float32)
    index(st_, "a", "d1", texts[:30], vecs[:30])
    assert st_.indexed_vectors() <= 30, "30 < 40 points: still scanned"
    index(st_, "b", "other", KETTLE)
    index(st_, "a", "d2", texts[30:], vecs[30:])  # 69 un-indexed points >= 40: optimize
    assert st_.wait_for_build(120), "the background build ended"
    assert st_.last_build and "error" not in st_.last_build, st_.last_build
    assert st_.indexed_vectors() == 2 * 69, st_.last_build  # "all 69 dense vectors got their HNSW index (sparse: 69)"
    assert steps and steps == [(s, f) for (_, f) in steps[::2] for s in ("warm", "load")], steps  # per build
    assert st_.last_build["warmed_mb"] > 0, st_.last_build
    unit = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    for qv in vecs[[3, 17, 42, 59]]:  # the HNSW answer is the exact cosine top 5 of kb "a"
        exact = np.argsort(-(unit @ (qv / np.linalg.norm(qv))))[:5]
        want = [("a", "d1" if j < 30 else "d2", j if j < 30 else j - 30) for j in exact]
        assert [key(h) for h in ask(st_, "a", "", vec=qv, top_k=5, mode="dense")] == want
    assert ask(st_, "a", "about rice", vec=vecs[40], top_k=1)[0].sentence.doc_id == "d2"
    assert st_.delete_doc("a", "d2") == 30
    assert all(h.sentence.doc_id == "d1" for h in ask(st_, "a", "about rice", vec=vecs[40], top_k=10))
    assert {h.sentence.kb for h in ask(st_, "b", "kettle", mode="hybrid")} == {"b"}
    st_.close()


def test_warm_reads_every_file_of_a_folder_once(tmp_path):
    """edge_build.warm reads each file under the folder through (nested ones too) and returns
    the bytes read; an unreadable entry is skipped, not an error; a cap stops it."""
    from swr.store.edge_build import WARM_CHUNK, warm

    (tmp_path / "segments" / "a").mkdir(parents=True)
    (tmp_path / "segments" / "a" / "big.dat").write_bytes(b"x" * (WARM_CHUNK + 123))
    (tmp_path / "wal.log").write_bytes(b"y" * 10)
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "dangling").symlink_to(tmp_path / "missing")
    assert warm(tmp_path) == WARM_CHUNK + 133
    assert warm(tmp_path, limit=10) <= WARM_CHUNK, "a cap stops the reads (a shard larger than memory)"


def test_edge_hnsw_beam_widens_with_the_store(tmp_path, monkeypatch):
    import swr.store.edge_schedule as edge_schedule

    st_ = make_store("edge", tmp_path)
    st_.ensure(META)
    index(st_, "a", "d1", KETTLE)
    assert st_.hnsw_ef() == edge_schedule.HNSW_EF
    monkeypatch.setattr(edge_schedule, "EF_SCALE_POINTS", 5)  # 9 sentences + records: about 2x
    assert edge_schedule.HNSW_EF < st_.hnsw_ef() <= 4 * edge_schedule.HNSW_EF
    monkeypatch.setattr(edge_schedule, "EF_SCALE_POINTS", 1)
    assert st_.hnsw_ef() == 4 * edge_schedule.HNSW_EF
    assert ask(st_, "a", "kettle")  # and searches still run with it
    st_.close()


def test_edge_hnsw_build_runs_in_a_child_while_questions_and_writes_go_on(tmp_path, monkeypatch):
    """The HNSW build runs in another process on a copy of the shard; while it runs
    (slowed here to 8 s) the store answers and takes writes in this process, those writes are in
    the shard that is swapped in, and the next open finds that generation (and no stale folder)."""
    import sys
    import time

    import swr.store.edge as edge
    import swr.store.edge_schedule as edge_schedule
    from swr.store.edge_build import Builder

    monkeypatch.setattr(edge_schedule, "OPTIMIZE_MIN_POINTS", 40)
    monkeypatch.setattr(edge, "INDEXING_THRESHOLD_KB", 1)
    slow = tmp_path / "slow_child.py"
    slow.write_text("import runpy, sys, time\ntime.sleep(8)\nsys.argv = sys.argv[1:]\n"
                    "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    monkeypatch.setattr(Builder, "command", [sys.executable, str(slow), Builder.command[1]])
    st_ = make_store("edge", tmp_path)
    st_.ensure(META)
    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(60, DIM)).astype(np.float32)
    index(st_, "a", "d1", [f"filter sentence {k}" for k in range(50)], vecs[:50])  # starts the build
    assert st_._builder.running, "the build runs in the background"
    deadline = time.monotonic() + 30  # the copy is made on the build's thread: writes after it are journaled
    while st_._edge.journal is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert st_._edge.journal is not None, "the build copied the shard"
    t0 = time.monotonic()
    hits = ask(st_, "a", "filter", vec=vecs[7], top_k=1, mode="dense")
    index(st_, "b", "late", KETTLE)  # written during the build: journaled
    assert st_.delete_doc("a", "d1") == 50
    index(st_, "a", "d1", [f"filter sentence {k}" for k in range(50)], vecs[:50])  # re-written too
    # the child sleeps 8 s before it builds: a margin for a loaded CI machine (3 s flaked at load 6)
    assert time.monotonic() - t0 < 6, "questions and writes did not wait for the build"
    assert hits[0].sentence.i == 7
    assert st_.wait_for_build(120) and "error" not in (st_.last_build or {}), st_.last_build
    assert sum(b.get("replayed", 0) for b in st_._builder.history) > 0, st_._builder.history
    assert st_.indexed_vectors() >= 50, "the swapped-in shard has the HNSW index"
    assert ask(st_, "b", "kettle", mode="hybrid"), "the write made during the build survived the swap"
    assert ask(st_, "a", "filter", vec=vecs[7], top_k=1, mode="dense")[0].sentence.i == 7
    live = st_.path
    assert ".g" in live.name and not st_.root.exists(), "a new generation is live, the old one removed"
    assert [p.name for p in live.parent.iterdir() if p.is_dir()] == [live.name], "no stale generation"
    st_.close()
    again = make_store("edge", tmp_path)
    assert again.path == live and {h.sentence.kb for h in ask(again, "b", "kettle", mode="hybrid")} == {"b"}
    assert again.count("a") == 50
    again.close()


def test_edge_a_document_deleted_during_a_build_stays_deleted_after_the_swap_and_a_reopen(tmp_path, monkeypatch):
    """A delete made while the HNSW build runs (and not followed by a re-add, which would hide a
    lost delete) is in the swapped-in shard, and still after the store is opened again."""
    import sys
    import time

    import swr.store.edge as edge
    import swr.store.edge_schedule as edge_schedule
    from swr.store.edge_build import Builder

    monkeypatch.setattr(edge_schedule, "OPTIMIZE_MIN_POINTS", 40)
    monkeypatch.setattr(edge, "INDEXING_THRESHOLD_KB", 1)
    slow = tmp_path / "slow_child.py"
    slow.write_text("import runpy, sys, time\ntime.sleep(3)\nsys.argv = sys.argv[1:]\n"
                    "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    monkeypatch.setattr(Builder, "command", [sys.executable, str(slow), Builder.command[1]])
    st_ = make_store("edge", tmp_path)
    st_.ensure(META)
    rng = np.random.default_rng(2)
    vecs = rng.normal(size=(60, DIM)).astype(np.float32)
    index(st_, "a", "keep", [f"kept sentence {k}" for k in range(10)], vecs[50:60])
    index(st_, "a", "gone", [f"doomed sentence {k}" for k in range(50)], vecs[:50])  # starts the build
    deadline = time.monotonic() + 30
    while st_._edge.journal is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert st_._edge.journal is not None, "the build copied the shard"
    assert st_.delete_doc("a", "gone") == 50
    assert st_.wait_for_build(120) and "error" not in (st_.last_build or {}), st_.last_build
    assert st_.count("a") == 10 and not st_.docs("a", doc_id="gone"), "the delete survived the swap"
    st_.close()
    again = make_store("edge", tmp_path)
    assert again.count("a") == 10, "the delete survived a reopen"
    assert not again.docs("a", doc_id="gone") and again.docs("a", doc_id="keep")
    again.close()


def test_edge_failed_hnsw_build_leaves_the_live_shard_alone(tmp_path, monkeypatch):
    """A build whose child fails is logged; the store keeps answering from the live shard, the
    copy is removed, and a later trigger can build again."""
    import sys

    import swr.store.edge as edge
    import swr.store.edge_schedule as edge_schedule
    from swr.store.edge_build import Builder

    monkeypatch.setattr(edge_schedule, "OPTIMIZE_MIN_POINTS", 40)
    monkeypatch.setattr(edge, "INDEXING_THRESHOLD_KB", 1)
    monkeypatch.setattr(Builder, "command", [sys.executable, "-c", "import sys; sys.exit(3)"])
    st_ = make_store("edge", tmp_path)
    st_.ensure(META)
    vecs = np.random.default_rng(2).normal(size=(50, DIM)).astype(np.float32)
    index(st_, "a", "d1", [f"lamp sentence {k}" for k in range(50)], vecs)
    assert st_.wait_for_build(60)
    assert "exited with 3" in st_.last_build["error"]
    assert ask(st_, "a", "lamp", vec=vecs[3], top_k=1, mode="dense")[0].sentence.i == 3
    assert not list(tmp_path.rglob("*.g1")), "the failed copy was removed"
    st_.close()
