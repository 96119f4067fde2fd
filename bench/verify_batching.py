"""Batched window encoding against one window per call, on the same claims, in one run.

The claims are the WiCE dev sample of ``bench/verify_wice.py`` (same seed; their documents are
indexed into SWR_HOME by that script, or here when missing). ``swr.verify.verify.verify_many`` runs
twice with the embedding cache bypassed (``engine.embedder.inner``, so every window really goes
through the model): once as shipped, every window of every claim in one ``encode_passages`` call,
and once with ``per_window_calls=True``, one call per window. Retrieval, windows and scoring are
the same; the script checks that both runs return the same entries and prints the encoding
times and their ratio (wall clock and process CPU time, which is less noisy on a shared machine).

    SWR_HOME=bench/out/wicehome .venv/bin/python bench/verify_batching.py --claims 10

Writes ``bench/out/verify_batching.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import verify_wice as vw  # noqa: E402  (sets SWR_HOME and HF_HUB_OFFLINE defaults)


# Long on purpose (one benchmark run top to bottom: both runs, their comparison and the report).
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=60, help="size of the seeded WiCE sample (as verify_wice.py)")
    ap.add_argument("--claims", type=int, default=10, help="time the first N claims of the sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--window", type=int, default=2)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--candidates", type=int, default=5)
    ap.add_argument("--use-top", type=int, default=2)
    ap.add_argument("--out", type=Path, default=vw.ROOT / "bench" / "out" / "verify_batching.json")
    a = ap.parse_args()

    import swr.verify.verify as vf
    from swr.core.settings import Settings
    from swr.engine import Engine

    rows = vw.load_claims(a.sample or None, a.seed)[:a.claims]
    engine = Engine(Settings.from_env())
    inner = getattr(engine.embedder, "inner", engine.embedder)
    vw.index_all(engine, rows)  # no-op when verify_wice.py indexed them already
    claims, kbs = [r["claim"] for r in rows], [vw.kb_of(r) for r in rows]
    knobs = dict(window=a.window, step=a.step, candidates=a.candidates, use_top=a.use_top, threshold=0.0, top_k=5)
    inner.encode_passages(["warm-up"])  # load the model outside the timings
    for c in claims:  # and the claims' query vectors (cached in memory), same for both runs
        engine.embedder.encode_query(c)

    runs = {}
    for name, per_window in (("batched", False), ("one window per call", True)):
        calls0, n0 = inner.calls, inner.encoded
        c0 = time.process_time()
        res = vf.verify_many(engine, claims, kbs, embedder=inner, per_window_calls=per_window, **knobs)
        cpu = time.process_time() - c0
        t = res[0].timings
        runs[name] = {"encode_s": t["encode_ms"] / 1000, "total_s": t["total_ms"] / 1000, "process_cpu_s": cpu,
                      "model_calls": inner.calls - calls0, "windows": inner.encoded - n0, "results": res}
        print(f"  {name}: {runs[name]['windows']} windows in {runs[name]['model_calls']} call(s), "
              f"encoding {runs[name]['encode_s']:.2f} s", file=sys.stderr, flush=True)

    b, o = runs["batched"], runs["one window per call"]
    diffs = [abs(x.score - y.score) for rb, ro in zip(b["results"], o["results"])
             for x, y in zip(rb.entries, ro.entries)]
    same_windows = all([(x.doc_id, x.window_first, x.window_last) for x in rb.entries]
                       == [(y.doc_id, y.window_first, y.window_last) for y in ro.entries]
                       for rb, ro in zip(b["results"], o["results"]))
    info = inner.info()
    out = {"claims": len(claims), "seed": a.seed, "knobs": knobs, "model": info["model"], "runtime": info["runtime"],
           "device": info["device"], "same_windows": same_windows, "max_score_diff": float(max(diffs, default=0.0)),
           "ratio_encode": o["encode_s"] / b["encode_s"], "ratio_total": o["total_s"] / b["total_s"],
           "runs": {k: {kk: (round(vv, 3) if isinstance(vv, float) else vv) for kk, vv in v.items() if kk != "results"}
                    for k, v in runs.items()}}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    engine.close()

    print(f"\n{len(claims)} WiCE claims, window {a.window} step {a.step}, top {a.use_top} of {a.candidates} chunks; "
          f"{info['model']} via {info['runtime']} on {info['device']}, embedding cache bypassed\n")
    print("| encoding | windows | model calls | encode s | verify total s | process CPU s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in runs.items():
        print(f"| {name} | {r['windows']} | {r['model_calls']} | {r['encode_s']:.2f} | {r['total_s']:.2f} "
              f"| {r['process_cpu_s']:.2f} |")
    print(f"\nbatched is {out['ratio_encode']:.1f}x faster at encoding the windows "
          f"({out['ratio_total']:.1f}x end to end); same windows: {same_windows}, "
          f"max score difference {out['max_score_diff']:.2e}")


if __name__ == "__main__":
    main()
