"""bench/real_kbs.py's windows part: :func:`swr.evaluate.sweep` (fixed, section and budget windows
against chunks) on one set, the best of each side under each budget, and where the best window's
misses are."""
from __future__ import annotations

import sys
import time
from collections import Counter

from intervals import wilson
from real_data import build


def part_windows(eng, name: str, docs, questions, lines: list[str], store: dict, budgets=(300, 600, 1200)) -> None:
    from window_modes import best, cfg_label

    from swr.evaluate import sweep

    if docs:
        build(eng, name, docs)
    eng.crosslingual.enabled = True
    t0 = time.perf_counter()
    rows = sweep(eng, name, questions, windows=(0, 1, 2, 3, 5), top_ks=(1, 2, 3, 5, 10), modes=("hybrid",),
                 chunk_sizes=(64, 128, 256, 512), window_modes=("fixed", "section", "budget"), budgets=budgets,
                 details=True)
    print(f"[{name}] sweep {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    store[f"windows_{name}"] = [r.to_dict() for r in rows]
    lines += [f"\n### Windows vs chunks: {name} ({len(questions)} questions), best configuration under each budget", "",
              "| budget | best window | best chunks | fixed | section | budget |", "|---|---|---|---|---|---|"]
    for b in budgets:
        cell = []
        for sub in ([r for r in rows if r.config.method == "window"], [r for r in rows if r.config.method == "chunks"],
                    *[[r for r in rows if r.config.method == "window" and r.config.window_mode == m]
                      for m in ("fixed", "section", "budget")]):
            r = best(sub, sub[0].config.method, b) if sub else None
            if r is None:
                cell.append("nothing fits")
                continue
            k = sum(bool(o["hit"]) for o in r.outcomes)
            lo, hi = wilson(k, len(r.outcomes))
            cell.append(f"{k / len(r.outcomes):.3f} [{lo:.2f}, {hi:.2f}] {r.context_chars:.0f}ch ({cfg_label(r)})")
        lines.append(f"| {b} | " + " | ".join(cell) + " |")
    lines += ["", "Where the best window's misses are (its configuration at each budget, re-run): the hits are in "
              "another document; in the answer's document but none inside the answer; or a hit is inside the "
              "answer and the window cut it.", "",
              "| budget | config | misses | another document | same document, not the answer | answer cut |",
              "|---|---|---|---|---|---|"]
    for b in budgets:
        sub = [r for r in rows if r.config.method == "window"]
        r = best(sub, "window", b) if sub else None
        if r is not None:
            kinds = miss_kinds(eng, name, questions, r.config)
            lines.append(f"| {b} | {cfg_label(r)} | {sum(kinds.values())} | {kinds['document']} | {kinds['elsewhere']} "
                         f"| {kinds['cut']} |")


def miss_kinds(eng, kb: str, questions, cfg) -> Counter:
    """Each miss of one window configuration by kind: ``document`` (no passage of the question's
    document, when the question names one), ``elsewhere`` (no hit sentence inside the answer), ``cut``
    (a hit inside the answer, the window did not carry all of it)."""
    from swr.evaluate.metrics import normalize

    out = Counter({"document": 0, "elsewhere": 0, "cut": 0})
    for q in questions:
        answers = [normalize(a) for a in q.answers]
        found = eng.retrieve(q.question, kb, top_k=cfg.top_k, mode=cfg.mode)
        ps = eng.passages(found, cfg.window_size or 0, window_mode=cfg.window_mode, budget_chars=cfg.budget_chars)
        if any(a in normalize(p.text) for p in ps for a in answers):
            continue
        if q.source and not any(p.source == q.source for p in ps):
            out["document"] += 1
        elif any(len(t) > 3 and any(t in a for a in answers) for h in found.hits
                 for t in [normalize(h.sentence.text)]):
            out["cut"] += 1
        else:
            out["elsewhere"] += 1
    return out
