"""Would a candidate's window, embedded whole, tell the cross-lingual fusion more than its sentence?

    python bench/xl_calibrate.py capture --rule hub_weight=0 --sets bipar xquad faq faq2 faq3 faq4 \
        --out bench/out/xl_lists6.json
    python bench/xl_window.py bench/out/xl_lists6.json --home bench/out/real_kbs_home --context 2

For every candidate sentence of the captured lists (the knowledge bases ``capture`` built, read from
``--home``), its window (``--context`` sentences either side, joined) is embedded as a passage and
its cosine with the question's query vector taken. Then the fusion is replayed offline, as
``xl_calibrate.py fit`` replays it (no subjects, codes or kept places), with the two logistic models
fitted on every set but the one replayed (a set's seeds are one group), three ways:

- ``sentence``: the models' features as today (:mod:`xl_fit`);
- ``+window``: plus the window's cosine less the best question-language window's, for both models;
- ``+window2``: and, for the other language, less the best other-language window's too.

Printed per set: same-language answers on - off (points), other / same, the other-language rate,
and the other language's candidates ranked alone (hit@3). Windows are embedded once per knowledge
base (``--home``'s embedding cache keeps them for a rerun); only the replay is offline.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import real_data
import xl_fit as F
from sklearn.linear_model import LogisticRegression

GROUPS = {"bipar": ("bipar", "bipar_s1"), "xquad": ("xquad", "xquad_s1")}  # a set's seeds fit together


def window_cosines(eng, kb: str, rows: list[dict], context: int) -> list[dict]:
    """Per question, {(source, i): cosine of its window with the question} for every candidate."""
    texts = {}
    for d in eng.docs(kb):
        texts[d.source] = {s.i: s.text.strip() for s in eng.doc_sentences(kb, d.doc_id)}
    keys = sorted({(h["src"], h["i"]) for r in rows for lst in r["lists"] for h in lst["hits"]})
    windows = [" ".join(texts[s][j] for j in range(i - context, i + context + 1) if j in texts[s]) for s, i in keys]
    vecs = eng.embedder.encode_passages(windows)
    queries = eng.embedder.encode_queries([r["q"] for r in rows])
    at = {k: n for n, k in enumerate(keys)}
    return [{k: float(vecs[at[k]] @ q) for k in at} for q in queries]


def candidates(row: dict, wcos: dict) -> list[dict]:
    cs = F.candidates(row)
    for key, c in cs.items():
        c["w"] = wcos[key]
    own = max([c["w"] for c in cs.values() if not c["foreign"]] or [0.0])
    other = max([c["w"] for c in cs.values() if c["foreign"]] or [0.0])
    for c in cs.values():
        c["w_own"], c["w_other"] = c["w"] - own, c["w"] - other
    return list(cs.values())


def x_own(c: dict, way: str) -> list[float]:
    return F.x_own(c) + ([] if way == "sentence" else [c["w_own"]])


def x_foreign(c: dict, way: str) -> list[float]:
    extra = {"sentence": [], "+window": [c["w_own"]], "+window2": [c["w_own"], c["w_other"]]}[way]
    return F.x_foreign(c) + extra


def fit(cands: list[list[dict]], way: str):
    xo, yo, xf, yf = [], [], [], []
    for cs in cands:
        for c in cs:
            (xf if c["foreign"] else xo).append(x_foreign(c, way) if c["foreign"] else x_own(c, way))
            (yf if c["foreign"] else yo).append(c["win"])
    return (LogisticRegression(max_iter=3000).fit(np.array(xo), np.array(yo)),
            LogisticRegression(max_iter=3000).fit(np.array(xf), np.array(yf)))


def replay(cs: list[dict], mo, mf, way: str, margin: float = 0.1, k: int = 3) -> tuple[bool, bool]:
    """(hit of the fused top k, hit of the other language's top k alone), the running-minimum rule."""
    own = sorted((c for c in cs if not c["foreign"]), key=lambda c: -c["lists"]["own"]["score"])
    fo = [c for c in cs if c["foreign"]]
    pf = mf.predict_proba(np.array([x_foreign(c, way) for c in fo]))[:, 1] if fo else []
    po = mo.predict_proba(np.array([x_own(c, way) for c in own]))[:, 1] if own else []
    ranked = sorted(zip(pf, range(len(fo)), fo), key=lambda t: -t[0])
    out = F.interleave(own, list(po), [(q, c) for q, _, c in ranked], margin, k)
    ranked = [c for _, _, c in ranked]
    return any(c["win"] for c in out), any(c["win"] for c in ranked[:k])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lists", nargs="+", help="lists captured by bench/xl_calibrate.py capture")
    ap.add_argument("--home", required=True, help="the SWR_HOME the capture built its knowledge bases in")
    ap.add_argument("--context", type=int, default=2, help="sentences either side of the candidate")
    args = ap.parse_args()
    data = {}
    for path in args.lists:
        data.update(json.loads(open(path, encoding="utf-8").read()))
    eng = real_data.engine(args.home)
    cands = {kb: [candidates(r, w) for r, w in zip(rows, window_cosines(eng, kb, rows, args.context))]
             for kb, rows in data.items()}
    groups = {g: [s for s in sets if s in data] for g, sets in GROUPS.items()}
    groups.update({kb: [kb] for kb in data if not any(kb in sets for sets in GROUPS.values())})
    groups = {g: sets for g, sets in groups.items() if sets}
    for way in ("sentence", "+window", "+window2"):
        line = [f"{way:9}"]
        for g, sets in groups.items():
            mo, mf = fit([cs for h, hs in groups.items() if h != g for s in hs for cs in cands[s]], way)
            same, off, cross, alone = [], [], [], []
            for s in sets:
                for r, cs in zip(data[s], cands[s]):
                    hit, other = replay(cs, mo, mf, way)
                    if r["kind"] == "same":
                        same.append(hit)
                        own = sorted((c for c in cs if not c["foreign"]), key=lambda c: -c["lists"]["own"]["score"])
                        off.append(any(c["win"] for c in own[:3]))
                    else:
                        cross.append(hit)
                        alone.append(other)
            m = lambda v: sum(v) / len(v) if v else 0.0  # noqa: E731
            line.append(f"{g} {100 * (m(same) - m(off)):+.1f} {m(cross) / (m(same) or 1):.2f} ({m(cross):.2f}, "
                        f"alone {m(alone):.2f})")
        print(" | ".join(line), flush=True)
    eng.close()


if __name__ == "__main__":
    sys.exit(main())
