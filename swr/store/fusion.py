"""Hybrid fusion of the dense and the sparse candidate lists, computed as Qdrant computes it.

The store searches each list once (their ranks and scores annotate every hit anyway) and fuses
them here, instead of running both searches a second time as a fused query's prefetches: one
search per list. Hand-written because no library reproduces Qdrant's fusion; it
follows Qdrant's source (``lib/segment/src/common/score_fusion.rs`` and
``reciprocal_rank_fusion.rs``) and ``tests/test_fusion.py`` checks it against Qdrant Edge's own
fused query on real stores, for every fusion:

- DBSF: each list normalised by its mean +- 3 sample standard deviations (Welford, in float32),
  ``(s - lo) / (hi - lo)``, not clipped; one point, or equal bounds: 0.5; then summed per point.
- RRF: ``1 / (rank0 + k)`` per list, summed; weighted: ``1 / ((rank0 + 1) / w + k - 1)``, and
  a weight of 0 adds nothing.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from swr.core.rules.serving import DEFAULT_SERVING

Ranked = list[tuple[str, float]]


def dbsf_norm(scores: list[float]) -> list[float]:
    """One list's scores normalised as Qdrant's DBSF does: mean +- 3 sample standard deviations map
    to 0..1 (Welford, float32); 0.5 each when the list cannot spread (one score, or all equal)."""
    if len(scores) < 2:
        return [0.5] * len(scores)
    f = np.float32
    arr = np.asarray(scores, dtype=f)
    mean, agg = f(0.0), f(0.0)
    for s, k in zip(arr, np.arange(1, len(arr) + 1, dtype=f)):  # float32 scalars: each step in float32
        old = s - mean
        mean = mean + old / k
        agg = agg + old * (s - mean)
    std = f(np.sqrt(f(agg / f(len(scores) - 1))))
    lo, hi = f(mean - f(3.0) * std), f(mean + f(3.0) * std)
    if lo == hi:
        return [0.5] * len(scores)
    return ((arr - lo) / (hi - lo)).tolist()  # elementwise float32, as one by one


@lru_cache(maxsize=DEFAULT_SERVING.rrf_score_lists)
def _rrf_scores(n: int, k: int, weight: float | None) -> tuple[float, ...]:
    """The RRF scores of ranks 0..n-1 (a pure function: remembered per list length)."""
    return tuple(_rrf_score(r, k, weight) for r in range(n))


def _rrf_score(rank0: int, k: int, weight: float | None) -> float:
    if weight is None:
        return float(np.float32(1.0) / (np.float32(rank0) + np.float32(k)))
    if weight <= 0:
        return 0.0
    return float(np.float32(1.0) / (np.float32(rank0 + 1) / np.float32(weight) + np.float32(k) - np.float32(1.0)))


def fuse(lists: list[Ranked], fusion: str, *, k: int = 60, weights: list[float] | None = None,
         limit: int | None = None) -> Ranked:
    """The fused ``(id, score)`` list, best first (equal scores in point-id order)."""
    slot: dict[str, int] = {}  # each point's place in ``total``, in first-seen order
    total = np.zeros(sum(len(r) for r in lists), dtype=np.float32)
    for n, ranked in enumerate(lists):
        if fusion == "dbsf":
            scores = dbsf_norm([s for _, s in ranked])
        else:
            w = weights[n] if fusion == "weighted" and weights else None
            scores = _rrf_scores(len(ranked), k, w)
        at = [slot.setdefault(pid, len(slot)) for pid, _ in ranked]
        # float32 sums in list order, each point's as it was added one by one (np.add.at: unbuffered)
        np.add.at(total, at, np.asarray(scores, dtype=np.float32))
    # equal fused scores in point-id order: a document's repeated sentences ("Tap Settings.") score
    # alike, and their first-seen order is Qdrant's internal one, which differs between two builds of
    # the same knowledge base (so did their hits); the ids are uuid5 of (kb, document, sentence)
    out = sorted(zip(slot, total[:len(slot)].tolist()), key=lambda x: (-x[1], x[0]))
    return out[:limit] if limit is not None else out
