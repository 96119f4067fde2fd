"""Does a section's or a document's vector beside each sentence's find the answer's passage better?

    python bench/unit_vectors.py                     # every set, both signals (about 5 min, embeddings cached)
    python bench/unit_vectors.py --sets passages s10 --signals document

A chunk is embedded whole, with its heading, so it finds the passage a colloquial question is
about better than any one of the passage's sentences does. This measures the query-time version
of that for sentence windows: the hybrid search's top 30 sentences re-ranked by reciprocal rank
fusion of their own rank and the rank of their unit (a ``section``: its embedded text, the
first 600 characters; or a ``document``: the mean of its stored sentence vectors, no
re-embedding) by the question's cosine, weight ``lambda`` (0: today's ranking). The first k of
the new order make section and budget windows at the app's budgets; hit = the whole answer in
them. Sets (each answer kept whole): ``articles`` (bench/data/helpcentre_zh, 40 articles),
``passages`` (the same split into its 201 sections, one document each: a help centre of short
passages), ``s10`` (the Samsung S10 manual, one long document, its user questions),
``squad`` (SQuAD v1.1 dev, 8 articles split into 476 paragraph documents, 150 questions).
Reported in docs/retrieval.md ("A section's or a document's vector").
"""
from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_kbs as R  # noqa: E402  (the sets and the engine of the real-content benchmark)

from swr.evaluate.metrics import normalize  # noqa: E402
from swr.evaluate.questions import Question, load_squad  # noqa: E402

DEPTH = 30  # sentences re-ranked per question
RRF_K = 60  # the store's reciprocal-rank constant
UNIT_CHARS = 600  # a section's embedded text (e5-small reads 512 tokens)
CONFIGS = (("section", 600, 2), ("section", 600, 3), ("section", 1200, 5), ("budget", 1200, 10))


def sets(names: list[str]) -> dict:
    out = {}
    docs, qs = R.helpcentre_zh()
    if "articles" in names:
        out["articles"] = (docs, qs)
    if "passages" in names:
        out["passages"] = R.helpcentre_passages()
    if "s10" in names:
        d, q = R.emanual()
        out["s10"] = (d["s10"], [Question(x["q"], x["answers"], [], None, "") for x in q["s10"]])
    if "squad" in names:
        d, q = load_squad(R.DATA / "squad_v1.1" / "dev-v1.1.json", max_articles=8)
        paras = [(f"{n[:-4]}_{k}.txt", p) for n, t in d for k, p in enumerate(t.split("\n\n"))]
        out["squad"] = (paras, random.Random(0).sample(q, 150))
    return out


def unit_vectors(eng, kb: str, signal: str):
    """A function of a sentence: its unit's key and unit vector (cached)."""
    cache: dict = {}

    def of(s):
        if signal == "document":
            key, lo, hi = (s.doc_id,), 0, s.n - 1
        else:
            lo = max(s.section if s.section is not None else 0, 0)
            key, hi = (s.doc_id, lo), s.section_last if s.section_last is not None else s.n - 1
        if key not in cache:
            keys = [(s.doc_id, j) for j in range(lo, hi + 1)]
            if signal == "document":
                v = np.mean([np.asarray(x) for x in eng.fetch_vectors(kb, keys).values()], axis=0)
            else:
                got = eng.fetch_sentences(kb, keys)
                v = np.asarray(eng.embedder.encode_passages(["".join(got[k].text for k in keys if k in got)[
                    :UNIT_CHARS]])[0])
            cache[key] = v / np.linalg.norm(v)
        return key, cache[key]
    return of


def run(eng, name: str, docs, qs, signal: str, lams: list[float]) -> list[str]:
    kb = f"uv_{name}"
    if kb not in {k["kb"] for k in eng.kbs()}:
        R.build(eng, kb, docs)
    unit = unit_vectors(eng, kb, signal)
    got = {(lam, c): 0 for lam in lams for c in CONFIGS}
    for q in qs:
        answers = [normalize(a) for a in q.answers]
        r = eng.retrieve(q.question, kb, top_k=DEPTH, mode="hybrid")
        qv = np.asarray(r.query_vector if r.query_vector is not None else eng.embedder.encode_query(q.question))
        cos = {}
        for h in r.hits:
            key, v = unit(h.sentence)
            cos[key] = float(qv.ravel() @ v)
        unit_rank = {k: i for i, k in enumerate(sorted(cos, key=lambda k: -cos[k]), 1)}
        for lam in lams:
            def fused(h, lam=lam, unit_rank=unit_rank):
                return 1 / (RRF_K + h.rank) + lam / (RRF_K + unit_rank[unit(h.sentence)[0]])
            hits = sorted(r.hits, key=fused, reverse=True)
            for c in CONFIGS:
                mode, budget, k = c
                ps = eng.passages(dataclasses.replace(r, hits=hits[:k]), 0, window_mode=mode, budget_chars=budget)
                got[(lam, c)] += any(a in normalize(p.text) for p in ps for a in answers)
    rows = []
    for lam in lams:
        rows.append(f"| {name} | {signal} | {lam:g} | " + " | ".join(f"{got[(lam, c)] / len(qs):.3f}" for c in CONFIGS)
                    + f" | {len(qs)} |")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=["articles", "passages", "s10", "squad"])
    ap.add_argument("--signals", nargs="+", default=["section", "document"], choices=["section", "document"])
    ap.add_argument("--lambdas", nargs="+", type=float, default=[0.0, 0.3, 1.0])
    ap.add_argument("--home", default=str(R.ROOT / "bench" / "out" / "unit_vectors_home"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    eng = R.engine(args.home, crosslingual="off")
    lines = [f"`python bench/unit_vectors.py {' '.join(sys.argv[1:])}`", "",
             "| set | unit | lambda | " + " | ".join(f"{m} {b} k{k}" for m, b, k in CONFIGS) + " | n |",
             "|---|---|---|" + "---|" * (len(CONFIGS) + 1)]
    for name, (docs, qs) in sets(args.sets).items():
        for signal in args.signals:
            lines += run(eng, name, docs, qs, signal, args.lambdas)
    lines.append(f"\n{time.perf_counter() - t0:.0f}s")
    print("\n".join(lines))
    eng.close()


if __name__ == "__main__":
    main()
