"""Offline replay of the cross-lingual fusion on captured lists (bench/xl_calibrate.py fit)."""
from __future__ import annotations

import math

import numpy as np


def _norm_lists(row):
    own, foreign = [], {}
    for lst in row["lists"]:
        if lst["via"] is None:
            own.append(lst["hits"])
        else:
            foreign.setdefault(lst["via"], []).append(lst["hits"])
    return own, foreign


def candidates(row, depth=None):
    """{key: features} of every sentence in the lists: own-language and other-language ones
    (another language's lists cut at ``depth`` candidates when given)."""
    own, foreign = _norm_lists(row)
    if depth:
        foreign = {via: [hs[:depth] for hs in lists] for via, lists in foreign.items()}
    out = {}
    own_c1 = max([h["dense"] for hs in own for h in hs if h["dense"] is not None and h["lang"] == row["lang"]]
                 or [0.0])
    for via, lists in (("own", own), *foreign.items()):
        for hs in lists:
            cos = [h["dense"] for h in hs if h["dense"] is not None]
            lo = min(cos) if cos else 0.0
            top_s = max([h["sparse"] or 0 for h in hs] or [0]) or 1.0
            for r, h in enumerate(hs, 1):
                key = (h["src"], h["i"])
                v = "lang-list" if via == "own" and h["lang"] != row["lang"] else via
                c = out.setdefault(key, {"src": h["src"], "foreign": v != "own", "own_c1": own_c1, "lists": {},
                                         "win": h.get("win", False), "len": length(h.get("chars", 100))})
                if v in c["lists"] and c["lists"][v]["score"] >= h["score"]:
                    continue
                c["lists"][v] = {"score": h["score"], "cos": h["dense"] if h["dense"] is not None else lo - 0.02,
                                   "sparse": (h["sparse"] or 0) / top_s, "rank": r, "heading": h.get("heading", False),
                                   "wordy": h["wordy"]}
    return out


def length(chars):
    """A sentence's length on a 0..1 scale (log, 200 characters and more: 1)."""
    return min(1.0, math.log1p(chars) / math.log1p(200))


def x_own(c):
    e = c["lists"]["own"]
    return [e["cos"] - c["own_c1"], e["sparse"], 1.0 / e["rank"], e["score"], c["len"]]


def x_foreign(c):
    t, g = c["lists"].get("translation"), c["lists"].get("lang-list")
    ct = t["cos"] if t else None
    cl = g["cos"] if g else None
    return [(ct if ct is not None else (cl or 0) + 0.07) - c["own_c1"], (cl if cl is not None else (ct or 0) - 0.07)
            - c["own_c1"], t["sparse"] if t else 0.0, 1.0 / t["rank"] if t else 0.0, 1.0 / g["rank"] if g else 0.0,
            float(bool(t and g)), c["len"]]


def sigmoid(z):
    return 1 / (1 + math.exp(-z))


def recall(data, depths=(8, 15, 25, 50)):
    """Per set, the share of cross-language questions whose answer window is among the candidates
    of each list (the plain list; another language's own-vector and translation lists at each depth)."""
    for name, rows in data.items():
        cross = [r for r in rows if r["kind"] == "cross"]
        firsts = []
        for r in cross:
            got = {"plain": None, "lang-list": None, "translation": None}
            for lst in r["lists"]:
                if lst.get("subject"):
                    continue
                via = lst["via"] or "plain"
                rank = next((i for i, h in enumerate(lst["hits"], 1) if h["win"]), None)
                if rank and (got[via] is None or rank < got[via]):
                    got[via] = rank
            firsts.append(got)
        n = len(cross)
        print(f"{name}: cross n={n}  plain list (depth 8): {sum(g['plain'] is not None for g in firsts) / n:.2f}")
        for d in depths:
            ll = sum(g["lang-list"] is not None and g["lang-list"] <= d for g in firsts)
            tl = sum(g["translation"] is not None and g["translation"] <= d for g in firsts)
            anyl = sum(any(g[v] is not None and g[v] <= (d if v != "plain" else 8) for v in g) for g in firsts)
            print(f"  depth {d:>2}: lang-list {ll / n:.2f}  translation {tl / n:.2f}  any list {anyl / n:.2f}")


FOREIGN_LENGTH = True  # False (xl_calibrate --no-foreign-length): the foreign model fitted without the length


