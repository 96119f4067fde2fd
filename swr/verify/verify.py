"""Claim verification: is a statement supported by a knowledge base, contradicted by it, or not
found in it, where exactly, and why?

Whole-chunk similarity misses a fact that is one clause inside a chunk; sliding windows over the
chunk find it. Per claim:

1. candidates: hybrid (or dense/sparse) retrieval of ``candidates`` sentences, widened into
   chunks of ``passage_window`` sentences each side (merged where they touch);
2. windows of ``window`` sentences sliding by ``step`` over every chunk; the windows of the best
   ``use_top`` chunks of *all* claims are embedded in ONE batched ``encode_passages`` call (the
   GPU when there is one); every sentence's cosine comes from its stored vector (no model call);
3. every window is judged by :mod:`swr.verify.verdict`: cosine and key terms say whether it is close
   enough, numbers with units, codes, negation and the subject say whether it agrees.

One entry per chunk (its best window: supporting first, then contradicting, then the highest
score), best first, ``top_k`` of them. The verdict is ``supported``, ``contradicted`` or ``not
found``, with the reasons of the deciding window. Scores are cosines of the embedding model (and
the share of key terms found), on the scale :func:`swr.verify.verdict.thresholds_for` was calibrated on.
"""
from __future__ import annotations

import time

import numpy as np

import swr.verify.verdict as vd
from swr.core.errors import BadRequest, LLMUnavailable
from swr.core.params import MAX_VERIFY_K, MAX_VERIFY_WINDOW, MODES, VerifyParams
from swr.core.rules.verify import E5, OTHER
from swr.retrieve import subjects as subj, window as win
from swr.verify.llm_judge import llm_verdict
from swr.verify.results import VerifyResult, entries_of
from swr.verify.windows import Chunk, candidates, embed_windows, judge_views, window_views

VERDICTS = vd.VERDICTS


def default_threshold(model: str) -> float:
    """The calibrated support cosine of an embedding model (:mod:`swr.verify.verdict`)."""
    return vd.thresholds_for(model).support


E5_THRESHOLD = E5.support
OTHER_THRESHOLD = OTHER.support


def check_params(p: VerifyParams) -> VerifyParams:
    if p.mode not in MODES:
        raise BadRequest(f"Unknown retrieval mode {p.mode!r}: use one of {', '.join(MODES)}.")
    if not 1 <= p.candidates <= MAX_VERIFY_K:
        raise BadRequest(f"candidates must be between 1 and {MAX_VERIFY_K}.")
    if not 1 <= p.use_top <= MAX_VERIFY_K:
        raise BadRequest(f"use_top must be between 1 and {MAX_VERIFY_K}.")
    if not 1 <= p.window <= MAX_VERIFY_WINDOW or not 1 <= p.step <= MAX_VERIFY_WINDOW:
        raise BadRequest(f"The window size and the step must be between 1 and {MAX_VERIFY_WINDOW} sentences.")
    if not 0 <= p.passage_window <= win.MAX_WINDOW:
        raise BadRequest(f"passage_window must be between 0 and {win.MAX_WINDOW}.")
    if p.threshold is not None and not -1.0 <= p.threshold <= 1.0:
        raise BadRequest("The threshold must be between -1 and 1.")
    if not 1 <= p.top_k <= MAX_VERIFY_K:
        raise BadRequest(f"top_k must be between 1 and {MAX_VERIFY_K}.")
    return p


def verify(engine, claim: str, kb: str, params: VerifyParams | None = None, **changes) -> VerifyResult:
    """Verify one claim against ``kb``; see :func:`verify_many`."""
    return verify_many(engine, [claim], kb, params, **changes)[0]


