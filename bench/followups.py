"""Follow-up questions: which search question finds the follow-up's answer?

    .venv/bin/python bench/followups.py [--set bench/data/followups.json] [--gguf models/...gguf]

Over the sample manuals (samples/kb), each conversation is one earlier turn (question and a short
answer) and a follow-up that leans on it ("那E2呢？" after "电饭煲显示E4是什么意思？"), with the
sentence(s) that answer the follow-up (gold: file name -> substrings). Four search questions:

- **alone**: the follow-up as typed;
- **prepend**: the previous question, then the follow-up;
- **offline**: :func:`swr.condense.condense` without an LLM (the offline fallback);
- **llm**: :func:`swr.condense.condense` with the local model (the offline fallback when its
  output is unusable: how often is printed).

Found = a top-3 hybrid hit's window 1 from a gold file contains a gold substring. Count, rate and
95 % Wilson interval per variant, printed side by side, with every rewritten question.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from swr.condense import condense, embed_similarity
from swr.engine import Engine
from swr.llm_local import DEFAULT_GGUF
from swr.settings import Settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent

VARIANTS = ("alone", "prepend", "offline", "llm")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def found(eng: Engine, query: str, gold: dict) -> bool:
    r = eng.retrieve(query, "sample", top_k=3, mode="hybrid")
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
        row = {v: found(eng, q, gold) for v, q in queries.items()}
        for v, ok in row.items():
            hits[v] += ok
        marks = " | ".join(("yes" if row[v] else "no") if v in row else "-" for v in VARIANTS)
        print(f"| {n} | {fu} | {marks} | {queries['offline']} | {queries.get('llm', '-')} |")
    total = len(convs)
    print(f"\nFound in the top 3 with window 1, n = {total} conversations:\n")
    print("| variant | found | rate | 95 % CI |")
    print("|---|---|---|---|")
    for v in VARIANTS:
        if v == "llm" and a.no_llm:
            continue
        lo, hi = wilson(hits[v], total)
        print(f"| {v} | {hits[v]}/{total} | {hits[v] / total:.2f} | [{lo:.2f}, {hi:.2f}] |")
    if not a.no_llm:
        print(f"\nLLM condense output unusable (offline fallback used) in {fell_back} of {total}.")
    eng.close()


if __name__ == "__main__":
    main()