def fit(rows_sets, C=1.0, depth=None):
    from sklearn.linear_model import LogisticRegression

    xo, yo, xf, yf = [], [], [], []
    for rows in rows_sets:
        for row in rows:
            for c in candidates(row, depth).values():
                (xf if c["foreign"] else xo).append(x_foreign(c) if c["foreign"] else x_own(c))
                (yf if c["foreign"] else yo).append(c["win"])
    mo = LogisticRegression(C=C, max_iter=1000).fit(np.array(xo), np.array(yo))
    xf = np.array(xf) if FOREIGN_LENGTH else np.array(xf)[:, :-1]
    mf = LogisticRegression(C=C, max_iter=1000).fit(xf, np.array(yf))
    wf = [float(mf.intercept_[0]), *map(float, mf.coef_[0])] + ([] if FOREIGN_LENGTH else [0.0])
    return ([float(mo.intercept_[0]), *map(float, mo.coef_[0])], wf)


def p(w, x):
    return sigmoid(w[0] + sum(a * b for a, b in zip(w[1:], x)))


def rank_calibrated(row, wo, wf, margin=0.0, k=3, depth=None):
    cs = candidates(row, depth)
    own = sorted((c for c in cs.values() if not c["foreign"]), key=lambda c: -c["lists"]["own"]["score"])
    fo = sorted(((p(wf, x_foreign(c)), c) for c in cs.values() if c["foreign"]), key=lambda t: -t[0])
    return interleave(own, [p(wo, x_own(c)) for c in own], fo, margin, k)


def interleave(own: list, po: list, fo: list, margin: float, k: int) -> list:
    """The fusion's running-minimum rule: the question language's candidates ``own`` (their
    probabilities ``po``) in their order, each other-language ``(probability, candidate)`` of ``fo``
    (best first) entering above the first it beats by ``margin``; the top ``k``."""
    out, floor, i, j = [], 1.0, 0, 0
    while len(out) < k and (j < len(own) or i < len(fo)):
        pj = min(floor, po[j]) if j < len(own) else -1
        if i < len(fo) and fo[i][0] > pj + margin:
            out.append(fo[i][1])
            i += 1
        elif j < len(own):
            floor = pj
            out.append(own[j])
            j += 1
        else:
            break
    return out


def rank_current(row, second=0.5, k=3):
    cs = candidates(row)
    scored = []
    for c in cs.values():
        ss = sorted((e["score"] for e in c["lists"].values()), reverse=True)
        head = any(e["heading"] for e in c["lists"].values())
        s = ss[0] + (second * ss[1] if len(ss) > 1 and c["foreign"] and not head else 0)
        scored.append((s, id(c), c))
    return [c for _, _, c in sorted(scored, key=lambda t: -t[0])[:k]]


def rank_own(row, k=3):
    cs = candidates(row)
    own = sorted((c for c in cs.values() if not c["foreign"]), key=lambda c: -c["lists"]["own"]["score"])
    return own[:k]


def evaluate(rows, ranker):
    res = {}
    for r in rows:
        hit = any(c["win"] for c in ranker(r))
        for key in (r["kind"], f"{r['kind']} {r['lang']}"):
            res.setdefault(key, []).append(hit)
    return {k: sum(v) / len(v) for k, v in sorted(res.items())}


def report(data):
    sets = list(data)
    fmt = lambda d: " ".join(f"{k}={v:.2f}" for k, v in d.items())
    for name in sets:
        print(f"{name}: own-only   {fmt(evaluate(data[name], rank_own))}")
        print(f"{name}: sum fusion (best + 0.5 x other) {fmt(evaluate(data[name], rank_current))}")
    wo, wf = fit([data[s] for s in sets])
    print("fitted on all: own", [round(x, 3) for x in wo], "foreign", [round(x, 3) for x in wf])
    for name in sets:
        others = [data[s] for s in sets if s != name]
        wo2, wf2 = fit(others) if others else (wo, wf)
        for m in (0.0, 0.05, 0.1, 0.15, 0.2):
            pooled = evaluate(data[name], lambda r, m=m: rank_calibrated(r, wo, wf, m))
            held = evaluate(data[name], lambda r, m=m, a=wo2, b=wf2: rank_calibrated(r, a, b, m))
            print(f"{name}: calibrated(all) m={m} {fmt(pooled)}")
            print(f"{name}: calibrated(other set) m={m} {fmt(held)}")


