"""End to end with a real local model: does the written answer contain a gold answer?

    .venv/bin/python bench/answers_e2e.py --per-set 25 [--gguf models/...gguf] [--threads 1]
    .venv/bin/python bench/answers_e2e.py --summarize      # tables from the rows written so far

Four shared sets (CMRC 2018 dev and XQuAD zh for Chinese, SQuAD v1.1 dev and XQuAD en for
English): the first ``--articles`` articles of each become one knowledge base, ``--per-set``
questions are sampled from them (seeded). Every question is answered twice by the same model,
from two contexts cut to the same token budget (``--budget``, cl100k tokens of the numbered block
the LLM sees):

- **windows**: swr's sentence windows (hybrid, top 5, window 1), leading passages within budget;
- **chunks**: the chunk baseline of ``swr.evaluate.chunks`` (256-token chunks, overlap 20, hybrid, top 5),
  leading chunks within the same budget.

A question is a *hit* when the answer, normalised as in ``swr.evaluate`` (and lower-cased),
contains one of its gold answers. Rates carry n and a 95 % Wilson interval. Timings: time to the
first streamed token and to the full answer (p50), measured on a machine shared with other jobs
(they are upper bounds). Rows are appended to ``bench/out/answers_e2e.jsonl`` as they come, so a
run can be stopped and summarised; ``--fresh`` starts over.

Each answer is checked sentence by sentence against the passages it was written from
(``swr.verify.check.check_answer``): the share of answer sentences it flags and of answers it rejects are
reported. Rows written before the check existed are checked when the run starts (``rechecked``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from intervals import wilson

from swr.answer.llm_local import DEFAULT_GGUF
from swr.answer.prompt import context_text
from swr.core.settings import Settings
from swr.core.tokens import count_tokens
from swr.engine import Engine
from swr.evaluate import normalize
from swr.evaluate.chunks import chunk_passages, ensure_chunks
from swr.evaluate.questions import load_squad
from swr.verify.check import check_answer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent

DATA = Path(os.environ.get("SWR_SHARED_DATA") or (ROOT.parent / "shared" / "data"
                                                    if (ROOT.parent / "shared").is_dir() else "/work/shared/data"))
SETS = {  # name -> (language, file)
    "cmrc2018": ("zh", DATA / "cmrc2018" / "cmrc2018_dev.json"),
    "xquad_zh": ("zh", DATA / "xquad" / "xquad.zh.json"),
    "squad": ("en", DATA / "squad_v1.1" / "dev-v1.1.json"),
    "xquad_en": ("en", DATA / "xquad" / "xquad.en.json"),
}
OUT = ROOT / "bench" / "out" / "answers_e2e.jsonl"
CHUNK, OVERLAP, TOP_K, WINDOW = 256, 20, 5, 1




def within(passages: list, budget: int) -> list:
    """The leading passages whose numbered context block fits ``budget`` tokens (at least one)."""
    kept: list = []
    for p in passages:
        if kept and count_tokens(context_text(kept + [p])) > budget:
            break
        kept.append(p)
    return kept


def hit(answer: str, golds: list[str]) -> bool:
    a = normalize(answer).lower()
    return any(normalize(g).lower() in a for g in golds if g.strip())


def context(eng: Engine, question: str, kb: str, method: str, budget: int) -> list:
    """The passages the model sees: windows (hybrid top 5, window 1) or chunks, within ``budget``."""
    r = eng.retrieve(question, kb, top_k=TOP_K, mode="hybrid")
    return within(eng.passages(r, WINDOW) if method == "windows" else chunk_passages(r.hits), budget)


def checked(eng: Engine, question: str, answer: str, passages: list) -> dict:
    """The answer check's figures for one answer: sentences, flagged (not supported or a wrong
    citation), contradicted, and the answer's status."""
    res = check_answer(eng, question, answer, passages)
    return {"sentences": len(res.sentences), "flagged": len(res.flagged),
            "contradicted": sum(x.verdict == "contradicted" for x in res.sentences), "status": res.status}


