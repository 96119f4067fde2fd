"""Follow-up questions: which search question finds the follow-up's answer?

    .venv/bin/python bench/followups.py [--set bench/data/followups.json] [--gguf models/...gguf]

Over the sample manuals (samples/kb), each conversation is one earlier turn (question and a short
answer) and a follow-up that leans on it ("那E2呢？" after "电饭煲显示E4是什么意思？"), with the
sentence(s) that answer the follow-up (gold: file name -> substrings). Four search questions:

- **alone**: the follow-up as typed;
- **prepend**: the previous question, then the follow-up;
- **offline**: :func:`swr.condense.condense` without an LLM (the offline fallback);
- **llm**: :func:`swr.condense.condense` with the local model (the offline fallback when its
  output is unusable: how often is printed, with the refused reply);
- **fused**: both the LLM's and the offline question searched (top 10 each), hits fused by
  reciprocal rank (k=60), top 3 (equal to offline where the LLM's rewrite was refused).

Found = a top-3 hybrid hit's window 1 from a gold file contains a gold substring. Count, rate and
95 % Wilson interval per variant, printed side by side, with every rewritten question.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from intervals import wilson

from swr.condense import condense, embed_similarity
from swr.engine import Engine
from swr.llm_local import DEFAULT_GGUF
from swr.settings import Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent

VARIANTS = ("alone", "prepend", "offline", "llm", "fused")


def found(eng: Engine, query: str | list[str], gold: dict) -> bool:
    """A top-3 hit's window 1 holds a gold sentence; two queries: their hits fused (RRF, k=60)."""
    if isinstance(query, str) or len(set(query)) == 1:
        r = eng.retrieve(query if isinstance(query, str) else query[0], "sample", top_k=3, mode="hybrid")
    else:
        rs = [eng.retrieve(q, "sample", top_k=10, mode="hybrid") for q in query]
        score: dict = {}
        best: dict = {}
        for r in rs:
            for rank, h in enumerate(r.hits, 1):
                key = (h.sentence.doc_id, h.sentence.i)
                score[key] = score.get(key, 0.0) + 1.0 / (60 + rank)
                best.setdefault(key, h)
        r = rs[0]
        r.hits = [best[k] for k in sorted(score, key=score.get, reverse=True)[:3]]
    for p in eng.passages(r, 1):
        if any(g in p.text for g in gold.get(p.source, [])):
            return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default=str(ROOT / "bench" / "data" / "followups.json"))
    ap.add_argument("--gguf", default=str(DEFAULT_GGUF))
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--home", default="bench/out/home_followups")
    a = ap.parse_args()
    convs = json.loads(Path(a.set).read_text(encoding="utf-8"))
    s = Settings.from_env(env={}, home=Path(a.home), llm_gguf="" if a.no_llm else a.gguf)
    eng = Engine(s)
    eng.ensure_sample()
    sim = embed_similarity(eng.embedder.encode_query)
    hits = {v: 0 for v in VARIANTS}
    fell_back = 0
    print("| # | follow-up | " + " | ".join(VARIANTS) + " | offline query | LLM query |")
    print("|---|---|" + "---|" * len(VARIANTS) + "---|---|")
    for n, c in enumerate(convs, 1):
        hist, fu, gold = c["history"], c["followup"], c["gold"]
        prev = next(t["content"] for t in reversed(hist) if t["role"] == "user")
        queries = {"alone": fu, "prepend": f"{prev} {fu}", "offline": condense(fu, hist, similarity=sim).standalone}
        if not a.no_llm:
            cond = condense(fu, hist, llm=eng.answerer, similarity=sim)
            fell_back += cond.method != "llm"
            queries["llm"] = cond.standalone
            queries["fused"] = [cond.standalone, queries["offline"]]  # both searched, hits fused
            raw = (cond.llm_output or "").replace("\n", " ")[:80]
        row = {v: found(eng, q, gold) for v, q in queries.items()}
        for v, ok in row.items():
            hits[v] += ok
        marks = " | ".join(("yes" if row[v] else "no") if v in row else "-" for v in VARIANTS)
        llm_q = queries.get("llm", "-") + ("" if a.no_llm or cond.method == "llm" else f" (refused: “{raw}”)")
        print(f"| {n} | {fu} | {marks} | {queries['offline']} | {llm_q} |")
    total = len(convs)
    print(f"\nFound in the top 3 with window 1, n = {total} conversations:\n")
    print("| variant | found | rate | 95 % CI |")
    print("|---|---|---|---|")
    for v in VARIANTS:
        if v in ("llm", "fused") and a.no_llm:
            continue
        lo, hi = wilson(hits[v], total)
        print(f"| {v} | {hits[v]}/{total} | {hits[v] / total:.2f} | [{lo:.2f}, {hi:.2f}] |")
    if not a.no_llm:
        print(f"\nLLM condense output unusable (offline fallback used) in {fell_back} of {total}.")
    eng.close()


if __name__ == "__main__":
    main()
