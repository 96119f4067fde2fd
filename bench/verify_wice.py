"""Claim verification on WiCE: recall@k of the supporting sentences inside the returned windows.

For a seeded sample of WiCE dev claims (``../shared/data/wice/claim_dev.jsonl``), each claim's
cited document (its ``evidence`` sentences, one per line) is indexed into its own knowledge base
``wice-<id>``; swr's sentence numbers are mapped back to evidence indices by line. Then, per
claim, every method returns ranked units (sets of evidence lines):

- ``verify``: :func:`swr.verify.verify.verify_many` (hybrid candidates, sliding windows, literal path,
  merged), its entries' *windows*, threshold ignored (ranking quality);
- ``sentences``: plain swr sentence retrieval (hybrid; and dense), one sentence per unit;
- ``chunks-C``: fixed-size chunks of C consecutive sentences of the same document, each embedded
  whole (passage prefix) and ranked by cosine with the claim embedding.

Metrics, over claims with at least one supporting sentence, at k = 1, 3, 5:
``any@k`` = some supporting sentence lies inside the top-k units; ``set@k`` = one complete
alternative set of ``supporting_sentences`` lies inside them; ``sent@k`` = mean sentences
returned (what a reader must read). Also the verdict scores per WiCE label, for the threshold.

    SWR_HOME=bench/out/wicehome .venv/bin/python bench/verify_wice.py --claims 60

Writes ``bench/out/verify_wice.json``; the embeddings are cached in SWR_HOME, so a rerun only
re-scores.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("SWR_HOME", str(ROOT / "bench" / "out" / "wicehome"))
os.environ.setdefault("SWR_SAMPLE_KB", "~none")

WICE = ROOT.parent / "shared" / "data" / "wice" / "claim_dev.jsonl"
KS = (1, 3, 5)
_LINE_BREAKS = re.compile("[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def load_claims(n: int | None, seed: int) -> list[dict]:
    rows = [json.loads(line) for line in WICE.open(encoding="utf-8") if line.strip()]
    if n is not None and n < len(rows):
        keep = sorted(random.Random(seed).sample(range(len(rows)), n))
        rows = [rows[k] for k in keep]
    return rows


def kb_of(row: dict) -> str:
    return "wice-" + re.sub(r"[^\w.-]", "_", str(row["meta"]["id"]))[:50]


def document(row: dict) -> str:
    """The evidence sentences one per line (line breaks inside a sentence become spaces)."""
    return "\n".join(_LINE_BREAKS.sub(" ", e) for e in row["evidence"]) + "\n"


def index_all(engine, rows: list[dict]) -> dict[str, dict]:
    """Index each claim's document into its KB; per KB: doc_id and swr sentence -> evidence line."""
    out = {}
    t0 = time.perf_counter()
    for n, row in enumerate(rows, 1):
        kb, text = kb_of(row), document(row)
        res = engine.index_files(kb, [(f"{kb}.txt", text.encode("utf-8"))])[0]
        if not res.ok:
            raise SystemExit(f"indexing {kb} failed: {res.error}")
        sents = engine.doc_sentences(kb, res.doc_id)
        assert "".join(s.text for s in sents) == text, f"{kb}: stored sentences do not tile the document"
        line_of = {}
        for s in sents:
            lead = len(s.text) - len(s.text.lstrip())
            line_of[s.i] = text.count("\n", 0, s.start + lead)
        out[kb] = {"doc_id": res.doc_id, "line_of": line_of, "sentences": sents}
        if not res.skipped:
            print(f"  [{n}/{len(rows)}] indexed {kb}: {len(sents)} sentences "
                  f"({time.perf_counter() - t0:.0f} s so far)", file=sys.stderr, flush=True)
    return out


def gold_sets(row: dict) -> list[set[int]]:
    return [set(s) for s in row.get("supporting_sentences") or [] if s]


def score_units(units: list[set[int]], gold: list[set[int]]) -> dict:
    out = {}
    for k in KS:
        got = set().union(*units[:k]) if units[:k] else set()
        out[f"any@{k}"] = float(any(got & g for g in gold))
        out[f"set@{k}"] = float(any(g <= got for g in gold))
        out[f"sent@{k}"] = float(sum(len(u) for u in units[:k]))
    return out


