"""Hybrid fusion computed client-side from the two lists (one search per list) agrees with Qdrant
Edge's own fused query (prefetch + fusion in Qdrant), for DBSF, RRF and weighted RRF."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CountingEdge
from swr.store import SearchRequest
from swr.store.fusion import fuse

DATA = Path(__file__).resolve().parent / "data" / "squad_amazon_rainforest.json"


def _squad():
    d = json.loads(DATA.read_text(encoding="utf-8"))
    arts = d["data"] if "data" in d else [d]
    text = "\n\n".join(p["context"] for a in arts for p in a["paragraphs"])
    qs = [qa["question"] for a in arts for p in a["paragraphs"] for qa in p["qas"]]
    return text, qs


def _same(ours, theirs, tol=1e-5):
    """Same scores in order; ids the same except inside groups of tied scores."""
    assert len(ours) == len(theirs)
    for (_, a), (_, b) in zip(ours, theirs):
        assert a == pytest.approx(b, abs=tol)
    groups_o, groups_t = {}, {}
    for pid, s in ours:
        groups_o.setdefault(round(s / tol), set()).add(pid)
    for pid, s in theirs:
        groups_t.setdefault(round(s / tol), set()).add(pid)
    # the last tie group may be cut by the limit differently: compare all but the last score
    last = round(ours[-1][1] / tol) if ours else None
    for key in groups_o:
        if key != last:
            assert groups_o[key] == groups_t.get(key), key


CASES = [("dbsf", 0.5), ("rrf", 0.5), ("weighted", 0.3), ("weighted", 0.8), ("weighted", 0.0), ("weighted", 1.0)]


def test_client_fusion_matches_qdrant(fake_engine):
    text, qs = _squad()
    fake_engine.index_files("amazon", [("amazon.txt", text.encode())])
    store = fake_engine.store
    checked = 0
    for question in qs[:40]:
        dense = fake_engine.embedder.encode_query(question)
        sparse = fake_engine.sparse.encode_query(question)
        if not sparse.indices:
            continue
        for fusion, w in CASES:
            for top_k in (3, 10):
                req = SearchRequest(kb="amazon", dense=dense, sparse=sparse, mode="hybrid", top_k=top_k,
                                    fusion=fusion, dense_weight=w)
                hits = store.search(req)
                theirs = store.qdrant_fused(req)
                _same([(h.sentence.doc_id + str(h.sentence.i), h.score) for h in hits],
                      [(_key(store, pid), s) for pid, s in theirs if s > 0])
                checked += 1
    assert checked >= 200


def _key(store, pid):
    s = store.get([pid])[0]
    return s.doc_id + str(s.i)


def test_fuse_by_hand():
    # DBSF of one list of one point: 0.5; two equal scores: 0.5 each; summed over lists
    assert fuse([[("a", 3.0)]], "dbsf") == [("a", 0.5)]
    assert fuse([[("a", 1.0), ("b", 1.0)], [("b", 7.0)]], "dbsf") == [("b", 1.0), ("a", 0.5)]
    # RRF: 1 / (rank0 + k)
    out = dict(fuse([[("a", 9.0), ("b", 1.0)], [("b", 5.0)]], "rrf", k=60))
    assert out["a"] == pytest.approx(1 / 60) and out["b"] == pytest.approx(1 / 61 + 1 / 60)
    # weighted: a weight of 0 adds nothing
    assert dict(fuse([[("a", 1.0)], [("b", 1.0)]], "weighted", k=60, weights=[1.0, 0.0]))["b"] == 0.0


def test_hybrid_runs_one_search_per_list(fake_engine):
    """The store sends two searches for a hybrid question, not four (no prefetch re-runs)."""
    text, qs = _squad()
    fake_engine.index_files("amazon", [("amazon.txt", text.encode())])
    store = fake_engine.store
    # the first question learns the KB's languages (one-hit dense probes, cached until the KB changes)
    fake_engine.retrieve(qs[1], "amazon", mode="hybrid")
    edge = store._edge  # noqa: SLF001  (the test counts the calls into Qdrant Edge)
    store._edge = counting = CountingEdge(edge)
    try:
        hits = fake_engine.retrieve(qs[0], "amazon", mode="hybrid")
    finally:
        store._edge = edge
    sent = counting.batches
    # two searches (dense, sparse) per store call; a one-language KB gets one store call (its
    # languages are cached): [2], never the four of a prefetch re-run
    assert hits.hits and sent == [2], sent
    assert all(h.dense_rank or h.sparse_rank for h in hits.hits)
