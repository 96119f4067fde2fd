"""Fit and replay the evidence score (:class:`swr.core.rules.answerable.EvidenceModel`) on the rows
``bench/real_kbs.py --json`` writes: each question's answerability signals, whether its answer was
in the passages, and the rule that decided.

The score only speaks where the bars refused (``answerable.below``, ``answerable.no_term``; the rows
it or ``answerable.centred`` answered were refused by the bars first). Right answers: questions whose
answer is in the passages, on the mixed knowledge bases, the E-manuals and the help centre; wrong:
the off-domain questions asked of the same knowledge bases. Each seed's file is left out in turn
(fitted on the others, replayed on it), so every figure printed is on questions the fit did not see.

    python bench/evidence_fit.py out/s0.json out/s1.json out/s2.json [--centred] [--threshold 0.55]

``--split T ...`` reads the score as swr does: the plain weights on a knowledge base of one language,
``centred_weights`` (refitted on the other seeds' rows of knowledge bases the search centred, at each
threshold T) on the others; it prints the centred weights fitted on every seed.

``--centred`` adds the best hit's centred cosine less its hubness (``xcos`` in the rows) as a feature
and stops counting ``answerable.centred`` as a separate rule. Prints, per left-out seed, right
answers refused and off-domain questions answered: the rules as they are (replayed from the rows),
the refitted score alone, and the refitted score with the centred feature.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from swr.core.rules.answerable import EvidenceModel  # noqa: E402

BARS = {"answerable.below", "answerable.no_term", "answerable.evidence", "answerable.centred"}
MIXED = ("bipar", "xquad_mixed", "xquad_wide", "faq_bi")
FEATURES = ("cos", "cover", "known", "cross", "tcos", "tcover", "tknown", "psame", "pother", "ptr", "gcover")


def rows_of(path: str) -> tuple[list[dict], list[dict]]:
    """(right answers, off-domain questions) of one real_kbs JSON file."""
    d = json.loads(Path(path).read_text())
    right, wrong = [], []
    for name in MIXED:
        right += [r for r in (d.get(name) or {}).get("on", []) if r.get("hit")]
    for name in ("em_s10_user", "em_s10_own", "em_tv_user", "em_tv_own"):
        right += [r for r in d.get(name) or [] if r.get("hit")]
    right += [r for r in (d.get("helpcentre_zh") or {}).get("on", []) if r.get("hit")]
    right += [r for r in (d.get("zh_questions_on_em_s10") or {}).get("on", []) if r.get("hit")]
    # the other Samsung manual's questions are neighbours, not off-domain (their answers may be shared)
    wrong += [r for r in d.get("offdomain") or [] if r.get("kind") not in ("tv on s10", "s10 on tv")]
    wrong += list(((d.get("faq_bi") or {}).get("off_domain") or {}).get("on", []))
    wrong += list((d.get("helpcentre_zh") or {}).get("offdomain", []))
    return right, wrong


def features(r: dict, centred: bool) -> list[float] | None:
    """The score's figures of a row the bars refused (None: the bars did not refuse it, or the
    score's own guards keep it out: fewer than two terms, the unknown-terms cover guard)."""
    s = r.get("signals") or {}
    if r.get("rule") not in BARS or "unknown" not in s or not s.get("terms"):
        return None
    m = EvidenceModel()
    if s["terms"] < m.min_terms:
        return None
    tr = s.get("translated") or [0.0, 0.0, 0, 0]
    tcos, tcover, tterms, tunknown = tr
    if s["unknown"] and max(s["cover"], tcover, s.get("gcover") or 0.0) < m.unknown_cover:
        return None
    if max(s["cos"], tcos) < m.floor:
        return None
    so = s.get("standout") or {}
    x = [s["cos"], s["cover"], 1 - s["unknown"] / s["terms"], float(s["cross"]), tcos, tcover,
         (1 - tunknown / tterms) if tterms else 0.0, so.get("own_same", 0.0), so.get("own_other", 0.0),
         so.get("tr", 0.0), s.get("gcover") or 0.0]
    if centred:
        xc = r.get("xcos")
        x += [xc if xc is not None else 0.0, float(xc is not None)]
    return x


