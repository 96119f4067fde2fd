"""Tune's sweep on a mixed-language knowledge base: each top k searched as the chat ranks it (the
default), against every top k read as a prefix of one search, side by side in one run (seconds and
hit rate per top k). Cross-lingual search adds places beside the top k it is given (the plain
search's top k and the other language's best, CrossLingualRules.other_places), so the prefixes can
report a top k the chat does not give.

    python bench/sweep_topk.py [--home H] [--rounds 2]

The bundled sample knowledge base (indexed into --home when missing) and its golden questions,
hybrid, fixed window 3; each variant runs --rounds times, alternating (the first warms the caches).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import swr.engine as engine_mod  # noqa: E402
import swr.retrieve.search as search_mod  # noqa: E402
from swr.core.settings import Settings  # noqa: E402
from swr.engine import Engine  # noqa: E402
from swr.evaluate import load_set, sweep  # noqa: E402

TOP_KS = (1, 2, 3, 5, 10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", default="")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="swr_sweep_topk_"))
    eng = Engine(Settings.from_env(env={}, secrets_path=home / "none.toml", home=home))
    eng.ensure_sample()
    kb = eng.settings.sample_kb
    qs = load_set(ROOT / "samples" / "golden.csv")[1]
    exact = search_mod.search

    def as_prefixes(*a, **k):
        return replace(exact(*a, **k), prefix_exact=True)
    print(f"{len(qs)} golden questions of the sample knowledge base, hybrid, fixed window 3\n")
    print("| sweep | round | seconds | " + " | ".join(f"hit@{k}" for k in TOP_KS) + " |")
    print("|---|---|---|" + "---|" * len(TOP_KS))
    for r in range(1, args.rounds + 1):
        for name, fn in (("prefixes of one search", as_prefixes), ("each top k searched (default)", exact)):
            engine_mod.search = fn
            t = time.perf_counter()
            rows = sweep(eng, kb, qs, windows=[3], top_ks=list(TOP_KS), modes=["hybrid"], chunk_sizes=[],
                         window_modes=["fixed"], budgets=[])
            el = time.perf_counter() - t
            hit = {row.config.top_k: row.hit_rate for row in rows}
            print(f"| {name} | {r} | {el:.1f} | " + " | ".join(f"{hit[k]:.3f}" for k in TOP_KS) + " |")
    engine_mod.search = exact
    eng.close()


if __name__ == "__main__":
    main()
