"""The candidate lists of the cross-lingual search, captured per question, for calibrating its fusion.

    python bench/xl_calibrate.py capture --rule hub_weight=0 --out bench/out/xl_lists.json   # BiPaR + XQuAD
    python bench/xl_calibrate.py capture --rule hub_weight=0 --seed 1 --out bench/out/xl_lists_s1.json
    # (the weights are fitted on the centred cosines without the hubness: CrossLingualRules.foreign_weights)
    python bench/xl_calibrate.py fit bench/out/xl_lists.json             # the rules' hit rates offline
    python bench/xl_calibrate.py fit bench/out/xl_lists.json bench/out/xl_lists_s1.json  # fitted on both seeds
    python bench/xl_calibrate.py capture --sets bipar xquad faq faq2 faq3 --out bench/out/xl_lists5.json  # + the FAQs
    python bench/xl_calibrate.py capture --rule other_depth=50 --out bench/out/xl_lists50.json
    python bench/xl_calibrate.py recall bench/out/xl_lists50.json        # cross questions' candidate recall
    python bench/xl_calibrate.py sweep bench/out/xl_lists50.json         # re-fit per other-language depth
    python bench/xl_calibrate.py calibration bench/out/xl_lists5.json    # can the models tell same from cross?

``capture`` asks every question of bench/real_kbs.py's two mixed-language KBs once with
``SWR_CROSSLINGUAL=on`` and keeps the lists :func:`swr.retrieve.crosslingual.fuse` receives (each
sentence's per-list score, cosine, BM25 score, language, document); ``fit`` replays the fusion
rules on them (no store, no model) and prints, per set, the document-level hit@3 (a top-3 hit in
the answer's document: with the default window 3 the answer is then in the passages for nearly
every BiPaR / XQuAD paragraph) of same- and cross-language questions for each setting tried.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import real_kbs

import swr.retrieve.crosslingual as xl
from swr.retrieve import xl_fuse


def capture(args) -> None:
    from dataclasses import replace

    from swr.core.rules.crosslingual import DEFAULT_RULES

    rules = replace(DEFAULT_RULES, **{k: type(getattr(DEFAULT_RULES, k))(v)
                                      for k, v in (x.split("=", 1) for x in args.rule)})
    eng = real_kbs.engine(args.home)
    if args.translator != "dictionary":  # the local model translates (cached on disk: bench/crosslingual.py)
        import crosslingual as xb

        eng.crosslingual.translator = xb.translator(args.translator)
    got: list = []
    real_fuse = xl.fuse
    cur: dict = {}

    def in_window(h) -> bool:  # the answer within the default window (3) of this hit
        if h.sentence.source != cur["q"]["doc"]:
            return False
        keys = [(h.sentence.doc_id, j) for j in range(max(0, h.sentence.i - 3), h.sentence.i + 4)]
        got = eng.fetch_sentences(cur["kb"], keys)
        text = real_kbs.norm("".join(got[k].text for k in keys if k in got))
        return any(real_kbs.norm(a) in text for a in cur["q"]["answers"])

    def recording(lists, top_k, weights=None, bonus=0.0, foreign=frozenset(), exempt=None, *rest, **kw):
        got.append([{"via": via, "subject": bool(rest), "hits": [
            {"src": h.sentence.source, "i": h.sentence.i, "lang": h.sentence.lang, "score": h.score,
             "dense": xl_fuse._cos(h, rules.hub_weight), "sparse": h.sparse_score,
             "wordy": bool(xl._WORDY.search(h.sentence.text)), "win": in_window(h),
             "chars": len(h.sentence.text.strip()), "text": h.sentence.text} for h in hits]}
            for via, hits, *rest in lists])
        return real_fuse(lists, top_k, weights, bonus, foreign, exempt, *rest, **kw)

    xl.fuse = recording
    real_search = xl.search

    def translated(*a, **kw):  # the question's translations, kept with its lists
        hits, plan = real_search(*a, **kw)
        cur["tr"] = plan.translations
        return hits, plan

    xl.search = translated
    out = {}
    sets = {"bipar": lambda: real_kbs.bipar(args.passages, args.seed),
            "xquad": lambda: real_kbs.xquad(args.xquad_paras, args.seed),
            "faq": lambda: real_kbs.faq()[:2],
            "faq2": lambda: real_kbs.faq(real_kbs.FAQ2)[:2],
            "faq3": lambda: real_kbs.faq(real_kbs.FAQ3)[:2],
            "faq4": lambda: real_kbs.faq(real_kbs.FAQ4)[:2],
            "xquadwide": lambda: (lambda d, q: (d + real_kbs.distractors(args.distract, args.seed), q))(
                *real_kbs.xquad(args.xquad_paras, args.seed))}
    for name in args.sets:
        docs, qs = sets[name]()
        name = name if not args.seed else f"{name}_s{args.seed}"
        real_kbs.build(eng, name, docs)
        by = real_kbs.cells(qs, lambda r: [f"{r['kind']} {r['lang']}"])
        picked = [q for k in sorted(by) for q in random.Random(k).sample(by[k], min(args.n, len(by[k])))]
        rows = []
        for q in picked:
            got.clear()
            cur.update(q=q, kb=name, tr=None)
            eng.retrieve(q["q"], name, top_k=3, crosslingual=rules)
            rows.append({**q, "lists": got[-1] if got else [], "translations": dict(cur.get("tr") or {})})
        out[name] = rows
        print(f"[{name}] {len(rows)} questions captured", file=sys.stderr)
        if args.translator != "dictionary":
            xb.save_llm_cache()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    eng.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--home", default=str(real_kbs.ROOT / "bench" / "out" / "real_kbs_home"))
    c.add_argument("--out", default=str(real_kbs.ROOT / "bench" / "out" / "xl_lists.json"))
    c.add_argument("--n", type=int, default=50)
    c.add_argument("--passages", type=int, default=120)
    c.add_argument("--xquad-paras", type=int, default=240)
    c.add_argument("--seed", type=int, default=0, help="the mixed KBs' sample (0: the calibration sample)")
    c.add_argument("--sets", nargs="+", default=["bipar", "xquad"],
                   choices=["bipar", "xquad", "faq", "faq2", "faq3", "faq4", "xquadwide"])
    c.add_argument("--distract", type=int, default=400, help="xquadwide: SQuAD and CMRC paragraphs (each) added")
    c.add_argument("--translator", default="dictionary", choices=["dictionary", "llm05", "llm15"],
                   help="who translates the questions (llm05 / llm15: the local 0.5B / 1.5B GGUF, cached)")
    c.add_argument("--rule", action="append", default=[], help="a CrossLingualRules field=value (repeatable)")
    f = sub.add_parser("fit")
    f.add_argument("lists", nargs="+", help="captured lists (several files: their sets pooled, e.g. both seeds)")
    r = sub.add_parser("recall", help="candidate recall of the cross questions per list and depth")
    r.add_argument("lists", nargs="+")
    w = sub.add_parser("sweep", help="re-fit and replay per depth of the other-language lists")
    w.add_argument("lists", nargs="+")
    e = sub.add_parser("ceiling", help="cross questions' hit@3 of the other language's candidates alone")
    e.add_argument("lists", nargs="+")
    k = sub.add_parser("calibration", help="the models' probabilities against the answers, same vs cross questions")
    k.add_argument("lists", nargs="+")
    for p in (f, w, e):
        p.add_argument("--no-foreign-length", action="store_true", help="fit the foreign model without the length")
    args = ap.parse_args()
    if args.cmd == "capture":
        capture(args)
    else:
        import xl_fit

        xl_fit.FOREIGN_LENGTH = not getattr(args, "no_foreign_length", False)
        data = {}
        for path in args.lists:
            data.update(json.loads(Path(path).read_text(encoding="utf-8")))
        runs = {"fit": xl_fit.report, "recall": xl_fit.recall, "sweep": xl_fit.sweep, "ceiling": xl_fit.ceiling,
                "calibration": xl_fit.calibration}
        runs[args.cmd](data)


if __name__ == "__main__":
    main()
