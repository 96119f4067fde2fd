"""Answerability: precision and recall of ``engine.ask``'s ``answerable`` on questions asked
against their own knowledge base (positives) and against the wrong one (negatives: the other
knowledge base of the same language, and one of the other language). Data: bench/_qa_kbs.py.

    .venv/bin/python bench/answerable.py            # report the thresholds in swr/answerable.py
    .venv/bin/python bench/answerable.py --tune     # also grid-search them on the tuning half

Per fusion (dbsf, rrf): the decision uses the dense cosine (never the fused score) and the
question terms found in the passages the fusion retrieved. Writes bench/out/answerable.json.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time

import _qa_kbs as qa


def rows_for(engine, arts, fusion: str) -> list[dict]:
    from swr import answerable as an

    other_lang = {"en": "zh", "zh": "en"}
    rows = []
    for a in arts:
        letter = a.kb[-1]
        wrong_same = a.kb[:-1] + ("B" if letter == "A" else "A")
        wrong_lang = f"bq-{other_lang[a.lang]}-{letter}"
        for q in a.questions:
            for kb, label in ((a.kb, True), (wrong_same, False), (wrong_lang, False)):
                r = engine.retrieve(q, kb, fusion=fusion)
                passages = engine.passages(r, 3)
                cos = an.best_cosine(engine, q, kb, r.hits, r.params)
                rows.append({"lang": a.lang, "split": a.split, "q": q, "kb": kb, "label": label,
                             "cos": cos or 0.0, "cover": an.coverage(q, passages),
                             "negative": "" if label else ("same language" if kb == wrong_same else "other language")})
    return rows


def decide(r, t) -> bool:
    return r["cos"] >= t[0] or (r["cos"] >= t[1] and r["cover"] >= t[2])


def scores(rows, t) -> dict:
    tp = sum(1 for r in rows if r["label"] and decide(r, t))
    fp = sum(1 for r in rows if not r["label"] and decide(r, t))
    pos = sum(r["label"] for r in rows)
    return {"tp": tp, "fp": fp, "pos": pos, "neg": len(rows) - pos}


def tune(rows) -> tuple:
    """The thresholds with the best balanced accuracy on ``rows`` (the tuning half)."""
    grid_hi = [x / 1000 for x in range(850, 941, 5)]
    grid_lo = [x / 1000 for x in range(780, 901, 5)]
    grid_c = [0.25, 0.34, 0.5, 0.6, 0.67, 0.75, 1.0]
    best = None
    for hi, lo, c in itertools.product(grid_hi, grid_lo, grid_c):
        if lo > hi:
            continue
        s = scores(rows, (hi, lo, c))
        bal = (s["tp"] / max(1, s["pos"]) + 1 - s["fp"] / max(1, s["neg"])) / 2
        if best is None or bal > best[0]:
            best = (bal, (hi, lo, c))
    return best[1]


def report(rows, t, label) -> list[str]:
    out = []
    for part in ("en", "zh", "all"):
        sub = [r for r in rows if part in ("all", r["lang"])]
        s = scores(sub, t)
        pred = s["tp"] + s["fp"]
        neg_same = [r for r in sub if r["negative"] == "same language"]
        neg_other = [r for r in sub if r["negative"] == "other language"]
        out.append(f"| {label} | {part} | {qa.rate(s['tp'], pred)} | {qa.rate(s['tp'], s['pos'])} | "
                   f"{qa.rate(sum(decide(r, t) for r in neg_same), len(neg_same))} | "
                   f"{qa.rate(sum(decide(r, t) for r in neg_other), len(neg_other))} |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--fusions", default="dbsf,rrf")
    a = ap.parse_args()
    from swr import answerable as an
    from swr.engine import Engine
    from swr.settings import Settings

    t0 = time.time()
    engine = Engine(Settings.from_env())
    arts = qa.articles()
    qa.index(engine, arts)
    t = an.thresholds_for(engine.embedder.name)
    current = (t.high, t.low, t.cover)
    lines = ["| fusion, thresholds | questions | precision | recall | answered, wrong KB same language | "
             "answered, wrong KB other language |", "|---|---|---|---|---|---|"]
    dump = {}
    for fusion in a.fusions.split(","):
        rows = rows_for(engine, arts, fusion)
        dump[fusion] = rows
        tuned = tune([r for r in rows if r["split"] == "tune"]) if a.tune else None
        test = [r for r in rows if r["split"] == "test"]
        lines += report(test, current, f"{fusion}, swr {current}")
        if tuned:
            lines += report(test, tuned, f"{fusion}, tuned here {tuned}")
            print(f"{fusion}: tuned on the tuning half: high {tuned[0]}, low {tuned[1]}, cover {tuned[2]}",
                  file=sys.stderr)
    print(f"Answerability on the held-out half ({engine.embedder.name}; {time.time() - t0:.0f} s)\n")
    print("\n".join(lines))
    out = qa.ROOT / "bench" / "out" / "answerable.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dump, ensure_ascii=False))
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
