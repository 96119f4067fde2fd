"""A quiet question on a reference revision against the code now, measured on one machine: same
questions, same pace, rounds alternated.

    python bench/quiet_then_now.py                  # then = 568897f, 2 rounds each, 100 questions
    python bench/quiet_then_now.py --rounds 3 --questions 60 --kb sample_en

The reference figure (16 ms p50) was taken on an Intel CPU with AMX; on another CPU (an AMD EPYC
without AMX) both the old and the new code are slower or faster, so a figure from another machine is
no floor. Here the reference code is exported from git (``git archive``, into
``bench/out/then-<rev>``) and each round runs in a child process of its own: a fresh ``SWR_HOME``,
that code's default engine and its own bundled sample knowledge base, a warm-up question, then
``--questions`` distinct SQuAD questions (the list ``bench/concurrency.py`` asks), one every
``--interval`` s, each ``Engine.ask(q, kb, llm=False)``. Rounds go then, now, then, now... so that a
drift of the machine's speed falls on both. ``--kb sample_en`` asks a knowledge base of the sample's
English files only (one language: no translation to embed). ``--same-work`` adds a third version to
the rounds: the code now with ``SWR_CROSSLINGUAL=off``, on the same knowledge base: the reference's
work (one list per question, nothing translated) done by the code now, so that what the concurrency
changes cost a quiet question is told apart from what the cross-lingual translation adds.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import common as C

ISSUE_REV = "568897f"  # the reference revision: before the concurrent embedding and cross-lingual search
WORK = C.OUT / "quiet_then_now"

# run in the child, with the code under test first on sys.path; only API both versions have
CHILD = r"""
import json, sys, time
from pathlib import Path
root, home, kb, interval, qfile = sys.argv[1], Path(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
sys.path.insert(0, root)
from swr.engine import SAMPLE_DIR, Engine
from swr.core.settings import Settings
env = {k: v for k, v in __import__("os").environ.items() if k.startswith(("SWR_EMBED", "SWR_CROSSLINGUAL"))}
eng = Engine(Settings.from_env(env=env, secrets_path=home / "none.toml", home=home, sample_kb="sample"))
eng.ensure_sample()
if kb != "sample":
    eng.index_files(kb, sorted(p for p in SAMPLE_DIR.iterdir() if "_en" in p.name))
eng.ask("warm up", kb, llm=False)
info = eng.embedder.info() if hasattr(eng.embedder, "info") else {}
ms = []
nxt = time.perf_counter()
for q in json.loads(Path(qfile).read_text()):
    t0 = time.perf_counter()
    eng.ask(q, kb, llm=False)
    ms.append((time.perf_counter() - t0) * 1000)
    nxt += interval
    time.sleep(max(0.0, nxt - time.perf_counter()))
print(json.dumps({"ms": ms, "runtime": info.get("runtime"), "device": info.get("device")}))
"""


def export(rev: str) -> Path:
    """The tree of ``rev`` under bench/out (once per revision)."""
    dest = WORK / f"then-{rev}"
    if not (dest / "swr" / "engine.py").is_file():
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        tar = subprocess.run(["git", "-C", str(C.ROOT), "archive", rev], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=tar, check=True)
    return dest


def one_round(root: Path, tag: str, args, qfile: Path, env: dict | None = None) -> dict:
    home = WORK / f"home-{tag}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(home), args.kb, str(args.interval), str(qfile)],
                         capture_output=True, text=True, cwd=str(root), env={**os.environ, **(env or {})})
    if out.returncode != 0:
        raise SystemExit(f"{tag}: child failed\n{out.stderr[-3000:]}")
    shutil.rmtree(home, ignore_errors=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--then", default=ISSUE_REV, help="the reference revision (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds per version, alternated")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--kb", default="sample", choices=["sample", "sample_en"])
    ap.add_argument("--same-work", action="store_true",
                    help="also the code now with SWR_CROSSLINGUAL=off (the reference's work) in the rounds")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    qs = C.squad_questions()
    random.Random(0).shuffle(qs)
    qfile = WORK / "questions.json"
    qfile.write_text(json.dumps(qs[: args.questions]))
    then = export(args.then)
    versions = [("then", then, {}), ("now", C.ROOT, {})]
    if args.same_work:
        versions.append(("now-same", C.ROOT, {"SWR_CROSSLINGUAL": "off"}))
    res: dict[str, list] = {tag: [] for tag, _, _ in versions}
    info: dict[str, dict] = {}
    for r in range(args.rounds):
        for tag, root, env in versions:
            print(f"[quiet_then_now] round {r + 1} {tag} ...", file=sys.stderr, flush=True)
            got = one_round(root, tag, args, qfile, env)
            res[tag].append(got["ms"])
            info[tag] = {"runtime": got.get("runtime"), "device": got.get("device")}
    rows = []
    names = {"then": args.then, "now": "working tree", "now-same": "working tree, SWR_CROSSLINGUAL=off"}
    for tag, _, _ in versions:
        ms = [m for rnd in res[tag] for m in rnd]
        rows.append({"row": f"{tag} ({names[tag]}, {info[tag]['runtime']})",
                     "n": len(ms), "p50": C.pct(ms, 50), "p95": C.pct(ms, 95), "max": max(ms),
                     "round p50s": " / ".join(f"{C.pct(rnd, 50):.1f}" for rnd in res[tag])})
    print(f"kb {args.kb}, a question every {args.interval} s, {args.questions} questions x {args.rounds} rounds, "
          f"load {os.getloadavg()[0]:.1f}\n")
    print(C.table(rows, ["row", "n", "p50", "p95", "max", "round p50s"]))
    for row, (tag, _, _) in zip(rows[1:], versions[1:]):
        ratio = row["p50"] / rows[0]["p50"]
        verdict = "holds" if ratio <= 1.0 else "FAILS"
        print(f"quiet p50 {tag} / then: {ratio:.3f} -> {verdict} (no worse than the issue's day)")
    (WORK / "rows.json").write_text(json.dumps({"args": vars(args), "rows": rows, "ms": res}, indent=1))


if __name__ == "__main__":
    main()
