"""Follow-up questions: which search question finds the follow-up's answer?

    .venv/bin/python bench/followups.py [--set bench/data/followups.json ...] [--gguf models/...gguf | --no-llm]
        [--rows-out FILE] [--no-rows]

Over the sample manuals (samples/kb), each conversation is one or two earlier turns (question and a
short answer) and a follow-up that leans on them ("那E2呢？" after "电饭煲显示E4是什么意思？"), with
the sentence(s) that answer the follow-up (gold: file name -> substrings). Three sets:
``bench/data/followups.json`` (16, **dev**: the condense rules and prompt were tuned on it),
``bench/data/followups_heldout.json`` (20, **held-out**: written before any method was run on it;
looked at since, see bench/README.md section 7) and ``bench/data/followups_heldout2.json`` (16,
written after that, before any run on it, never tuned on). Search questions:

- **alone**: the follow-up as typed;
- **prepend**: the previous question, then the follow-up;
- **offline**: :func:`swr.answer.condense.condense` without an LLM (the offline fallback);
- **llm**: :func:`swr.answer.condense.condense` with the local model (the offline fallback when its
  output is unusable: how often is printed, with the refused reply);
- **fused**: both the LLM's and the offline question searched (top 10 each), hits fused by
  reciprocal rank (k=60), top 3 (equal to offline where the LLM's rewrite was refused or equal).

Found = a top-3 hybrid hit's window 1 from a gold file contains a gold substring. Count, rate and
95 % Wilson interval per variant and set. ``--rows-out`` writes every conversation's questions and
marks (JSON lines); ``--no-rows`` keeps them off stdout (for a held-out set one has not looked at).
The LLM's replies are cached by model and messages (``--cache``), so changing the *check* of its
output re-scores without generating again; a changed prompt generates anew.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

from intervals import wilson

from swr.answer.condense import condense
from swr.answer.llm_local import DEFAULT_GGUF
from swr.answer.rewrite_offline import embed_similarity
from swr.core.settings import Settings
from swr.engine import Engine

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent

VARIANTS = ("alone", "prepend", "offline", "llm", "fused")


class CachedChat:
    """An LLM :class:`swr.answer.rewrite_llm.Chat` whose replies are kept in a JSON file by model and messages."""

    def __init__(self, llm, model: str, path: Path):
        """Wrap ``llm``; ``model`` is part of the key; ``path`` the cache file (created)."""
        self.llm, self.model, self.path = llm, model, path
        self.cache = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        self.calls = self.hits = 0
        self.seconds = 0.0

    def chat(self, messages: list[dict], *, max_tokens: int | None = None,
             temperature: float | None = None) -> str:
        """The cached reply, or a new one from the model (then cached)."""
        key = hashlib.sha256(json.dumps([self.model, messages, max_tokens, temperature], ensure_ascii=False)
                             .encode("utf-8")).hexdigest()
        if key in self.cache:
            self.hits += 1
            return self.cache[key]
        t = time.perf_counter()
        reply = self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature)
        self.seconds += time.perf_counter() - t
        self.calls += 1
        self.cache[key] = reply
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.cache, ensure_ascii=False, indent=0), encoding="utf-8")
        return reply


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


def run_set(eng: Engine, convs: list[dict], sim, llm, show_rows: bool, rows_out, name: str) -> dict:
    """Score every variant over ``convs``; returns hit counts, n and how often the LLM was refused."""
    hits = {v: 0 for v in VARIANTS}
    fell_back = 0
    if show_rows:
        print(f"\n#### {name}\n")
        print("| # | follow-up | " + " | ".join(VARIANTS) + " | offline query | LLM query |")
        print("|---|---|" + "---|" * len(VARIANTS) + "---|---|")
    for n, c in enumerate(convs, 1):
        hist, fu, gold = c["history"], c["followup"], c["gold"]
        prev = next(t["content"] for t in reversed(hist) if t["role"] == "user")
        off = condense(fu, hist, similarity=sim)
        queries = {"alone": fu, "prepend": f"{prev} {fu}", "offline": off.standalone}
        cond = None
        if llm is not None:
            cond = condense(fu, hist, llm=llm, similarity=sim)
            fell_back += cond.method == "offline"
            queries["llm"] = cond.standalone
            queries["fused"] = [cond.standalone, queries["offline"]]  # both searched, hits fused
        row = {v: found(eng, q, gold) for v, q in queries.items()}
        for v, ok in row.items():
            hits[v] += ok
        raw = (cond.llm_output or "").replace("\n", " ")[:80] if cond else ""
        if rows_out is not None:
            rows_out.write(json.dumps({"set": name, "n": n, "kind": c.get("kind"), "followup": fu,
                                       "offline": off.standalone, "offline_method": off.method,
                                       "llm": cond.standalone if cond else None,
                                       "llm_method": cond.method if cond else None, "llm_reply": raw,
                                       "found": row}, ensure_ascii=False) + "\n")
        if show_rows:
            marks = " | ".join(("yes" if row[v] else "no") if v in row else "-" for v in VARIANTS)
            llm_q = "-" if cond is None else cond.standalone + (
                "" if cond.method != "offline" else f" (refused: “{raw}”)")
            print(f"| {n} | {fu} | {marks} | {queries['offline']} | {llm_q} |")
    return {"hits": hits, "n": len(convs), "fell_back": fell_back}


def main() -> None:
    """Run the sets given with one model (or none) and print one table per set."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", help="conversation file (repeatable); default: the dev set")
    ap.add_argument("--gguf", default=str(DEFAULT_GGUF))
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--home", default="bench/out/home_followups")
    ap.add_argument("--cache", default="bench/out/followups_llm_cache.json")
    ap.add_argument("--rows-out", help="write every conversation's result here (JSON lines)")
    ap.add_argument("--no-rows", action="store_true", help="print only the summary tables")
    a = ap.parse_args()
    sets = a.set or [str(ROOT / "bench" / "data" / "followups.json")]
    s = Settings.from_env(env={}, home=Path(a.home), llm_gguf="" if a.no_llm else a.gguf,
                          llm_threads=int(os.environ.get("SWR_LLM_THREADS", "1")))
    eng = Engine(s)
    eng.ensure_sample()
    sim = embed_similarity(eng.embedder.encode_query)
    llm = None if a.no_llm else CachedChat(eng.answerer, Path(a.gguf).name, Path(a.cache))
    rows_out = open(a.rows_out, "w", encoding="utf-8") if a.rows_out else None
    results = {}
    t0 = time.perf_counter()
    for path in sets:
        convs = json.loads(Path(path).read_text(encoding="utf-8"))
        results[Path(path).stem] = run_set(eng, convs, sim, llm, not a.no_rows, rows_out, Path(path).stem)
    if rows_out:
        rows_out.close()
    model = "no LLM" if a.no_llm else Path(a.gguf).name
    for name, r in results.items():
        total = r["n"]
        print(f"\n{name}: found in the top 3 with window 1, n = {total} conversations, {model}:\n")
        print("| variant | found | rate | 95 % CI |")
        print("|---|---|---|---|")
        for v in VARIANTS:
            if v in ("llm", "fused") and llm is None:
                continue
            lo, hi = wilson(r["hits"][v], total)
            print(f"| {v} | {r['hits'][v]}/{total} | {r['hits'][v] / total:.2f} | [{lo:.2f}, {hi:.2f}] |")
        if llm is not None:
            print(f"\nLLM rewrite unusable (offline fallback used) in {r['fell_back']} of {total}.")
    if llm is not None:
        print(f"\nLLM calls: {llm.calls} generated ({llm.seconds:.0f} s), {llm.hits} from the cache; "
              f"wall {time.perf_counter() - t0:.0f} s")
    eng.close()


if __name__ == "__main__":
    main()
