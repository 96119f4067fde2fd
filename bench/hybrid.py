"""Dense vs sparse vs hybrid on SQuAD-format sets, side by side, and the two BM25 tokenizers.

    python bench/hybrid.py                      # CMRC 2018 dev (zh) and SQuAD v1.1 dev (en)
    python bench/hybrid.py --max-questions 300 --sparse jieba qdrant

Every article becomes one document; all questions run against the whole corpus. A question is a
hit at k when one of its answers occurs (whitespace-normalised) in the top-k hit sentences
(hit@k), and "ctx@3/w1" when it occurs in the context sent to the LLM at top_k 3, window 1.
Embeddings are cached on disk (bench/out/home/cache), so a second run embeds nothing.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from swr.core.settings import Settings  # noqa: E402
from swr.engine import Engine  # noqa: E402
from swr.evaluate.questions import load_squad  # noqa: E402

SETS = {"cmrc2018": ROOT.parent / "shared/data/cmrc2018/cmrc2018_dev.json",
        "squad": ROOT.parent / "shared/data/squad_v1.1/dev-v1.1.json"}
KS = (1, 3, 5, 10)


def norm(s: str) -> str:
    return "".join(s.split()).lower()


def run_set(name: str, path: Path, sparse: str, args) -> list[dict]:
    s = Settings.from_env(home=args.home, collection=f"bench_{sparse}", sparse=sparse, sample_kb="")
    eng = Engine(s)
    eng.sparse.query_precise = args.zh_query == "precise"
    docs, qs = load_squad(path, max_articles=args.max_articles)
    t0 = time.perf_counter()
    res = eng.index_files(name, [(n, t.encode("utf-8")) for n, t in docs],
                          progress=None)
    n_sent = sum(r.sentences for r in res)
    print(f"[{name}/{sparse}] {len(docs)} articles, {n_sent} sentences, indexed in "
          f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
    random.Random(0).shuffle(qs)
    qs = qs[:args.max_questions]
    rows = []
    for mode in args.modes:
        hit = {k: 0 for k in KS}
        ctx = 0
        lat = []
        for q in qs:
            t = time.perf_counter()
            r = eng.retrieve(q.question, name, top_k=max(KS), mode=mode)
            lat.append((time.perf_counter() - t) * 1000)
            answers = [norm(a) for a in q.answers]
            first = next((rank for rank, h in enumerate(r.hits, 1)
                          if any(a in norm(h.sentence.text) for a in answers)), None)
            for k in KS:
                hit[k] += first is not None and first <= k
            r.hits = r.hits[:3]
            text = norm(" ".join(p.text for p in eng.passages(r, 1)))
            ctx += any(a in text for a in answers)
        lat.sort()
        tok = f"{sparse}/{args.zh_query}" if sparse == "jieba" else sparse
        rows.append({"set": name, "sparse_tokenizer": tok, "mode": mode, "questions": len(qs),
                     **{f"hit@{k}": round(hit[k] / len(qs), 3) for k in KS},
                     "ctx@3/w1": round(ctx / len(qs), 3), "p50_ms": round(lat[len(lat) // 2], 1)})
        print("row", json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)
    eng.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--sparse", nargs="+", default=["jieba"], choices=["jieba", "qdrant"])
    ap.add_argument("--max-questions", type=int, default=1000)
    ap.add_argument("--max-articles", type=int, default=None)
    ap.add_argument("--home", default=str(ROOT / "bench" / "out" / "home"))
    ap.add_argument("--zh-query", choices=["precise", "search"], default="precise",
                    help="jieba mode for Chinese questions (documents always use search mode)")
    ap.add_argument("--modes", nargs="+", default=["dense", "sparse", "hybrid"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [row for name in args.sets for sp in args.sparse for row in run_set(name, SETS[name], sp, args)]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    cols = ["set", "sparse_tokenizer", "mode", "questions", *[f"hit@{k}" for k in KS], "ctx@3/w1", "p50_ms"]
    print(" | ".join(cols))
    print(" | ".join("---" for _ in cols))
    for r in rows:
        print(" | ".join(str(r[c]) for c in cols))


if __name__ == "__main__":
    main()
