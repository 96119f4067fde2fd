"""Golden-question sweeps: sentence windows vs plain chunks, measured on the user's own data.

:func:`sweep` runs every question once per mode at the largest top_k and derives every
(window_size, top_k) configuration from prefixes of that one hit list (the store guarantees the
top-k list is a prefix of the top-K list), so a grid of 5 windows x 5 top_ks costs one search
per question and mode (one per top_k where a cross-lingual fusion over several languages ranked
it: its placements depend on the top k it fills, and each top_k is measured as the chat ranks it),
and no embedding: windows never embed, the question's vector is cached in
memory and passage vectors on disk.

The chunk baseline (:mod:`swr.evaluate.chunks`) runs in the same loop on a hidden chunk knowledge base
with the same embedder, store and metrics. Every search starts from the same
:class:`swr.core.params.RetrievalParams` as the chat (``params``, default the engine's), changing only
the swept fields.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from swr.core.errors import BadRequest, ReindexNeeded
from swr.core.params import (
    MAX_BUDGET_CHARS,
    MAX_TOP_K,
    MAX_WINDOW,
    MIN_BUDGET_CHARS,
    SWEEP_BUDGETS,
    SWEEP_MODES,
    SWEEP_TOP_KS,
    SWEEP_WINDOW_MODES,
    SWEEP_WINDOWS,
    WINDOW_MODES,
    RetrievalParams,
)
from swr.evaluate.chunks import chunk_passages, ensure_chunks
from swr.evaluate.metrics import METHODS, Config, Outcome, Row, judge, make_row, normalize
from swr.evaluate.questions import Question

DEFAULT_WINDOWS = SWEEP_WINDOWS
DEFAULT_TOP_KS = SWEEP_TOP_KS
DEFAULT_MODES = SWEEP_MODES
DEFAULT_BUDGETS = SWEEP_BUDGETS
DEFAULT_WINDOW_MODES = SWEEP_WINDOW_MODES
DEFAULT_CHUNK_SIZES = (256, 512)
DEFAULT_CHUNK_OVERLAP = 20
QUERY_BLOCK = 64  # questions embedded ahead of their searches (fits the embedder's query LRU)

Progress = Callable[[dict], None]
Outcomes = dict[Config, list[tuple[Question, Outcome]]]


def _ints(xs: Iterable[int], what: str, lo: int, hi: int) -> list[int]:
    out = sorted({int(x) for x in xs})
    if any(not lo <= x <= hi for x in out):
        raise BadRequest(f"Every {what} must be between {lo} and {hi}.")
    return out


def grid_problem(windows, window_modes, budgets, top_ks, modes) -> str | None:
    """Why a sweep grid measures nothing (None when it measures something): the check :func:`sweep`
    makes, for a page to make before it starts (and counts) a run."""
    shaped = bool(windows) and "fixed" in window_modes or bool(budgets) and bool(set(window_modes) - {"fixed"})
    if not shaped or not top_ks or not modes:
        return ("A sweep needs at least one window size (or a section or budget window mode with a budget), "
                "one top_k and one mode.")
    return None


def sweep(engine, kb: str, questions: Sequence[Question], windows: Iterable[int] = DEFAULT_WINDOWS,
          top_ks: Iterable[int] = DEFAULT_TOP_KS, modes: Iterable[str] = DEFAULT_MODES,
          chunk_sizes: Iterable[int] = DEFAULT_CHUNK_SIZES, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
          progress: Progress | None = None, details: bool = False, params: RetrievalParams | None = None,
          window_modes: Iterable[str] = DEFAULT_WINDOW_MODES, budgets: Iterable[int] = DEFAULT_BUDGETS,
          **knobs) -> list[Row]:
    """Metrics of every configuration: windows x top_ks x modes, plus chunk_sizes x top_ks x modes.

    ``window_modes``: ``fixed`` sweeps ``windows``; ``section`` and ``budget`` sweep ``budgets``
    (each window's context budget in characters), at every top_k, from the same hit lists.

    One search per question, mode and method at ``max(top_ks)``; every smaller top_k a prefix of it
    (or its own search: ``Retrieval.prefix_exact``). ``params`` (default ``engine.default_params()``)
    with ``knobs`` (:class:`~swr.core.params.RetrievalParams` fields: fusion, dense_k, ...) are the knobs of
    every search besides the swept mode and top_k. ``details=True`` keeps every question's
    outcome in ``Row.outcomes`` (for the app's drill-down).
    """
    windows = _ints(windows, "window size", 0, MAX_WINDOW)
    top_ks = _ints(top_ks, "top_k", 1, MAX_TOP_K)
    chunk_sizes = _ints(chunk_sizes, "chunk size", 16, 100_000)
    modes = list(dict.fromkeys(modes))
    window_modes = list(dict.fromkeys(window_modes))
    if any(m not in WINDOW_MODES for m in window_modes):
        raise BadRequest(f"Unknown window mode(s) {', '.join(window_modes)}: use {', '.join(WINDOW_MODES)}.")
    budgets = _ints(budgets, "budget", MIN_BUDGET_CHARS, MAX_BUDGET_CHARS) if set(window_modes) - {"fixed"} else []
    if "fixed" not in window_modes:
        windows = []  # fixed windows only: section and budget windows sweep the budgets
    problem = grid_problem(windows, window_modes, budgets, top_ks, modes)
    if problem:
        raise BadRequest(problem)
    if chunk_sizes and not 0 <= chunk_overlap < min(chunk_sizes):
        raise BadRequest("The chunk overlap must be at least 0 and smaller than every chunk size.")
    base = (params or engine.default_params()).with_(**knobs).validate()
    engine.docs(kb)  # NotFound with the known names
    questions = [q for q in questions if q.question.strip() and (q.answers or q.evidence)]
    if not questions:
        raise BadRequest("No usable question: each needs a question and an expected answer or evidence.")
    chunk_kbs = {size: ensure_chunks(engine, kb, size, chunk_overlap, progress) for size in chunk_sizes}
    outs: Outcomes = {}
    t_start = time.perf_counter()
    for n, q in enumerate(questions, 1):
        if (n - 1) % QUERY_BLOCK == 0:
            # embed the next block of questions first (each once; every search reuses the vector),
            # so no search is timed right after a forward pass still holding the CPU
            for b in questions[n - 1:n - 1 + QUERY_BLOCK]:
                engine.embedder.encode_query(b.question.strip())
        for mode in modes:
            _measure(engine, kb, q, base.with_(mode=mode, top_k=max(top_ks)), windows, top_ks, chunk_kbs,
                     chunk_overlap, outs, window_modes, budgets)
        if progress:
            el = time.perf_counter() - t_start
            progress({"stage": "questions", "done": n, "total": len(questions),
                      "questions_per_s": n / el if el > 0 else None})
    order = {m: r for r, m in enumerate(modes)}
    rows = [make_row(cfg, o, details) for cfg, o in outs.items()]
    wm = {m: r for r, m in enumerate(WINDOW_MODES)}
    rows.sort(key=lambda r: (METHODS.index(r.config.method), order[r.config.mode], r.config.chunk_size or 0,
                             wm.get(r.config.window_mode, 0), r.config.budget_chars or 0,
                             r.config.window_size or 0, r.config.top_k))
    return rows


def _at(engine, full, question: str, kb: str, rp: RetrievalParams, k: int):
    """The retrieval at top_k ``k`` from ``full`` (searched at ``rp.top_k``): its prefix, or a search of its
    own where a cross-lingual fusion placed sentences by the top k it filled (``Retrieval.prefix_exact``)."""
    return full.prefix(k) if full.prefix_exact or k == rp.top_k else engine.retrieve(question, kb, rp, top_k=k)


def _measure(engine, kb: str, q: Question, rp: RetrievalParams, windows: list[int], top_ks: list[int],
             chunk_kbs: dict[int, str], chunk_overlap: int, outs: Outcomes,
             window_modes: Sequence[str] = ("fixed",), budgets: Sequence[int] = ()) -> None:
    """One question in one mode: one search per method at ``rp.top_k``, every prefix judged."""
    answers = [normalize(a) for a in q.answers]
    evidence = [normalize(e) for e in q.evidence]
    t0 = time.perf_counter()
    full = engine.retrieve(q.question, kb, rp)
    search_ms = (time.perf_counter() - t0) * 1000
    for k in top_ks:
        sub = _at(engine, full, q.question, kb, rp, k)
        shapes = [("fixed", w, None) for w in (windows if "fixed" in window_modes else [])]
        shapes += [(m, None, b) for m in window_modes if m != "fixed" for b in budgets]
        for wmode, w, b in shapes:
            t1 = time.perf_counter()
            try:
                ps = engine.passages(sub, w or 0, window_mode=wmode, budget_chars=b)
            except ReindexNeeded:  # documents indexed before structure was stored: no section
                continue  # windows for them; the other modes still run
            ms = search_ms + (time.perf_counter() - t1) * 1000
            cfg = Config("window", rp.mode, w, k, window_mode=wmode, budget_chars=b)
            outs.setdefault(cfg, []).append((q, judge(answers, evidence, ps, ms)))
    for size, ckb in chunk_kbs.items():
        t0 = time.perf_counter()
        cfull = engine.retrieve(q.question, ckb, rp)
        search_ms = (time.perf_counter() - t0) * 1000
        for k in top_ks:
            t1 = time.perf_counter()
            ps = chunk_passages(_at(engine, cfull, q.question, ckb, rp, k).hits)
            ms = search_ms + (time.perf_counter() - t1) * 1000
            cfg = Config("chunks", rp.mode, None, k, size, chunk_overlap, window_mode=None)
            outs.setdefault(cfg, []).append((q, judge(answers, evidence, ps, ms)))


def budget_table(rows: Sequence[Row | dict], budgets: Iterable[int] = DEFAULT_BUDGETS) -> list[dict]:
    """Per budget and method, the best configuration whose mean context_chars is under the budget.

    Best = highest hit rate, then MRR, then the smaller context. ``hit_rate`` is None (and the
    configuration fields too) when no configuration of that method fits.
    """
    rows = [Row.from_dict(r) if isinstance(r, dict) else r for r in rows]
    out = []
    methods = [m for m in METHODS if any(r.config.method == m for r in rows)]
    for b in sorted(budgets):
        for m in methods:
            fit = [r for r in rows if r.config.method == m and r.context_chars < b and r.hit_rate is not None]
            best = max(fit, key=lambda r: (r.hit_rate, r.mrr or 0.0, -r.context_chars), default=None)
            entry = {"budget": b, "method": m, "hit_rate": None, "mrr": None, "evidence_recall": None,
                     "context_chars": None, "context_tokens": None, "mode": None, "window_size": None,
                     "top_k": None, "chunk_size": None, "window_mode": None, "budget_chars": None}
            if best is not None:
                entry.update({k: v for k, v in best.to_dict().items() if k in entry and k != "budget"})
            out.append(entry)
    return out


def context_for(engine, kb: str, question: str, config: Config, params: RetrievalParams | None = None,
                **knobs) -> tuple[list, object]:
    """The passages ``config`` would send to the LLM for ``question``, and its retrieval.

    ``params`` (default ``engine.default_params()``) with ``knobs``, then the configuration's
    mode and top_k. For ``chunks`` the chunk KB is built first when missing (embeddings come
    from the cache).
    """
    rp = (params or engine.default_params()).with_(**knobs).with_(top_k=config.top_k, mode=config.mode)
    if config.method == "chunks":
        ckb = ensure_chunks(engine, kb, config.chunk_size, config.chunk_overlap or DEFAULT_CHUNK_OVERLAP)
        r = engine.retrieve(question, ckb, rp)
        return chunk_passages(r.hits), r
    r = engine.retrieve(question, kb, rp)
    return engine.passages(r, config.window_size or 0, window_mode=config.window_mode or "fixed",
                           budget_chars=config.budget_chars), r