def current(r: dict) -> bool:
    return bool(r.get("answerable"))


def fit(right: list[dict], wrong: list[dict], centred: bool, C: float):
    from sklearn.linear_model import LogisticRegression

    xs, ys = [], []
    for rows, y in ((right, 1), (wrong, 0)):
        for r in rows:
            x = features(r, centred)
            if x is not None:
                xs.append(x)
                ys.append(y)
    return LogisticRegression(C=C, max_iter=5000).fit(xs, ys)


def replay(model, r: dict, centred: bool, threshold: float) -> bool:
    """Answered: by a rule other than the bars' refusals (as recorded), or by the refitted score."""
    if r.get("rule") not in BARS:
        return bool(r.get("answerable"))
    x = features(r, centred)
    if x is None:
        return False
    z = model.intercept_[0] + sum(w * v for w, v in zip(model.coef_[0], x))
    return 1 / (1 + math.exp(-z)) >= threshold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threshold", type=float, default=EvidenceModel().threshold)
    ap.add_argument("--C", type=float, default=100.0, help="inverse regularisation (features are unscaled)")
    ap.add_argument("--print-weights", action="store_true")
    ap.add_argument("--split", nargs="*", type=float, default=None, metavar="THRESHOLD",
                    help="the model as it is: the plain weights where the search did not centre the languages, "
                         "centred_weights where it did; refit the centred one at these thresholds")
    ap.add_argument("--sweep", nargs="*", type=float, default=[],
                    help="also print the left-out totals at these thresholds")
    a = ap.parse_args()
    data = [rows_of(f) for f in a.files]
    if a.split is not None:
        return split(data, a.files, a.split, a.C)
    print("| left out | right n | off n | rules now: right refused / off answered | refit | refit + centred |")
    print("|---|---|---|---|---|---|")
    tot = [[0, 0] for _ in range(3)]
    for i, f in enumerate(a.files):
        right, wrong = data[i]
        tr_right = [r for j, (rr, _) in enumerate(data) if j != i for r in rr]
        tr_wrong = [r for j, (_, ww) in enumerate(data) if j != i for r in ww]
        cells = [(sum(not current(r) for r in right), sum(current(r) for r in wrong))]
        for centred in (False, True):
            m = fit(tr_right, tr_wrong, centred, a.C)
            cells.append((sum(not replay(m, r, centred, a.threshold) for r in right),
                          sum(replay(m, r, centred, a.threshold) for r in wrong)))
        for t, c in zip(tot, cells):
            t[0] += c[0]
            t[1] += c[1]
        shown = (f"{c[0]} ({c[0] / len(right):.1%}) / {c[1]} ({c[1] / len(wrong):.1%})" for c in cells)
        print(f"| {Path(f).stem} | {len(right)} | {len(wrong)} | " + " | ".join(shown) + " |")
    print("| all | | | " + " | ".join(f"{t[0]} / {t[1]}" for t in tot) + " |")
    for th in a.sweep:
        got = []
        for centred in (False, True):
            rr = oo = 0
            for i in range(len(a.files)):
                right, wrong = data[i]
                m = fit([r for j, (x, _) in enumerate(data) if j != i for r in x],
                        [r for j, (_, x) in enumerate(data) if j != i for r in x], centred, a.C)
                rr += sum(not replay(m, r, centred, th) for r in right)
                oo += sum(replay(m, r, centred, th) for r in wrong)
            got.append(f"{rr} / {oo}")
        print(f"threshold {th:g}: refit {got[0]}, refit + centred {got[1]} (right refused / off-domain answered)")
    if a.print_weights:
        right = [r for rr, _ in data for r in rr]
        wrong = [r for _, ww in data for r in ww]
        for centred in (False, True):
            m = fit(right, wrong, centred, a.C)
            names = FEATURES + (("xcos", "has_xcos") if centred else ())
            print("centred" if centred else "plain", {n: round(float(w), 3) for n, w in zip(names, m.coef_[0])},
                  "bias", round(float(m.intercept_[0]), 3))


