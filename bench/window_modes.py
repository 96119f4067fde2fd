"""Window modes (fixed, section, budget) against the best plain-chunk configuration at equal budgets.

    python bench/window_modes.py                       # CMRC 2018, XQuAD zh, XQuAD en, SQuAD
    python bench/window_modes.py --sets xquad_en --questions 120 --max-sentences 400

Per set: articles in a seeded random order (seed 0) until ``--max-sentences`` sentences (each
article is a distractor for the others' questions), then a seeded sample of ``--questions`` of
their questions. One ``swr.evaluate.sweep`` per set (hybrid, DBSF): fixed windows 0-5, section
and budget windows at each budget, top_k 1-10, against llama-index ``SentenceSplitter`` chunks
of 64-512 tokens (same model, store and metrics). For each budget the best configuration of each
side whose mean context is under the budget (``budget_table``), with n and 95% Wilson intervals,
and the paired bootstrap interval of the difference (best window minus best chunk config).

The "best" of each side is chosen on the same questions it is scored on; the window side has
more configurations to choose from. So the script also chooses on the even-numbered questions
and scores on the odd ones ("held out").

Latency: ``engine.passages`` per mode on the sample KB's questions, with store calls and vectors
fetched counted, p50 over repeats (the machine is shared; see the printed load average).
Embeddings are cached under ``--home`` (default bench/out/window_modes_home).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from intervals import wilson

from swr.core.settings import Settings
from swr.engine import Engine
from swr.evaluate import budget_table, sweep
from swr.evaluate.questions import load_squad
from swr.text.split import split_spans

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
SETS = {"cmrc2018": DATA / "cmrc2018/cmrc2018_dev.json", "xquad_zh": DATA / "xquad/xquad.zh.json",
        "xquad_en": DATA / "xquad/xquad.en.json", "squad": DATA / "squad_v1.1/dev-v1.1.json"}
BUDGETS = (300, 600, 1200)




def paired_ci(a: list[float], b: list[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = random.Random(seed)
    n = len(a)
    diffs = []
    for _ in range(reps):
        idx = [rng.randrange(n) for _ in range(n)]
        diffs.append(sum(a[i] - b[i] for i in idx) / n)
    diffs.sort()
    return diffs[int(0.025 * reps)], diffs[int(0.975 * reps) - 1]


def pick(path: Path, max_sentences: int, n_questions: int, seed: int = 0):
    docs, qs = load_squad(path)
    order = list(range(len(docs)))
    random.Random(seed).shuffle(order)
    chosen, total = [], 0
    for k in order:
        n = len(split_spans(docs[k][1]))
        if chosen and total + n > max_sentences:
            continue
        chosen.append(k)
        total += n
        if total >= max_sentences * 0.95:
            break
    names = {docs[k][0] for k in chosen}
    pool = [q for q in qs if q.source in names]
    rng = random.Random(seed)
    sample = pool if len(pool) <= n_questions else [pool[i] for i in sorted(rng.sample(range(len(pool)), n_questions))]
    return [docs[k] for k in chosen], sample, total


def best(rows, method: str, budget: int, keep=None):
    """The best row of a method under the budget, scored on the questions ``keep`` selects."""
    fit = []
    for r in rows:
        if r.config.method != method:
            continue
        outs = [o for n, o in enumerate(r.outcomes) if keep is None or keep(n)]
        chars = sum(o["chars"] for o in outs) / len(outs)
        if chars >= budget:
            continue
        hit = sum(bool(o["hit"]) for o in outs) / len(outs)
        mrr = sum(o["rr"] or 0 for o in outs) / len(outs)
        fit.append((hit, mrr, -chars, r))
    return max(fit, key=lambda t: t[:3])[3] if fit else None


def scored(row, keep=None):
    outs = [o for n, o in enumerate(row.outcomes) if keep is None or keep(n)]
    return [float(bool(o["hit"])) for o in outs], [o["rr"] or 0.0 for o in outs], [o["chars"] for o in outs]


def cfg_label(r) -> str:
    c = r.config
    if c.method == "chunks":
        return f"chunk {c.chunk_size} k{c.top_k}"
    if c.window_mode == "fixed":
        return f"fixed w{c.window_size} k{c.top_k}"
    return f"{c.window_mode} {c.budget_chars} k{c.top_k}"


def run_set(name: str, args) -> dict:
    docs, qs, n_sent = pick(SETS[name], args.max_sentences, args.questions)
    s = Settings.from_env(env={}, secrets_path=Path(args.home) / "none.toml", home=args.home, sample_kb="",
                          crosslingual=args.crosslingual)
    eng = Engine(s)
    t0 = time.perf_counter()
    eng.index_files(name, [(n, t.encode("utf-8")) for n, t in docs])
    t_index = time.perf_counter() - t0
    print(f"[{name}] {len(docs)} articles, {n_sent} sentences, {len(qs)} questions; indexed in {t_index:.0f}s",
          file=sys.stderr)
    t0 = time.perf_counter()
    rows = sweep(eng, name, qs, windows=(0, 1, 2, 3, 5), top_ks=(1, 2, 3, 5, 10), modes=("hybrid",),
                 chunk_sizes=args.chunk_sizes, window_modes=("fixed", "section", "budget"), budgets=BUDGETS,
                 details=True)
    print(f"[{name}] sweep {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    out = {"set": name, "articles": len(docs), "sentences": n_sent, "questions": len(qs), "budgets": []}
    for b in BUDGETS:
        entry = {"budget": b}
        for label, keep, score in (("all", None, None), ("held_out", lambda n: n % 2 == 0, lambda n: n % 2 == 1)):
            w, c = best(rows, "window", b, keep), best(rows, "chunks", b, keep)
            if w is None or c is None:
                entry[label] = None
                continue
            wh, wr, wc = scored(w, score)
            ch, cr, cc = scored(c, score)
            n = len(wh)
            entry[label] = {
                "n": n, "window": cfg_label(w), "chunks": cfg_label(c),
                "window_hit": sum(wh) / n, "window_ci": wilson(sum(wh), n), "window_mrr": sum(wr) / n,
                "window_chars": sum(wc) / n,
                "chunks_hit": sum(ch) / n, "chunks_ci": wilson(sum(ch), n), "chunks_mrr": sum(cr) / n,
                "chunks_chars": sum(cc) / n,
                "diff": (sum(wh) - sum(ch)) / n, "diff_ci": paired_ci(wh, ch)}
        # each window mode's own best (all questions)
        for mode in ("fixed", "section", "budget"):
            sub = [r for r in rows if r.config.method == "window" and r.config.window_mode == mode]
            m = best(sub, "window", b)
            entry.setdefault("by_mode", {})[mode] = None if m is None else {
                "config": cfg_label(m), "hit": m.hit_rate, "mrr": m.mrr, "chars": m.context_chars}
        out["budgets"].append(entry)
    out["table"] = budget_table(rows, BUDGETS)
    out["rows"] = [r.to_dict() for r in rows]
    out["latency"] = latency(eng, name, qs[: args.latency_questions])
    eng.close()
    return out


def latency(eng: Engine, kb: str, qs) -> dict:
    """Per window mode: p50 ms of ``passages`` (search excluded), store calls, sentences and vectors
    fetched, over the questions at top_k 3, budget 600 (three repeats, interleaved)."""
    counts = {"sentence_calls": 0, "sentences": 0, "vector_calls": 0, "vectors": 0}
    fs, fv = eng.store.fetch_sentences, eng.store.fetch_vectors

    def count_fs(k, keys):
        keys = list(keys)
        counts["sentence_calls"] += 1
        counts["sentences"] += len(keys)
        return fs(k, keys)

    def count_fv(k, keys):
        keys = list(keys)
        counts["vector_calls"] += 1
        counts["vectors"] += len(keys)
        return fv(k, keys)

    eng.store.fetch_sentences, eng.store.fetch_vectors = count_fs, count_fv
    rets = [eng.retrieve(q.question, kb, top_k=3) for q in qs]
    out = {}
    for mode in ("fixed", "section", "budget"):
        out[mode] = {"ms": [], **{k: 0 for k in counts}}
    for _ in range(3):
        for r in rets:
            for mode in ("fixed", "section", "budget"):
                before = dict(counts)
                t = time.perf_counter()
                eng.passages(r, 3, window_mode=mode, budget_chars=600)
                out[mode]["ms"].append((time.perf_counter() - t) * 1000)
                for k in counts:
                    out[mode][k] += counts[k] - before[k]
    eng.store.fetch_sentences, eng.store.fetch_vectors = fs, fv
    n = 3 * len(rets)
    return {m: {"p50_ms": round(statistics.median(v["ms"]), 2), "p90_ms": round(sorted(v["ms"])[int(0.9 * n)], 2),
                **{k: round(v[k] / n, 2) for k in counts}} for m, v in out.items()}


def report(results: list[dict]) -> str:
    lines = ["| set | budget | n | best window (config) hit [95% CI] / MRR / chars | best chunks (config) hit "
             "[95% CI] / MRR / chars | window - chunks [95% CI] | held out: window - chunks [95% CI] |",
             "|---|---:|---:|---|---|---|---|"]
    for r in results:
        for e in r["budgets"]:
            a, h = e["all"], e["held_out"]
            if a is None:
                lines.append(f"| {r['set']} | {e['budget']} | – | nothing fits | | | |")
                continue
            ho = "–" if h is None else f"{h['diff']:+.3f} [{h['diff_ci'][0]:+.3f}, {h['diff_ci'][1]:+.3f}] (n {h['n']})"
            lines.append(
                f"| {r['set']} | {e['budget']} | {a['n']} | {a['window_hit']:.3f} [{a['window_ci'][0]:.3f}, "
                f"{a['window_ci'][1]:.3f}] / {a['window_mrr']:.3f} / {a['window_chars']:.0f} ({a['window']}) | "
                f"{a['chunks_hit']:.3f} [{a['chunks_ci'][0]:.3f}, {a['chunks_ci'][1]:.3f}] / {a['chunks_mrr']:.3f} / "
                f"{a['chunks_chars']:.0f} ({a['chunks']}) | {a['diff']:+.3f} [{a['diff_ci'][0]:+.3f}, "
                f"{a['diff_ci'][1]:+.3f}] | {ho} |")
    lines += ["", "| set | budget | fixed (best) | section (best) | budget (best) |", "|---|---:|---|---|---|"]
    for r in results:
        for e in r["budgets"]:
            cells = []
            for m in ("fixed", "section", "budget"):
                x = e["by_mode"][m]
                cells.append("nothing fits" if x is None else f"{x['hit']:.3f} / {x['mrr']:.3f} ({x['config']})")
            lines.append(f"| {r['set']} | {e['budget']} | " + " | ".join(cells) + " |")
    lines += ["", "| set | mode | p50 ms | p90 ms | sentence fetches | sentences | vector fetches | vectors |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for m, v in r["latency"].items():
            lines.append(f"| {r['set']} | {m} | {v['p50_ms']} | {v['p90_ms']} | {v['sentence_calls']} | "
                         f"{v['sentences']} | {v['vector_calls']} | {v['vectors']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--max-sentences", type=int, default=500)
    ap.add_argument("--chunk-sizes", type=int, nargs="+", default=[64, 128, 256, 512])
    ap.add_argument("--latency-questions", type=int, default=50)
    # every set here is one language; cross-lingual retrieval only adds a translated
    # question's searches to both sides alike (and its own benchmark measures it): off by default
    ap.add_argument("--crosslingual", choices=["on", "off"], default="off")
    ap.add_argument("--home", default=str(ROOT / "bench" / "out" / "window_modes_home"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "window_modes.json"))
    args = ap.parse_args()
    load = os.getloadavg()
    results = []
    for name in args.sets:
        results.append(run_set(name, args))
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"load_before": load, "results": results}, indent=1))
    print(f"load average before: {load[0]:.1f} (2 cores); after: {os.getloadavg()[0]:.1f}")
    print(report(results))


if __name__ == "__main__":
    main()
