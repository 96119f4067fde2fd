"""Answerability: precision and recall of ``engine.ask``'s ``answerable`` on questions asked
against their own knowledge base (positives) and against the wrong one (negatives: the other
knowledge base of the same language, and one of the other language). Data: bench/qa_kbs.py.

    .venv/bin/python bench/answerable.py            # report the thresholds in swr/answer/answerable.py
    .venv/bin/python bench/answerable.py --tune     # also grid-search them on the tuning half

Per fusion (dbsf, rrf): the decision uses the dense cosine (never the fused score) and the
question terms found in the passages the fusion retrieved. Writes bench/out/answerable.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import qa_kbs as qa

from common import rule_ids, rule_table


def xquad_zh() -> dict:
    """XQuAD-zh questions by SQuAD id (the same questions, translated)."""
    d = json.loads((qa.DATA / "xquad" / "xquad.zh.json").read_text(encoding="utf-8"))["data"]
    return {q["id"]: q["question"] for a in d for p in a["paragraphs"] for q in p["qas"]}


def rows_for(engine, arts) -> list[dict]:
    """Per (question, knowledge base): the dense best cosine, its language, and the question
    terms found in the passages of each fusion."""
    import swr.answer.answerable as an
    from swr.answer.answerable_terms import names_a_subject
    from swr.core.lang import has_han as has_cjk

    other_lang = {"en": "zh", "zh": "en"}
    zh_of = xquad_zh()
    rows = []
    for n, a in enumerate(arts, 1):
        letter = a.kb[-1]
        wrong_same = a.kb[:-1] + ("B" if letter == "A" else "A")
        wrong_lang = f"bq-{other_lang[a.lang]}-{letter}"
        asks = [(q, a.kb, True, "") for q in a.questions]
        asks += [(q, wrong_same, False, "same language") for q in a.questions]
        asks += [(q, wrong_lang, False, "other language") for q in a.questions]
        if a.lang == "en":  # the XQuAD-zh translation of a question, against the English article: answerable
            asks += [(zh_of[i], a.kb, True, "") for i in a.ids if i in zh_of]
        for q, kb, label, neg in asks:
            row = {"lang": a.lang, "split": a.split, "q": q, "kb": kb, "label": label, "negative": neg}
            closest, by_fusion, translations = {}, {}, {}
            for fusion in FUSIONS:
                r = engine.retrieve(q, kb, fusion=fusion)
                ps = by_fusion[fusion] = engine.passages(r, 3)
                translations[fusion] = r.translations
                # the other language's passages: their best hit's cosine, the translation's terms in them
                ev = an.translated_evidence(q, r.hits, ps, r.translations, an.grounds(engine, kb, r.named, r.foreign))
                row[f"translated_{fusion}"] = list(ev) if ev else None
                row[f"cover_{fusion}"] = an.coverage(q, ps)
                if "cos" not in row:
                    # the engine's way: the dense candidates of the question's own search
                    # and, beside it, the second dense-only retrieval it replaced (--cosine search)
                    for tag, pool in (("", r.answer_pool), ("_own", r.dense_pool), ("_search", None)):
                        best = an.best_hit(engine, q, kb, r.hits, r.params, pool=pool, foreign=r.foreign,
                                           named=r.named)
                        row["cos" + tag] = best[0] if best else 0.0
                        row["cross" + tag] = bool(best) and has_cjk(q) != has_cjk(best[1])
                        closest[tag] = best[1] if best else ""
                        # across languages: does the question name a document of the passages (swr.retrieve.aliases)?
                        row["named" + tag] = bool(row["cross" + tag] and names_a_subject(engine, q, kb, ps))
            for fusion, ps in by_fusion.items():  # as assess counts it (across languages: the closest's)
                for tag, text in closest.items():
                    row[f"cover_{fusion}{tag}"] = an.evidence_coverage(q, ps, text, row["cross" + tag])
                # the question's codes: those no passage holds, and whether a named document holds them
                codes, missing, _ = an.code_evidence(engine, q, kb, ps)
                row[f"codes_{fusion}"], row[f"missing_{fusion}"] = list(codes), list(missing)
                # across languages: the names of the question's translation its passages write
                row[f"names_{fusion}"] = list(an.translated_names(q, translations[fusion], ps, closest[""])) \
                    if row["cross"] else []
                # the question's Chinese names neither the passages nor their documents write
                row[f"absent_{fusion}"] = list(an.absent_names(engine, q, kb, ps))
            # the question's terms no document of the knowledge base uses
            row["unknown"] = list(an.unknown_terms(engine, q, kb))
            rows.append(row)
        if n % 10 == 0:
            print(f"  {n}/{len(arts)} articles, {len(rows)} rows", file=sys.stderr, flush=True)
    return rows


def decide(r, t, fusion) -> bool:
    return _decision(r, t, fusion)[0]


def _decision(r, t, fusion):
    """(answerable, reason) of one row as the engine decides it (the reason carries its rule id)."""
    import swr.answer.answerable as an

    has_terms = bool(an.question_terms(r["q"]))
    tag = COSINE if "cos" + COSINE in r else ""
    cover = r.get(f"cover_{fusion}{tag}", r[f"cover_{fusion}"])  # older rows: all passages
    return an.decide(r["cos" + tag], cover, r["cross" + tag], t, r.get("named" + tag, False), has_terms,
                     codes=tuple(r.get(f"codes_{fusion}", ())), missing=tuple(r.get(f"missing_{fusion}", ())),
                     names=tuple(r.get(f"names_{fusion}", ())),
                     unknown=tuple(r.get("unknown", ()) if not r["cross" + tag] else ()),
                     n_terms=len(an.question_terms(r["q"])),
                     absent=tuple(r.get(f"absent_{fusion}", ()) if not r["cross" + tag] else ()),
                     translated=tuple(r[f"translated_{fusion}"]) if r.get(f"translated_{fusion}") else None)


def rule_counts(rows, t, fusion) -> list[str]:
    """How often each answerability rule decides, per half and kind of question (bench/common.py)."""
    counts: dict = {}
    for r in sorted(rows, key=lambda r: (r["split"], not r["label"], r["negative"])):
        kind = "answerable" if r["label"] else f"wrong KB, {r['negative']}"
        counts.setdefault(f"{r['split']}: {kind}", Counter()).update(rule_ids([_decision(r, t, fusion)[1]]))
    return rule_table(counts, f"How often each answerability rule decided ({fusion})")


def scores(rows, t, fusion) -> dict:
    tp = sum(1 for r in rows if r["label"] and decide(r, t, fusion))
    fp = sum(1 for r in rows if not r["label"] and decide(r, t, fusion))
    pos = sum(r["label"] for r in rows)
    return {"tp": tp, "fp": fp, "pos": pos, "neg": len(rows) - pos}


def tune(rows, fusion):
    """The thresholds with the best balanced accuracy on ``rows`` (the tuning half)."""
    from swr.core.rules.answerable import AnswerThresholds

    best = None
    for hi in [x / 1000 for x in range(860, 941, 5)]:
        for lo in [x / 1000 for x in range(820, 901, 10)]:
            for c in (0.33, 0.5, 0.66, 0.75, 1.0):  # a third, a half, two thirds, ...
                for x in [v / 1000 for v in range(820, 921, 10)]:
                    if lo > hi:
                        continue
                    t = AnswerThresholds(hi, lo, c, x)
                    s = scores(rows, t, fusion)
                    bal = (s["tp"] / max(1, s["pos"]) + 1 - s["fp"] / max(1, s["neg"])) / 2
                    if best is None or bal > best[0]:
                        best = (bal, t)
    return best[1]


def report(rows, t, label, fusion) -> list[str]:
    out = []
    for part in ("en", "zh", "all"):
        sub = [r for r in rows if part in ("all", r["lang"])]
        s = scores(sub, t, fusion)
        pred = s["tp"] + s["fp"]
        xl = [r for r in sub if r["label"] and has_cjk_q(r) != (r["lang"] == "zh")]
        own = [r for r in sub if r["label"] and has_cjk_q(r) == (r["lang"] == "zh")]
        neg_same = [r for r in sub if r["negative"] == "same language"]
        neg_other = [r for r in sub if r["negative"] == "other language"]
        out.append(f"| {label} | {part} | {qa.rate(s['tp'], pred)} | {qa.rate(s['tp'], s['pos'])} | "
                   f"{qa.rate(sum(decide(r, t, fusion) for r in own), len(own))} | "
                   f"{qa.rate(sum(decide(r, t, fusion) for r in xl), len(xl))} | "
                   f"{qa.rate(sum(decide(r, t, fusion) for r in neg_same), len(neg_same))} | "
                   f"{qa.rate(sum(decide(r, t, fusion) for r in neg_other), len(neg_other))} |")
    return out


def has_cjk_q(r) -> bool:
    from swr.core.lang import has_han as has_cjk

    return has_cjk(r["q"])


FUSIONS = ("dbsf", "rrf")
COSINE = ""  # "": the search's own dense lists; "_own": the question's only; "_search": a second retrieval
HEADER = ["| fusion, thresholds | questions | precision | recall | recall, question in its article's language | "
          "recall, question in the other language | answered, wrong KB same language | "
          "answered, wrong KB other language |", "|---|---|---|---|---|---|---|---|"]


def replay(rows, a, t) -> int:
    global FUSIONS
    FUSIONS = tuple(f for f in a.fusions.split(",") if f"cover_{f}" in rows[0])
    lines = []
    for split, name in (("tune", "dev half"), ("test", "held-out half")):
        lines += [f"\n{name}\n"] + HEADER
        for fusion in FUSIONS:
            lines += report([r for r in rows if r["split"] == split], t, f"{fusion}, swr {tuple(t.to_dict().values())}",
                            fusion)
    test = [r for r in rows if r["split"] == "test"]
    for fusion in FUSIONS:
        if a.tune:
            tuned = tune([r for r in rows if r["split"] == "tune"], fusion)
            lines += report(test, tuned, f"{fusion}, tuned here {tuple(tuned.to_dict().values())}", fusion)
    lines += rule_counts(rows, t, FUSIONS[0])
    print("\n".join(lines))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--articles", type=int, default=None, help="only the first N articles per language")
    ap.add_argument("--fusions", default="dbsf,rrf")
    ap.add_argument("--cosine", choices=["pool", "own", "search"], default="pool",
                    help="the best cosine from the search's own dense lists, the question's and its "
                         "translations' (the engine's way), the question's only, or a second dense-only "
                         "retrieval (the older way)")
    ap.add_argument("--replay", action="store_true", help="re-decide the rows of the last run (no retrieval)")
    a = ap.parse_args()
    import swr.answer.answerable as an
    from swr.core.settings import Settings
    from swr.engine import Engine

    global COSINE
    COSINE = {"pool": "", "own": "_own", "search": "_search"}[a.cosine]
    t0 = time.time()
    if a.replay:
        rows = json.loads((qa.ROOT / "bench" / "out" / "answerable.json").read_text(encoding="utf-8"))["rows"]
        return replay(rows, a, an.thresholds_for("e5"))
    engine = Engine(Settings.from_env())
    arts = qa.articles()
    qa.index(engine, arts)  # all of them: the wrong knowledge bases stay whole
    if a.articles:
        arts = [x for x in arts if x.k < a.articles]
    global FUSIONS
    FUSIONS = tuple(a.fusions.split(","))
    t = an.thresholds_for(engine.embedder.name)
    lines = HEADER[:]
    rows = rows_for(engine, arts)
    dump = {"rows": rows}
    test = [r for r in rows if r["split"] == "test"]
    for fusion in FUSIONS:
        lines += report(test, t, f"{fusion}, swr {tuple(t.to_dict().values())}", fusion)
        if a.tune:
            tuned = tune([r for r in rows if r["split"] == "tune"], fusion)
            lines += report(test, tuned, f"{fusion}, tuned here {tuple(tuned.to_dict().values())}", fusion)
            print(f"{fusion}: tuned on the tuning half: {tuned}", file=sys.stderr)
    lines += rule_counts(rows, t, FUSIONS[0])
    print(f"Answerability on the held-out half ({engine.embedder.name}; {time.time() - t0:.0f} s)\n")
    print("\n".join(lines))
    out = qa.ROOT / "bench" / "out" / "answerable.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(dump, ensure_ascii=False))
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