def verify_many(engine, claims: list[str], kb: str | list[str], params: VerifyParams | None = None, *,
                embedder=None, per_window_calls: bool = False, llm=None, **changes) -> list[VerifyResult]:
    """Verify each claim against ``kb`` (one name, or one per claim); one :class:`VerifyResult`
    per claim, in order.

    ``params`` (default ``VerifyParams.from_settings(engine.settings)``) with ``changes``: any
    :class:`swr.core.params.VerifyParams` field (``candidates``, ``window``, ``threshold``, ...); other
    keywords (``sources``, ``tags``, ``lang``) go to ``engine.retrieve``. ``threshold`` overrides
    the support cosine (:func:`swr.verify.verdict.thresholds_for`). ``embedder`` (default
    ``engine.embedder``) embeds the windows; ``per_window_calls=True`` is the slow one-call-per-
    window baseline of ``bench/verify_batching.py``. ``llm`` (a configured
    :class:`swr.answer.llm.Answerer`) puts each ``supported`` to :func:`llm_verdict`; when the LLM
    fails the rules' verdict stands, with the failure among its reasons.
    """
    t_start = time.perf_counter()
    known = set(VerifyParams.__dataclass_fields__)
    retrieve_knobs = {k: v for k, v in changes.items() if k not in known and v not in (None, [], ())}
    p = check_params((params or VerifyParams.from_settings(engine.settings))
                     .with_(**{k: v for k, v in changes.items() if k in known}))
    claims = [(c or "").strip() for c in claims]
    if not claims:
        return []
    kbs = _kbs_of(kb, claims, p)
    t = vd.thresholds_for(engine.embedder.name, p.threshold, p.verdict)
    embedder = embedder or engine.embedder
    params_out = {**p.stamp(), "threshold": t.support, "thresholds": t.to_dict(), **retrieve_knobs,
                  "embed_model": engine.embedder.name}
    chunks_of, qvecs, retrieve_ms = [], [], []
    for claim, kb_ in zip(claims, kbs):
        t0 = time.perf_counter()
        chunks, rparams = candidates(engine, claim, kb_, p, retrieve_knobs)
        params_out.setdefault("fusion", rparams.get("fusion"))
        chunks_of.append(chunks)
        qvecs.append(np.asarray(engine.embedder.encode_query(claim), dtype=np.float32))
        retrieve_ms.append(round((time.perf_counter() - t0) * 1000, 2))
    stored, encoded, batch_t, batch_c = embed_windows(engine, chunks_of, p, embedder, per_window_calls)
    results = []
    for ci, claim in enumerate(claims):
        t3 = time.perf_counter()
        r = _judge_claim(engine, claim, kbs[ci], chunks_of[ci], qvecs[ci], (stored, encoded), p, t, llm)
        r.params = params_out
        r.timings = {"retrieve_ms": retrieve_ms[ci], **batch_t, "score_ms": round((time.perf_counter() - t3) * 1000, 2)}
        r.counts = {**r.counts, "claims": len(claims), **batch_c}
        results.append(r)
    total = round((time.perf_counter() - t_start) * 1000, 2)
    for r in results:
        r.timings["total_ms"] = total
    return results


def _kbs_of(kb: str | list[str], claims: list[str], p: VerifyParams) -> list[str]:
    """One knowledge base per claim; :class:`BadRequest` on a count that does not fit."""
    kbs = [kb] * len(claims) if isinstance(kb, str) else list(kb)
    if len(kbs) != len(claims):
        raise BadRequest("Give one knowledge base, or one per claim.")
    if len(claims) > p.max_claims:
        raise BadRequest(f"At most {p.max_claims} claims at once ({len(claims)} given).")
    return kbs


def _judge_claim(engine, claim: str, kb: str, chunks: list[Chunk], qvec, vectors: tuple[dict, dict],
                 p: VerifyParams, t: vd.Thresholds, llm) -> VerifyResult:
    """One claim's verdict from its candidate chunks and the embedded windows (``vectors``: the
    stored and the encoded ones); ``params`` and ``timings`` are the caller's to fill."""
    index = subj.for_kb(engine, kb)
    facts = vd.ClaimFacts.read(claim, index)
    views = window_views(chunks, qvec, vectors[0], vectors[1], p)
    n_windows = sum(1 for w in views if chunks[w.chunk].slide)
    judged = judge_views(facts, views, index, t, p.verdict)
    verdict, k = vd.decide([j[0] for j in judged])
    entries = entries_of(facts, judged, chunks, p.top_k, k)
    deciding = 0 if k is not None and entries else None
    reasons = list(judged[k][0].reasons) if k is not None else ["no candidate window was retrieved"]
    if llm is not None and verdict == "supported":
        try:
            verdict, why = llm_verdict(llm, claim, judged, views, verdict)
        except LLMUnavailable as exc:
            why = f"the LLM judge was not asked: {exc.message}"
        reasons.insert(0, why)
    return VerifyResult(claim=claim, kb=kb, verdict=verdict, threshold=t.support, entries=entries,
                        key_terms=facts.terms, counts={"chunks": len(chunks), "windows": n_windows},
                        reasons=reasons, deciding=deciding, measures=[j[4] for j in judged], views=views)
