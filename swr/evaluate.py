"""Golden-question sweeps: sentence windows vs plain chunks, measured on the user's own data.

:func:`sweep` runs every question once per mode at the largest top_k and derives every
(window_size, top_k) configuration from prefixes of that one hit list (the store guarantees the
top-k list is a prefix of the top-K list), so a grid of 5 windows x 5 top_ks costs one search
per question and mode, and no embedding: windows never embed, the question's vector is cached in
memory and passage vectors on disk.

The chunk baseline (:mod:`swr.chunks`) runs in the same loop on a hidden chunk knowledge base
with the same embedder, store and metrics.

A question is a *hit* when one of its expected answers occurs, after whitespace normalisation
(:func:`normalize`: runs of whitespace become one space, none is kept next to a CJK character), in
the context that would be sent to the LLM: the concatenated passage texts. Its reciprocal rank is 1/n for the first passage
(in the order sent to the LLM) containing an answer. Evidence recall is the share of its expected
evidence sentences contained in the context. Context size is the mean of the passages' characters
and of the tokens of the numbered context block (:func:`swr.answer.context_text`, cl100k).
Latency is the p50 of search + window building per question (the query embedding, identical for
every configuration and cached after the first, is excluded).

:func:`probe` explains why one sentence was not retrieved: its dense and sparse rank and score,
and which limit cut it (filter, candidate lists, top-k).
"""
from __future__ import annotations

import json
import random
import re
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .answer import context_text, count_tokens
from .chunks import chunk_passages, ensure_chunks
from .engine import Retrieval
from .errors import BadRequest
from .lang import drop_cjk_spaces
from .questions import Question, load_squad, load_table
from .store.base import sentence_id
from .window import MAX_WINDOW

METHODS = ("window", "chunks")
DEFAULT_WINDOWS = (0, 1, 2, 3, 5)
DEFAULT_TOP_KS = (1, 2, 3, 5, 10)
DEFAULT_MODES = ("hybrid",)
DEFAULT_CHUNK_SIZES = (256, 512)
DEFAULT_CHUNK_OVERLAP = 20
DEFAULT_BUDGETS = (500, 1000, 2000)
QUERY_BLOCK = 64  # questions embedded ahead of their searches (fits the embedder's query LRU)
PROBE_LIMIT = 100  # deepest rank a probe looks at (the store's top_k limit)
ROW_KEYS = ("method", "mode", "window_size", "top_k", "chunk_size", "hit_rate", "mrr", "evidence_recall",
            "context_chars", "context_tokens", "latency_ms")

Progress = Callable[[dict], None]


# -- configurations and rows --------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One retrieval configuration: sentence windows, or plain chunks of one size."""

    method: str = "window"  # "window" | "chunks"
    mode: str = "hybrid"
    window_size: int | None = 0  # None for chunks
    top_k: int = 3
    chunk_size: int | None = None  # None for windows
    chunk_overlap: int | None = None

    def label(self) -> str:
        if self.method == "chunks":
            return f"chunks {self.chunk_size}/{self.chunk_overlap} {self.mode} k={self.top_k}"
        return f"window w={self.window_size} {self.mode} k={self.top_k}"


@dataclass
class Row:
    """The metrics of one configuration over a question set."""

    config: Config
    questions: int
    hit_rate: float | None
    mrr: float | None
    evidence_recall: float | None
    context_chars: float
    context_tokens: float
    latency_ms: float
    outcomes: list[dict] = field(default_factory=list, repr=False)  # per question (details=True), in order

    @classmethod
    def from_dict(cls, d: dict) -> "Row":
        """A row back from its JSON form (``questions`` and outcomes are not in it)."""
        cfg = Config(d["method"], d["mode"], d.get("window_size"), d["top_k"], d.get("chunk_size"),
                     d.get("chunk_overlap"))
        return cls(cfg, d.get("questions", 0), d.get("hit_rate"), d.get("mrr"), d.get("evidence_recall"),
                   d["context_chars"], d["context_tokens"], d["latency_ms"])

    def to_dict(self) -> dict:
        c = self.config
        return {"method": c.method, "mode": c.mode, "window_size": c.window_size, "top_k": c.top_k,
                "chunk_size": c.chunk_size, "hit_rate": self.hit_rate, "mrr": self.mrr,
                "evidence_recall": self.evidence_recall, "context_chars": self.context_chars,
                "context_tokens": self.context_tokens, "latency_ms": self.latency_ms}