def sweep(data, depths=(8, 15, 25, 50), margins=(0.05, 0.1, 0.15, 0.2)):
    """Per depth of another language's lists: the weights fitted on every set, and per set the
    hit@3 of same- and cross-language questions at each margin, with those weights and with the
    weights fitted on the other sets alone (held out)."""
    sets = list(data)
    fmt = lambda d: " ".join(f"{k}={v:.2f}" for k, v in d.items() if " " not in k)
    for name in sets:
        print(f"{name}: own-only {fmt(evaluate(data[name], rank_own))}")
    for d in depths:
        wo, wf = fit([data[s] for s in sets], depth=d)
        print(f"depth {d}: own {[round(x, 3) for x in wo]} foreign {[round(x, 3) for x in wf]}")
        for name in sets:
            others = [data[s] for s in sets if s != name]
            wo2, wf2 = fit(others, depth=d)
            for m in margins:
                pooled = evaluate(data[name], lambda r, m=m, a=wo, b=wf, d=d: rank_calibrated(r, a, b, m, depth=d))
                held = evaluate(data[name], lambda r, m=m, a=wo2, b=wf2, d=d: rank_calibrated(r, a, b, m, depth=d))
                print(f"  {name} m={m}: all-sets {fmt(pooled)} | held-out {fmt(held)}")


def ceiling(data, depths=(8, 25, 50)):
    """Per set and depth, cross questions' hit@1 / hit@3 when another language's candidates are
    ranked among themselves alone (weights fitted on every set at that depth): what any
    interleaving with the question language's sentences can reach at most."""
    for d in depths:
        _, wf = fit(list(data.values()), depth=d)
        for name, rows in data.items():
            cross = [r for r in rows if r["kind"] == "cross"]
            h1 = h3 = 0
            for r in cross:
                fo = sorted(((p(wf, x_foreign(c)), c) for c in candidates(r, d).values() if c["foreign"]),
                            key=lambda t: -t[0])
                h1 += any(c["win"] for _, c in fo[:1])
                h3 += any(c["win"] for _, c in fo[:3])
            print(f"depth {d} {name}: cross n={len(cross)} other-language only hit@1 {h1 / len(cross):.2f} "
                  f"hit@3 {h3 / len(cross):.2f}")


def _auc(pos, neg) -> float:
    pairs = [(a > b) + 0.5 * (a == b) for a in pos for b in neg]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def calibration(data):
    """Per set, whether the fusion's two sentence models (without the windows) can tell a same-language
    question from a cross one: the mean probability the current rules give the top 1 / 2 / 3
    candidates of each side against how often their window holds the answer (predicted/actual), and
    the AUC of "the answer is in the question's language" read from the best question-language
    cosine and from its gap to the translation's best (1: always told apart, 0.5: chance)."""
    from swr.core.rules.crosslingual import DEFAULT_RULES as R

    wo, wf = list(R.own_weights), list(R.foreign_weights)
    for name, rows in data.items():
        parts, best, gap, same = [], [], [], []
        for kind in ("same", "cross"):
            got = {side: {i: ([], []) for i in (1, 2, 3)} for side in ("own", "foreign")}
            for r in (r for r in rows if r["kind"] == kind):
                cs = candidates(r)
                own = sorted((c for c in cs.values() if not c["foreign"]), key=lambda c: -c["lists"]["own"]["score"])
                fo = sorted((c for c in cs.values() if c["foreign"]), key=lambda c: -p(wf, x_foreign(c)))
                for side, ranked, x, w in (("own", own, x_own, wo), ("foreign", fo, x_foreign, wf)):
                    for i, c in enumerate(ranked[:3], 1):
                        got[side][i][0].append(p(w, x(c)))
                        got[side][i][1].append(c["win"])
                oc = max([c["lists"]["own"]["cos"] for c in own] or [0.0])
                tc = max([c["lists"]["translation"]["cos"] for c in fo if "translation" in c["lists"]] or [0.0])
                best.append(oc)
                gap.append(oc - tc)
                same.append(kind == "same")
            parts.append(f"{kind}: " + " | ".join(
                f"{side} " + " ".join(f"{_mean(got[side][i][0]):.2f}/{_mean(got[side][i][1]):.2f}" for i in (1, 2, 3))
                for side in ("own", "foreign")))
        print(f"{name}: " + " || ".join(parts) + f" || AUC best own cosine {_auc(*_split(best, same)):.2f}, "
              f"gap to the translation's {_auc(*_split(gap, same)):.2f}")


def _mean(v) -> float:
    return sum(v) / len(v) if v else 0.0


def _split(values, flags) -> tuple[list, list]:
    return [x for x, f in zip(values, flags) if f], [x for x, f in zip(values, flags) if not f]