def _score(weights: tuple, x: list[float]) -> float:
    return 1 / (1 + math.exp(-(weights[0] + sum(w * v for w, v in zip(weights[1:], x)))))


def split(data: list, files: list[str], thresholds: list[float], C: float) -> None:
    """The evidence score as swr reads it: EvidenceModel's plain weights on the rows of a knowledge base
    of one language (no centred cosine), ``centred_weights`` (the plain figures and the centred cosine
    less its hubness) on the others. Prints, each seed left out in turn, right answers refused and
    off-domain questions answered, each kind apart: the model as it is, the plain model on every row,
    and the centred one refitted on the other seeds' centred rows at each of ``thresholds``."""
    m = EvidenceModel()
    plain = (m.bias, m.cos, m.cover, m.known, m.cross, m.tcos, m.tcover, m.tknown, m.psame, m.pother, m.ptr,
             m.gcover)

    def said(r: dict, weights, threshold: float, centred: bool) -> bool:
        if r.get("rule") not in BARS:
            return bool(r.get("answerable"))
        x = features(r, centred)
        return x is not None and _score(weights, x[:-1] if centred else x) >= threshold

    def count(rows, right: bool, decide) -> tuple[int, int]:
        c = [r for r in rows if r.get("xcos") is not None]
        p = [r for r in rows if r.get("xcos") is None]
        f = (lambda r: not decide(r)) if right else decide
        return sum(map(f, c)), sum(map(f, p))

    def now(r):
        if r.get("xcos") is None:
            return said(r, plain, m.threshold, False)
        return said(r, m.centred_weights, m.centred_threshold, True)

    variants = {"as it is": [now] * len(files), "plain everywhere": [lambda r: said(r, plain, m.threshold, False)]
                * len(files)}
    for th in thresholds:
        fns = []
        for i in range(len(files)):
            rr = [r for j, (x, _) in enumerate(data) if j != i for r in x if r.get("xcos") is not None]
            ww = [r for j, (_, x) in enumerate(data) if j != i for r in x if r.get("xcos") is not None]
            fitted = fit(rr, ww, True, C)
            # has_xcos is 1 on every centred row: its weight is part of the intercept
            w = (float(fitted.intercept_[0] + fitted.coef_[0][-1]), *(float(v) for v in fitted.coef_[0][:-1]))
            fns.append(lambda r, w=w, th=th: said(r, w, th, True) if r.get("xcos") is not None
                       else said(r, plain, m.threshold, False))
        variants[f"centred refitted, {th:g}"] = fns
    print("| variant | right refused: centred KBs / one language | off-domain answered: centred KBs / one language |")
    print("|---|---|---|")
    for name, fns in variants.items():
        rc = rp = wc = wp = 0
        for i, (right, wrong) in enumerate(data):
            a, b = count(right, True, fns[i])
            c, d = count(wrong, False, fns[i])
            rc, rp, wc, wp = rc + a, rp + b, wc + c, wp + d
        print(f"| {name} | {rc} / {rp} | {wc} / {wp} |")
    nc = sum(r.get("xcos") is not None for right, _ in data for r in right)
    nw = sum(r.get("xcos") is not None for _, wrong in data for r in wrong)
    nr, nwt = sum(len(x) for x, _ in data), sum(len(x) for _, x in data)
    print(f"\nright answers: {nc} centred, {nr - nc} one language; off-domain: {nw} centred, {nwt - nw} one language")
    rr = [r for x, _ in data for r in x if r.get("xcos") is not None]
    ww = [r for _, x in data for r in x if r.get("xcos") is not None]
    fitted = fit(rr, ww, True, C)
    print("centred_weights (all seeds):", tuple(round(float(v), 3) for v in
                                              (fitted.intercept_[0] + fitted.coef_[0][-1], *fitted.coef_[0][:-1])))


if __name__ == "__main__":
    main()