def recheck(eng: Engine, queues: dict, budget: int, every: bool = False) -> None:
    """Rows written before the answer check existed (``every``: all rows, after a change of the
    check) get its figures now, from the same contexts rebuilt by the same retrieval (marked
    ``rechecked``)."""
    if not OUT.exists():
        return
    rows = [json.loads(x) for x in OUT.read_text(encoding="utf-8").splitlines() if x.strip()]
    todo = [r for r in rows if (every or "flagged" not in r) and r["answer"] and not r.get("error")
            and r["set"] in queues]
    for r in todo:
        _, kb, ckb, _ = queues[r["set"]]
        passages = context(eng, r["question"], kb if r["method"] == "windows" else ckb, r["method"], budget)
        r.update(checked(eng, r["question"], r["answer"], passages), rechecked=True)
    if todo:
        OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"checked {len(todo)} earlier answers", file=sys.stderr)


def run(a) -> None:
    gguf = a.gguf or str(DEFAULT_GGUF)
    s = Settings.from_env(env={}, home=Path(a.home), sample_kb="", llm_gguf=gguf, llm_threads=a.threads)
    eng = Engine(s)
    eng.answerer.config.max_tokens = a.max_tokens
    done = set()
    if OUT.exists() and not a.fresh:
        done = {(r["set"], r["id"], r["method"]) for r in map(json.loads, OUT.read_text().splitlines()) if r}
    elif OUT.exists():
        OUT.unlink()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    queues = {}
    for name, (lang, path) in SETS.items():
        if a.sets and name not in a.sets:
            continue
        docs, qs = load_squad(path, max_articles=a.articles)
        kb = f"e2e_{name}"
        if kb not in eng.store.kbs():
            eng.create_kb(kb)
        have = {d.source for d in eng.docs(kb)}
        tmp = Path(a.home) / "docs" / name
        tmp.mkdir(parents=True, exist_ok=True)
        files = []
        for fname, text in docs:
            if fname not in have:
                (tmp / fname).write_text(text, encoding="utf-8")
                files.append(tmp / fname)
        if files:
            eng.index_files(kb, files)
        ckb = ensure_chunks(eng, kb, CHUNK, OVERLAP)
        random.Random(0).shuffle(qs)
        queues[name] = (lang, kb, ckb, qs[:a.per_set])
    recheck(eng, queues, a.budget, every=a.recheck)
    if a.recheck:
        eng.close()
        return
    t_load = time.perf_counter()
    eng.answerer.local_server().start()
    print(f"model loaded in {time.perf_counter() - t_load:.1f} s", file=sys.stderr)
    with OUT.open("a", encoding="utf-8") as out:
        for i in range(a.per_set):  # round robin over the sets: a stopped run stays balanced
            for name, (lang, kb, ckb, qs) in queues.items():
                if i >= len(qs):
                    continue
                q = qs[i]
                for method in ("windows", "chunks"):
                    if (name, q.id, method) in done:
                        continue
                    passages = context(eng, q.question, kb if method == "windows" else ckb, method, a.budget)
                    ctx_hit = hit(" ".join(p.text for p in passages), q.answers)
                    t0 = time.perf_counter()
                    first = None
                    parts = []
                    error = None
                    try:
                        for delta in eng.answerer.stream(q.question, passages):
                            if first is None:
                                first = time.perf_counter() - t0
                            parts.append(delta)
                    except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                        error = str(exc)[:200]
                    total = time.perf_counter() - t0
                    answer = "".join(parts)
                    row = {"set": name, "lang": lang, "id": q.id, "method": method, "question": q.question,
                           "golds": q.answers[:5], "answer": answer, "hit": hit(answer, q.answers),
                           "context_hit": ctx_hit, "context_tokens": count_tokens(context_text(passages)),
                           "passages": len(passages), "ttft_s": first, "total_s": total, "error": error}
                    if answer and not error:
                        row.update(checked(eng, q.question, answer, passages))
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                    print(f"{name} {i} {method}: hit={row['hit']} ttft={first or 0:.1f}s total={total:.1f}s",
                          file=sys.stderr)
    eng.close()