# -- metrics of one question ----------------------------------------------------------------
_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Whitespace normalisation for matching: runs of whitespace become one space (so "cats" does
    not match "cat sat"), and a space next to a CJK character is dropped (a line break inside
    Chinese text is no word boundary)."""
    return drop_cjk_spaces(_WS.sub(" ", text or "").strip())


@dataclass
class Outcome:
    """One question under one configuration."""

    hit: bool | None  # None when the question has no expected answer
    rr: float | None
    evidence: float | None  # None when the question has no expected evidence
    chars: int
    tokens: int
    ms: float


def judge(answers: Sequence[str], evidence: Sequence[str], passages, ms: float = 0.0) -> Outcome:
    """Score the passages that would be sent to the LLM against normalised answers/evidence."""
    texts = [normalize(p.text) for p in passages]
    ctx = "\n".join(texts)  # no normalised answer holds a line break: nothing matches across passages
    answers = [a for a in answers if a]
    evidence = [e for e in evidence if e]
    hit = rr = ev = None
    if answers:
        hit = any(a in ctx for a in answers)
        first = next((n for n, t in enumerate(texts, 1) if any(a in t for a in answers)), None)
        rr = 1.0 / first if first else 0.0
    if evidence:
        ev = sum(e in ctx for e in evidence) / len(evidence)
    return Outcome(hit, rr, ev, sum(len(p.text) for p in passages),
                   count_tokens(context_text(passages)) if passages else 0, ms)


def _mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return round(sum(xs) / len(xs), 4) if xs else None


def _row(config: Config, pairs: list[tuple[Question, Outcome]], details: bool) -> Row:
    outs = [o for _, o in pairs]
    row = Row(config=config, questions=len(outs),
              hit_rate=_mean([None if o.hit is None else float(o.hit) for o in outs]),
              mrr=_mean([o.rr for o in outs]), evidence_recall=_mean([o.evidence for o in outs]),
              context_chars=round(sum(o.chars for o in outs) / len(outs), 1) if outs else 0.0,
              context_tokens=round(sum(o.tokens for o in outs) / len(outs), 1) if outs else 0.0,
              latency_ms=round(statistics.median(o.ms for o in outs), 2) if outs else 0.0)
    if details:
        row.outcomes = [{"question": q.question, "id": q.id, **asdict(o)} for q, o in pairs]
    return row


# -- the sweep ------------------------------------------------------------------------------
def _ints(xs: Iterable[int], what: str, lo: int, hi: int) -> list[int]:
    out = sorted({int(x) for x in xs})
    if any(not lo <= x <= hi for x in out):
        raise BadRequest(f"Every {what} must be between {lo} and {hi}.")
    return out


def _prefix(r: Retrieval, k: int) -> Retrieval:
    return Retrieval(r.question, r.kb, r.hits[:k], {**r.params, "top_k": k}, dict(r.timings))


def sweep(engine, kb: str, questions: Sequence[Question], windows: Iterable[int] = DEFAULT_WINDOWS,
          top_ks: Iterable[int] = DEFAULT_TOP_KS, modes: Iterable[str] = DEFAULT_MODES,
          chunk_sizes: Iterable[int] = DEFAULT_CHUNK_SIZES, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
          progress: Progress | None = None, details: bool = False, **knobs) -> list[Row]:
    """Metrics of every configuration: windows x top_ks x modes, plus chunk_sizes x top_ks x modes.

    One search per question, mode and method at ``max(top_ks)``; every smaller top_k is a prefix
    of it. ``knobs`` are further ``engine.retrieve`` arguments (fusion, dense_k, sources, ...).
    ``details=True`` keeps every question's outcome in ``Row.outcomes`` (for the app's drill-down).
    """
    windows = _ints(windows, "window size", 0, MAX_WINDOW)
    top_ks = _ints(top_ks, "top_k", 1, 100)
    chunk_sizes = _ints(chunk_sizes, "chunk size", 16, 100_000)
    modes = list(dict.fromkeys(modes))
    if not windows or not top_ks or not modes:
        raise BadRequest("A sweep needs at least one window size, one top_k and one mode.")
    if chunk_sizes and not 0 <= chunk_overlap < min(chunk_sizes):
        raise BadRequest("The chunk overlap must be at least 0 and smaller than every chunk size.")
    engine.docs(kb)  # NotFound with the known names
    questions = [q for q in questions if q.question.strip() and (q.answers or q.evidence)]
    if not questions:
        raise BadRequest("No usable question: each needs a question and an expected answer or evidence.")
    chunk_kbs = {size: ensure_chunks(engine, kb, size, chunk_overlap, progress) for size in chunk_sizes}
    K = max(top_ks)
    outs: dict[Config, list[tuple[Question, Outcome]]] = {}

    def add(cfg: Config, o: Outcome) -> None:
        outs.setdefault(cfg, []).append((q, o))

    t_start = time.perf_counter()
    for n, q in enumerate(questions, 1):
        if (n - 1) % QUERY_BLOCK == 0:
            # embed the next block of questions first (each once; every search reuses the vector),
            # so no search is timed right after a forward pass still holding the CPU
            for b in questions[n - 1:n - 1 + QUERY_BLOCK]:
                engine.embedder.encode_query(b.question.strip())
        answers = [normalize(a) for a in q.answers]
        evidence = [normalize(e) for e in q.evidence]
        for mode in modes:
            t0 = time.perf_counter()
            full = engine.retrieve(q.question, kb, top_k=K, mode=mode, **knobs)
            search_ms = (time.perf_counter() - t0) * 1000
            for k in top_ks:
                sub = _prefix(full, k)
                for w in windows:
                    t1 = time.perf_counter()
                    ps = engine.passages(sub, w)
                    ms = search_ms + (time.perf_counter() - t1) * 1000
                    add(Config("window", mode, w, k), judge(answers, evidence, ps, ms))
            for size, ckb in chunk_kbs.items():
                t0 = time.perf_counter()
                cfull = engine.retrieve(q.question, ckb, top_k=K, mode=mode, **knobs)
                search_ms = (time.perf_counter() - t0) * 1000
                for k in top_ks:
                    t1 = time.perf_counter()
                    ps = chunk_passages(cfull.hits[:k])
                    ms = search_ms + (time.perf_counter() - t1) * 1000
                    add(Config("chunks", mode, None, k, size, chunk_overlap), judge(answers, evidence, ps, ms))
        if progress:
            el = time.perf_counter() - t_start
            progress({"stage": "questions", "done": n, "total": len(questions),
                      "questions_per_s": n / el if el > 0 else None})
    order = {m: r for r, m in enumerate(modes)}
    rows = [_row(cfg, o, details) for cfg, o in outs.items()]
    rows.sort(key=lambda r: (METHODS.index(r.config.method), order[r.config.mode], r.config.chunk_size or 0,
                             r.config.window_size or 0, r.config.top_k))
    return rows


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
                     "top_k": None, "chunk_size": None}
            if best is not None:
                entry.update({k: v for k, v in best.to_dict().items() if k in entry and k != "budget"})
            out.append(entry)
    return out


# -- question sets --------------------------------------------------------------------------
def guess_format(path: str | Path) -> str:
    """``squad`` for a .json object with a ``data`` list, ``jsonl`` for .jsonl, ``csv`` otherwise."""
    p = Path(path)
    suf = p.suffix.lower()
    if suf == ".jsonl":
        return "jsonl"
    if suf == ".json":
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return "jsonl"
        return "squad" if isinstance(data, dict) and isinstance(data.get("data"), list) else "jsonl"
    return "csv"


def load_set(path: str | Path, fmt: str | None = None,
             max_articles: int | None = None) -> tuple[list[tuple[str, str]], list[Question]]:
    """(documents as (name, text) — only for SQuAD — , questions) from a question-set file."""
    fmt = fmt or guess_format(path)
    if fmt == "squad":
        return load_squad(path, max_articles=max_articles)
    if fmt in ("csv", "jsonl"):
        return [], load_table(path)
    raise BadRequest(f"Unknown question-set format {fmt!r}: use squad, csv or jsonl.")


def sample(questions: Sequence[Question], n: int | None, seed: int = 0) -> list[Question]:
    """At most ``n`` questions, a seeded random sample (all of them, in order, when n is None)."""
    qs = list(questions)
    if n is None or n >= len(qs):
        return qs
    idx = sorted(random.Random(seed).sample(range(len(qs)), n))
    return [qs[i] for i in idx]


# -- readable tables ------------------------------------------------------------------------
def _f(v, nd=3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def format_rows(rows: Sequence[Row | dict]) -> str:
    """A Markdown table of the sweep (readable in a terminal as it is)."""
    rows = [r.to_dict() if isinstance(r, Row) else r for r in rows]
    head = ["method", "mode", "window", "top_k", "chunk", "hit rate", "MRR", "evidence", "ctx chars",
            "ctx tokens", "p50 ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["method"], r["mode"], _f(r["window_size"]), str(r["top_k"]), _f(r["chunk_size"]),
            _f(r["hit_rate"]), _f(r["mrr"]), _f(r["evidence_recall"]), f"{r['context_chars']:.0f}",
            f"{r['context_tokens']:.0f}", f"{r['latency_ms']:.1f}"]) + " |")
    return "\n".join(lines)


def format_budgets(budgets: Sequence[dict]) -> str:
    """A Markdown table: each method's best hit rate under each context budget."""
    head = ["budget (chars)", "method", "hit rate", "MRR", "ctx chars", "best configuration"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for b in budgets:
        if b["hit_rate"] is None:
            cfg, chars = "nothing fits", "–"
        else:
            chars = f"{b['context_chars']:.0f}"
            cfg = (f"{b['mode']}, window {b['window_size']}, top_k {b['top_k']}" if b["method"] == "window"
                   else f"{b['mode']}, chunk {b['chunk_size']}, top_k {b['top_k']}")
        lines.append(f"| < {b['budget']} | {b['method']} | {_f(b['hit_rate'])} | {_f(b['mrr'])} | {chars} | {cfg} |")
    return "\n".join(lines)


# -- one configuration, one question (the Compare page) --------------------------------------
def context_for(engine, kb: str, question: str, config: Config, **knobs) -> tuple[list, Retrieval]:
    """The passages ``config`` would send to the LLM for ``question``, and its retrieval.

    For ``chunks`` the chunk KB is built first when missing (embeddings come from the cache).
    """
    if config.method == "chunks":
        ckb = ensure_chunks(engine, kb, config.chunk_size, config.chunk_overlap or DEFAULT_CHUNK_OVERLAP)
        r = engine.retrieve(question, ckb, top_k=config.top_k, mode=config.mode, **knobs)
        return chunk_passages(r.hits), r
    r = engine.retrieve(question, kb, top_k=config.top_k, mode=config.mode, **knobs)
    return engine.passages(r, config.window_size or 0), r


# -- why was this sentence not retrieved? ---------------------------------------------------
def _filter_reason(s, params: dict) -> str | None:
    if params.get("sources") and s.source not in params["sources"]:
        return f"its source {s.source!r} is not among the selected sources"
    if params.get("tags") and not set(s.tags or []) & set(params["tags"]):
        return f"it has none of the selected tags ({', '.join(params['tags'])})"
    if params.get("lang") and s.lang != params["lang"]:
        return f"its language is {s.lang!r}, not {params['lang']!r}"
    return None


def probe(engine, retrieval_params: dict | None, question: str, kb: str, doc_id: str, i: int) -> dict:
    """Why sentence ``i`` of ``doc_id`` was (not) retrieved for ``question`` with these params.

    ``retrieval_params`` are those of :class:`swr.engine.Retrieval` (``top_k``, ``mode``,
    ``dense_k``, ``sparse_k``, ``fusion``, ``dense_weight``, ``sources``, ``tags``, ``lang``);
    missing ones take the settings' defaults. Returns the sentence's rank in the mode's result
    list and in the dense and the sparse lists (1-based, None beyond :data:`PROBE_LIMIT`), its
    dense score (computed directly, so known at any rank) and sparse score, and ``cut_by``:
    None (retrieved), ``"missing"``, ``"filter"``, ``"candidates"`` (in neither the dense_k nor the
    sparse_k candidate list of hybrid), ``"no_shared_terms"`` (sparse: no query term in it) or
    ``"top_k"``; ``reason`` says it in words.
    """
    s = engine.settings
    p = dict(retrieval_params or {})
    params = {"top_k": p.get("top_k") or s.top_k, "mode": p.get("mode") or s.mode,
              "fusion": p.get("fusion") or "rrf",
              "dense_weight": 0.5 if p.get("dense_weight") is None else p["dense_weight"],
              "dense_k": p.get("dense_k") or s.dense_k, "sparse_k": p.get("sparse_k") or s.sparse_k,
              "sources": list(p.get("sources") or []), "tags": list(p.get("tags") or []), "lang": p.get("lang")}
    engine.require_kb(kb)
    found = engine.store.get([sentence_id(kb, doc_id, int(i))])
    out = {"kb": kb, "doc_id": doc_id, "i": int(i), "question": question, "params": params, "text": None,
           "source": None, "retrieved": False, "rank": None, "dense_rank": None, "dense_score": None,
           "sparse_rank": None, "sparse_score": None, "shared_terms": 0, "in_dense_candidates": False,
           "in_sparse_candidates": False, "cutoff_score": None, "filter": None, "cut_by": "missing",
           "reason": f"Sentence {i} of document {doc_id} is not in knowledge base {kb!r}.",
           "probe_limit": PROBE_LIMIT}
    if not found:
        return out
    sent = found[0]
    out.update(text=sent.text.strip(), source=sent.source)
    filt = _filter_reason(sent, params)
    out["filter"] = filt
    # rank it where the filter lets it compete (else without the filter: where it would have been)
    filters = {} if filt else {"sources": params["sources"], "tags": params["tags"], "lang": params["lang"]}
    key = (sent.doc_id, sent.i)

    def find(hits):
        for r, h in enumerate(hits, 1):
            if (h.sentence.doc_id, h.sentence.i) == key:
                return r, h
        return None, None

    deep = max(PROBE_LIMIT, params["dense_k"], params["sparse_k"])
    dense = engine.retrieve(question, kb, top_k=PROBE_LIMIT, mode="dense", dense_k=deep, sparse_k=deep, **filters)
    sparse = engine.retrieve(question, kb, top_k=PROBE_LIMIT, mode="sparse", dense_k=deep, sparse_k=deep, **filters)
    final = engine.retrieve(question, kb, top_k=PROBE_LIMIT, mode=params["mode"], fusion=params["fusion"],
                            dense_weight=params["dense_weight"], dense_k=params["dense_k"],
                            sparse_k=params["sparse_k"], **filters)
    out["dense_rank"], dh = find(dense.hits)
    out["sparse_rank"], sh = find(sparse.hits)
    out["rank"], fh = find(final.hits)
    qv = engine.embedder.encode_query(question.strip())
    pv = engine.embedder.encode_passages([sent.text.strip()])[0]
    out["dense_score"] = float(dh.score) if dh else round(float(qv @ pv), 6)
    out["sparse_score"] = float(sh.score) if sh else None
    q_terms = set(engine.sparse.encode_query(question).indices)
    d_terms = set(engine.sparse.encode_documents([sent.text.strip()])[0].indices)
    out["shared_terms"] = len(q_terms & d_terms)
    if out["sparse_score"] is None and not out["shared_terms"]:
        out["sparse_score"] = 0.0
    out["in_dense_candidates"] = out["dense_rank"] is not None and out["dense_rank"] <= params["dense_k"]
    out["in_sparse_candidates"] = out["sparse_rank"] is not None and out["sparse_rank"] <= params["sparse_k"]
    k = params["top_k"]
    out["cutoff_score"] = float(final.hits[k - 1].score) if len(final.hits) >= k else None
    mode = params["mode"]
    rank_txt = f"rank {out['rank']}" if out["rank"] else f"below rank {PROBE_LIMIT}"
    if filt:
        out.update(cut_by="filter", reason=f"Filtered out: {filt}. Without the filter it would rank "
                                           f"{out['rank'] or '>' + str(PROBE_LIMIT)} in {mode} mode.")
    elif out["rank"] is not None and out["rank"] <= k:
        out.update(retrieved=True, cut_by=None, reason=f"Retrieved at rank {out['rank']} of top_k {k}.")
    elif mode == "sparse" and not out["shared_terms"]:
        out.update(cut_by="no_shared_terms", reason="BM25 cannot find it: it shares no term with the question.")
    elif mode == "hybrid" and not (out["in_dense_candidates"] or out["in_sparse_candidates"]):
        dr = out["dense_rank"] or f">{PROBE_LIMIT}"
        sr = out["sparse_rank"] or (f">{PROBE_LIMIT}" if out["shared_terms"] else "none (no shared term)")
        out.update(cut_by="candidates",
                   reason=f"Not among the fusion candidates: dense rank {dr} (dense_k {params['dense_k']}), "
                          f"sparse rank {sr} (sparse_k {params['sparse_k']}).")
    else:
        out.update(cut_by="top_k", reason=f"Ranked too low: {rank_txt} in {mode} mode, top_k is {k}.")
    return out


def rows_to_json(rows: Sequence[Row], budgets: Sequence[dict], **extra) -> dict:
    """The ``eval --json`` document."""
    return {"rows": [r.to_dict() for r in rows], "budgets": list(budgets), **extra}


__all__ = ["Config", "Row", "Outcome", "sweep", "budget_table", "probe", "context_for", "judge", "normalize", "load_set",
           "sample", "guess_format", "format_rows", "format_budgets", "rows_to_json", "ROW_KEYS", "PROBE_LIMIT"]
