"""Why the cross-lingual search misses: the XQuAD misses of method ``on``, by cause.

    python bench/crosslingual_misses.py --split dev --n 150          # counts by cause
    python bench/crosslingual_misses.py --split dev --n 50 --show    # and every miss

The knowledge base and questions are bench/crosslingual.py's (same seed, same groups, a prefix
of each group's seeded order). For each question whose top 3 holds no answer sentence, the lists
the fusion saw (``swr.retrieve.crosslingual.fuse`` is wrapped, nothing else changes) say why:

- *answer in no candidate list*: no list (the question's own language, the other language
  searched with the question's vectors, the translation's) holds an answer sentence in its pool:
  the translation lost it (a wrong sense, a name dropped) or dense and BM25 both missed;
- *a no-word sentence in the top 3* ("。" scored close to every question by e5);
- *beaten by sentences of the answer's language / of the other language only / of both*: an
  answer sentence was in a pool, and these were fused above it.

Use the dev half to look at (``--show``): the test half is for the final figures only.
"""
from __future__ import annotations

import argparse
import collections
import copy
import random

import crosslingual as B

import swr.retrieve.crosslingual as X
from swr.core.settings import Settings
from swr.engine import Engine


def _gold(q: dict, source: str, text: str) -> bool:
    return any(B.norm(a) in B.norm(text) for a in q["gold"].get(source, []))


def cause(q: dict, lists: list[tuple], deep: list) -> str:
    """The cause of one miss (see the module docstring). ``lists``: what fuse got; ``deep``: its
    fused ranking 30 deep."""
    pooled = [h for _, hits, *_ in lists for h in hits if _gold(q, h.sentence.source, h.sentence.text)]
    if not pooled:
        return "answer in no candidate list"
    top = deep[:3]
    if any(not X._WORDY.search(h.sentence.text) for h in top):
        return "a no-word sentence in the top 3"
    lang = pooled[0].sentence.lang
    same = [h.sentence.lang == lang for h in top]
    if all(same):
        return "beaten by sentences of the answer's language"
    return "beaten by sentences of the other language only" if not any(same) else "beaten by both languages"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", default=str(B.ROOT / "bench" / "out" / "xl_home"))
    ap.add_argument("--split", default="dev", choices=["dev", "test"])
    ap.add_argument("--n", type=int, default=50, help="questions per group (zh->en, en->zh, same zh, same en)")
    ap.add_argument("--method", default="on", help="a bench/crosslingual.py method (on, llm15, ...)")
    ap.add_argument("--show", action="store_true", help="print every miss: question, translation, top 3")
    args = ap.parse_args()
    eng = Engine(Settings.from_env(home=args.home, collection="xl", sample_kb=""))
    docs, qs = B.xquad_corpus(0)
    eng.index_files("xquad", [(n, t.encode()) for n, t in docs])
    by: dict = {}
    for q in qs:
        by.setdefault((q["split"], q["kind"] if q["kind"] != "same" else f"same {q['qlang']}"), []).append(q)
    picked = [q for k in sorted(by) if k[0] == args.split
              for q in random.Random(f"0-{k[0]}-{k[1]}").sample(by[k], len(by[k]))[:args.n]]
    seen: dict = {}
    fuse = X.fuse

    def watch(lists, top_k, weights=None, bonus=0.0):
        seen["lists"] = lists
        seen["deep"] = fuse(copy.deepcopy(lists), 30, weights, bonus)
        return fuse(lists, top_k, weights, bonus)

    X.fuse = watch
    B.set_method(eng, args.method)
    counts: collections.Counter = collections.Counter()
    for q in picked:
        r = eng.retrieve(q["q"], "xquad", top_k=3)
        if any(_gold(q, h.sentence.source, h.sentence.text) for h in r.hits):
            continue
        side = "same" if q["kind"] == "same" else "cross"
        why = cause(q, seen["lists"], seen["deep"])
        counts[(side, why)] += 1
        if args.show:
            plan = eng.crosslingual.last
            print(f"[{q['kind']} {q['qlang']}] {q['q']} | answer {q['answers'][:1]} | translation "
                  f"{plan.translations} | {why}")
            for h in seen["deep"][:3]:
                print(f"    {h.score:.3f} {h.via} {h.sentence.source} {h.sentence.text[:90]!r}")
    print(f"{args.split} half, {len(picked)} questions ({args.n} a group), method {args.method}: misses by cause")
    for (side, why), k in sorted(counts.items()):
        print(f"  {side:5s} {k:3d}  {why}")
    eng.close()


if __name__ == "__main__":
    main()
