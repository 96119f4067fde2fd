"""The default fusion, DBSF, in both store backends (Qdrant Edge and the Qdrant server API over
qdrant-client's local mode): its scores are Qdrant's distribution-based score fusion of the dense
and the sparse candidate lists, on a hand-made case where it ranks unlike RRF.

DBSF (Qdrant 1.11): each list's scores are mapped linearly from [mean - 3 sd, mean + 3 sd] (sample
standard deviation) to [0, 1] (a list of one, or of equal scores, gives 0.5); a point's score is
the sum over the lists it is in. RRF sees only ranks: an outlier dense score counts for nothing.
"""
from __future__ import annotations

import statistics

import numpy as np
import pytest
from test_store import BACKENDS, DIM, META, ask, index, make_store

from swr.core.settings import Settings
from swr.store.base import RRF_K

# A: far ahead on the dense side (an outlier), last of the sparse matches.
# B: second on the dense side (close to the pack), first on the sparse side.
TEXTS = ["The kettle sits on the shelf next to the old red lamp by the door of the hall.",  # A
         "Descale the kettle.",  # B
         "Descale it monthly with vinegar.",
         "A kettle lid.",
         "Warranty covers two years.", "Clean the filter.", "Unplug before cleaning."]
COSINES = [0.95, 0.30, 0.28, 0.26, 0.25, 0.24, 0.23]
QUESTION = "descale kettle"
QVEC = np.eye(DIM, dtype=np.float32)[0]


def unit(cos: float, axis: int) -> np.ndarray:
    """A unit vector whose cosine with the question's vector (the first axis) is ``cos``."""
    v = np.zeros(DIM, dtype=np.float32)
    v[0], v[axis] = cos, np.sqrt(1 - cos * cos)
    return v


def dbsf(lists: list[dict[int, float]]) -> dict[int, float]:
    """Expected DBSF scores from the candidate lists ({sentence: score}), written out."""
    out: dict[int, float] = {}
    for scores in lists:
        vals = list(scores.values())
        sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
        lo = statistics.fmean(vals) - 3 * sd
        for i, s in scores.items():
            out[i] = out.get(i, 0.0) + ((s - lo) / (6 * sd) if sd > 0 else 0.5)
    return out


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    s = make_store(request.param, tmp_path)
    s.ensure(META)
    index(s, "a", "d1", TEXTS, [unit(c, 1 + k % (DIM - 1)) for k, c in enumerate(COSINES)])
    yield s
    s.close()


def test_dbsf_scores_are_distribution_based_and_rank_unlike_rrf(store):
    kw = dict(vec=QVEC, top_k=10, dense_k=10, sparse_k=10)  # every candidate list holds all it can
    dense = {h.sentence.i: h.score for h in ask(store, "a", QUESTION, mode="dense", **kw)}
    sparse = {h.sentence.i: h.score for h in ask(store, "a", QUESTION, mode="sparse", **kw)}
    assert dense == pytest.approx(dict(enumerate(COSINES)), abs=1e-4)
    assert max(sparse, key=sparse.get) == 1 and min(sparse, key=sparse.get) == 0 and len(sparse) == 4

    hits = ask(store, "a", QUESTION, mode="hybrid", fusion="dbsf", **kw)
    expect = dbsf([dense, sparse])
    assert [h.sentence.i for h in hits] == sorted(expect, key=lambda i: -expect[i])
    assert [h.score for h in hits] == pytest.approx([expect[h.sentence.i] for h in hits], rel=1e-4)
    assert [h.rank for h in hits] == list(range(1, len(TEXTS) + 1))
    assert hits[0].sentence.i == 0 and hits[1].sentence.i == 1  # the dense outlier wins

    rrf = ask(store, "a", QUESTION, mode="hybrid", fusion="rrf", **kw)
    assert rrf[0].sentence.i == 1  # ranks only: second + first beats first + fourth
    assert rrf[0].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K), rel=1e-4)
    assert [h.sentence.i for h in rrf] != [h.sentence.i for h in hits]