def summarize() -> str:
    rows = [json.loads(x) for x in OUT.read_text(encoding="utf-8").splitlines() if x.strip()]
    # only questions answered by both methods, so the two columns compare the same questions
    both = {}
    for r in rows:
        both.setdefault((r["set"], r["id"]), {})[r["method"]] = r
    pairs = [v for v in both.values() if len(v) == 2]
    has_check = any("flagged" in r for r in rows)
    lines = ["| language | sets | n | method | answer contains gold (95 % CI) | context contains gold | "
             "context tokens (mean) | p50 first token s | p50 full answer s |"
             + (" answer sentences flagged (95 % CI) | answers rejected |" if has_check else ""),
             "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if has_check else "")]
    for lang in ("zh", "en"):
        group = [p for p in pairs if p["windows"]["lang"] == lang]
        sets = ", ".join(sorted({p["windows"]["set"] for p in group}))
        for method in ("windows", "chunks"):
            rs = [p[method] for p in group]
            n = len(rs)
            if not n:
                continue
            k = sum(r["hit"] for r in rs)
            lo, hi = wilson(k, n)
            ck = sum(r["context_hit"] for r in rs)
            ttft = [r["ttft_s"] for r in rs if r["ttft_s"] is not None]
            line = (f"| {lang} | {sets} | {n} | {method} | {k}/{n} = {k / n:.2f} [{lo:.2f}, {hi:.2f}] | "
                    f"{ck}/{n} = {ck / n:.2f} | {statistics.mean(r['context_tokens'] for r in rs):.0f} | "
                    f"{statistics.median(ttft) if ttft else float('nan'):.1f} | "
                    f"{statistics.median(r['total_s'] for r in rs):.1f} |")
            if has_check:
                sn = sum(r.get("sentences", 0) for r in rs)
                fl = sum(r.get("flagged", 0) for r in rs)
                flo, fhi = wilson(fl, sn)
                rj = sum(r.get("status") == "rejected" for r in rs)
                line += f" {fl}/{sn} = {fl / max(sn, 1):.2f} [{flo:.2f}, {fhi:.2f}] | {rj}/{n} = {rj / n:.2f} |"
            lines.append(line)
    errors = sum(1 for r in rows if r.get("error"))
    re_n = sum(1 for p in pairs for r in p.values() if r.get("rechecked"))
    lines.append(f"\n{len(pairs)} questions answered by both methods; {errors} LLM errors; "
                 f"{re_n} answers checked after they were written (rechecked).")
    if has_check:  # does the check tell right answers from wrong ones?
        rs = [r for p in pairs for r in p.values() if "flagged" in r and r.get("sentences")]
        for label, group in (("contain a gold answer", [r for r in rs if r["hit"]]),
                             ("contain no gold answer", [r for r in rs if not r["hit"]])):
            sn, fl = sum(r["sentences"] for r in group), sum(r["flagged"] for r in group)
            rj = sum(r.get("status") == "rejected" for r in group)
            lines.append(f"Answers that {label}: {len(group)}; sentences flagged {fl}/{sn} = {fl / max(sn, 1):.2f}; "
                         f"answers rejected {rj}/{len(group)} = {rj / max(len(group), 1):.2f}.")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-set", type=int, default=25)
    ap.add_argument("--articles", type=int, default=4)
    ap.add_argument("--budget", type=int, default=600)
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--gguf", default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--home", default="bench/out/home_e2e")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--summarize", action="store_true")
    ap.add_argument("--sets", nargs="*", choices=sorted(SETS), help="only these sets (default: all four)")
    ap.add_argument("--recheck", action="store_true", help="check every written answer again, answer nothing")
    a = ap.parse_args()
    if not a.summarize:
        run(a)
    print(summarize())


if __name__ == "__main__":
    main()