def lines(info: dict, first: int, last: int) -> set[int]:
    return {info["line_of"][i] for i in range(first, last + 1) if i in info["line_of"]}


# Long on purpose: one benchmark run top to bottom (sampling, indexing, every method's units,
# the tables); the steps share many locals.
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--claims", type=int, default=60, help="seeded sample size (all 349 with 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk-sizes", default="3,7", help="whole-chunk baseline sizes, in sentences")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "verify_wice.json")
    a = ap.parse_args()

    import numpy as np

    import swr.verify.verify as vf
    from swr.core.ids import sentence_id
    from swr.core.settings import Settings
    from swr.engine import Engine

    rows = load_claims(a.claims or None, a.seed)
    engine = Engine(Settings.from_env())
    print(f"{len(rows)} WiCE dev claims (seed {a.seed}), {engine.embedder.name} via {engine.embedder.runtime}; "
          f"SWR_HOME={engine.settings.home}", file=sys.stderr)
    t0 = time.perf_counter()
    info = index_all(engine, rows)
    t_index = time.perf_counter() - t0
    kbs = [kb_of(r) for r in rows]
    claims = [r["claim"] for r in rows]
    sizes = [int(x) for x in a.chunk_sizes.split(",") if x.strip()]

    methods: dict[str, list[list[set[int]]]] = {}
    configs = {
        "verify (window 2, step 1; top 2 of 5)": dict(window=2, step=1, candidates=5, use_top=2),
        "verify (window 3, step 1; top 2 of 5)": dict(window=3, step=1, candidates=5, use_top=2),
        "verify (window 2, step 1; top 5 of 10)": dict(window=2, step=1, candidates=10, use_top=5),
    }
    verify_out = {}
    seconds = {}
    for name, cfg in configs.items():
        t1 = time.perf_counter()
        res = vf.verify_many(engine, claims, kbs, top_k=max(KS), threshold=0.0, **cfg)
        seconds[name] = round(time.perf_counter() - t1, 2)
        methods[name] = [[lines(info[r.kb], e.window_first, e.window_last) for e in r.entries] for r in res]
        verify_out[name] = res
    for mode in ("hybrid", "dense"):
        name = f"sentences ({mode})"
        t1 = time.perf_counter()
        units = []
        for claim, kb in zip(claims, kbs):
            ret = engine.retrieve(claim, kb, top_k=max(KS), mode=mode)
            units.append([lines(info[kb], h.sentence.i, h.sentence.i) for h in ret.hits])
        methods[name] = units
        seconds[name] = round(time.perf_counter() - t1, 2)
    for size in sizes:
        name = f"whole chunks of {size} sentences"
        t1 = time.perf_counter()
        units = []
        for claim, kb in zip(claims, kbs):
            sents = info[kb]["sentences"]
            spans = [(k, min(k + size, len(sents)) - 1) for k in range(0, len(sents), size)]
            texts = ["".join(s.text for s in sents[x:y + 1]).strip() for x, y in spans]
            vecs = engine.embedder.encode_passages(texts)
            scores = vecs @ engine.embedder.encode_query(claim)
            order = np.argsort(-scores, kind="stable")[:max(KS)]
            units.append([lines(info[kb], sents[spans[j][0]].i, sents[spans[j][1]].i) for j in order])
        methods[name] = units
        seconds[name] = round(time.perf_counter() - t1, 2)

    evaluated = [k for k, r in enumerate(rows) if gold_sets(r)]
    table = {}
    for name, units in methods.items():
        per = [score_units(units[k], gold_sets(rows[k])) for k in evaluated]
        table[name] = {m: round(sum(p[m] for p in per) / len(per), 3) for m in per[0]}
        table[name]["seconds"] = seconds[name]

    # verdicts: best merged score per WiCE label, and the share called "supported" per threshold
    default = verify_out[next(iter(configs))]
    by_label: dict[str, list[float]] = {}
    for row, r in zip(rows, default):
        by_label.setdefault(row["label"], []).append(r.best.score if r.best else 0.0)
    thresholds = [0.82, 0.84, 0.86, 0.87, 0.88, 0.89, 0.90, 0.92]
    verdicts = {lab: {"claims": len(v), "mean_best": round(float(np.mean(v)), 4),
                      "median_best": round(float(np.median(v)), 4),
                      **{f"supported@{t}": round(float(np.mean([x >= t for x in v])), 3) for t in thresholds}}
                for lab, v in sorted(by_label.items())}
    # sentence level, from the stored vectors (no model call): the cosine of the claim with each
    # supporting sentence and with every other sentence of its document
    gold_cos, other_cos = [], []
    for k in evaluated:
        kb, row = kbs[k], rows[k]
        sents = info[kb]["sentences"]
        ids = [sentence_id(kb, info[kb]["doc_id"], s.i) for s in sents]
        vecs = engine.store.vectors(ids)
        q = engine.embedder.encode_query(row["claim"])
        gold = set().union(*gold_sets(row))
        for s, pid in zip(sents, ids):
            if pid in vecs and s.text.strip():
                (gold_cos if info[kb]["line_of"][s.i] in gold else other_cos).append(float(vecs[pid] @ q))
    calibration = {"supporting_sentences": len(gold_cos), "other_sentences": len(other_cos),
                   **{f"{t}": {"supporting": round(float(np.mean([x >= t for x in gold_cos])), 3),
                               "other": round(float(np.mean([x >= t for x in other_cos])), 4)}
                      for t in thresholds}}
    paths = {}
    for r in default:
        if r.best:
            paths[r.best.path] = paths.get(r.best.path, 0) + 1

    out = {"claims": len(rows), "evaluated": len(evaluated), "seed": a.seed, "ids": [r["meta"]["id"] for r in rows],
           "sentences": sum(len(i["sentences"]) for i in info.values()),
           "embedding": {"model": engine.embedder.name, "runtime": engine.embedder.runtime},
           "index_seconds": round(t_index, 1), "table": table, "verdicts": verdicts, "calibration": calibration,
           "best_path": paths,
           "default_threshold": vf.default_threshold(engine.embedder.name)}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    engine.close()

    print(f"\nWiCE dev: {len(rows)} claims (seed {a.seed}), {len(evaluated)} with supporting sentences, "
          f"{out['sentences']:,} sentences; {out['embedding']['model']} via {out['embedding']['runtime']}\n")
    cols = [f"{m}@{k}" for m in ("any", "set") for k in KS] + [f"sent@{k}" for k in KS]
    print("| method | " + " | ".join(cols) + " | s |")
    print("|---|" + "---:|" * (len(cols) + 1))
    for name, row in table.items():
        print(f"| {name} | " + " | ".join(f"{row[c]:.3f}" if not c.startswith("sent") else f"{row[c]:.1f}"
                                          for c in cols) + f" | {row['seconds']:.0f} |")
    print("\nBest merged score (verify, default knobs) per WiCE label; share at or above each threshold:\n")
    tcols = ["claims", "mean_best", "median_best"] + [f"supported@{t}" for t in thresholds]
    print("| label | " + " | ".join(tcols) + " |")
    print("|---|" + "---:|" * len(tcols))
    for lab, v in verdicts.items():
        print(f"| {lab} | " + " | ".join(str(v[c]) for c in tcols) + " |")
    print(f"\nSentence level (stored vectors): share of the {len(gold_cos)} supporting sentences and of the "
          f"{len(other_cos):,} other sentences of the same documents whose cosine with the claim reaches t:\n")
    print("| t | " + " | ".join(str(t) for t in thresholds) + " |")
    print("|---|" + "---:|" * len(thresholds))
    print("| supporting | " + " | ".join(str(calibration[str(t)]["supporting"]) for t in thresholds) + " |")
    print("| other | " + " | ".join(str(calibration[str(t)]["other"]) for t in thresholds) + " |")
    print(f"\nwinning path of the best entry: {paths}")


if __name__ == "__main__":
    main()