def test_dbsf_is_the_default_fusion_of_the_engine(fake_engine):
    assert Settings.from_env(env={}, secrets_path=fake_engine.settings.home / "none.toml").fusion == "dbsf"
    fake_engine.index_files("kb", [("k.txt", " ".join(TEXTS).encode())])
    default = [(h.sentence.i, h.score) for h in fake_engine.retrieve(QUESTION, "kb").hits]
    explicit = [(h.sentence.i, h.score) for h in fake_engine.retrieve(QUESTION, "kb", fusion="dbsf").hits]
    rrf = [(h.sentence.i, h.score) for h in fake_engine.retrieve(QUESTION, "kb", fusion="rrf").hits]
    assert default == explicit and default != rrf and len(default) >= 3


def _one_by_one(lists, fusion, k, weights):
    """The fusion computed one score at a time in float32 scalars (the arithmetic Qdrant's source spells out)."""
    f, total = np.float32, {}
    for n, ranked in enumerate(lists):
        if fusion == "dbsf":
            scores = [f(s) for _, s in ranked]
            if len(scores) < 2:
                scores = [0.5] * len(scores)
            else:
                mean, agg = f(0.0), f(0.0)
                for j, s in enumerate(scores, start=1):
                    old = f(s - mean)
                    mean = f(mean + f(old / f(j)))
                    agg = f(agg + f(old * f(s - mean)))
                std = f(np.sqrt(f(agg / f(len(scores) - 1))))
                lo, hi = f(mean - f(3.0) * std), f(mean + f(3.0) * std)
                scores = [0.5] * len(scores) if lo == hi else [float(f((s - lo) / (hi - lo))) for s in scores]
        else:
            w = weights[n] if fusion == "weighted" else None
            scores = [float(f(1.0) / (f(r) + f(k))) if w is None else 0.0 if w <= 0 else
                      float(f(1.0) / (f(r + 1) / f(w) + f(k) - f(1.0))) for r in range(len(ranked))]
        for (pid, _), s in zip(ranked, scores):
            total[pid] = f(total.get(pid, f(0.0)) + f(s))
    return sorted(((pid, float(s)) for pid, s in total.items()), key=lambda x: (-x[1], x[0]))


def test_equal_fused_scores_come_in_point_id_order_whatever_the_lists_order():
    """Two builds of one knowledge base list a repeated sentence's points in different orders (Qdrant's
    internal order); DBSF's fused list must not follow it. (RRF reads the ranks, which that order sets:
    equal input scores are not equal fused scores there.)"""
    from swr.store.fusion import fuse

    dense = [("a", 0.9), ("c", 0.5), ("b", 0.5), ("d", 0.1)]
    swapped = [("a", 0.9), ("b", 0.5), ("c", 0.5), ("d", 0.1)]
    sparse = [("a", 3.0), ("c", 1.0), ("b", 1.0)]
    one = fuse([dense, sparse], "dbsf")
    two = fuse([swapped, [("a", 3.0), ("b", 1.0), ("c", 1.0)]], "dbsf")
    assert [p for p, _ in one] == [p for p, _ in two] == ["a", "b", "c", "d"]


@pytest.mark.parametrize("fusion", ["dbsf", "rrf", "weighted"])
def test_fused_scores_are_the_one_by_one_float32_arithmetic(fusion):
    from swr.store.fusion import fuse

    rng = np.random.default_rng(3)
    for _ in range(300):
        ids = [f"p{i}" for i in range(60)]
        lists = []
        for scale in (1.0, 30.0):
            n = int(rng.integers(0, 50))
            picked = rng.choice(ids, size=n, replace=False)
            scores = np.sort(rng.normal(scale / 2, scale / 4, size=n))[::-1]
            lists.append([(str(p), float(s)) for p, s in zip(picked, scores)])
        lists[1] = lists[1] if rng.random() > 0.1 else [(p, 7.5) for p, _ in lists[1]]  # equal scores
        w = float(rng.choice([0.0, 0.3, 1.0]))
        assert fuse(lists, fusion, k=RRF_K, weights=[w, 1 - w]) == _one_by_one(lists, fusion, RRF_K, [w, 1 - w])
