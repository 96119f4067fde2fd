"""Why was this sentence (not) retrieved? :func:`probe` ranks one sentence under the chat's own
:class:`swr.core.params.RetrievalParams` and names the limit that cut it."""
from __future__ import annotations

from dataclasses import fields

from swr.core.params import MAX_TOP_K, RetrievalParams

PROBE_LIMIT = MAX_TOP_K  # deepest rank a probe looks at (the store's top_k limit)
_FIELDS = {f.name for f in fields(RetrievalParams)}


def probe_params(engine, params: RetrievalParams | dict | None) -> RetrievalParams:
    """The params a probe explains: ``params`` as they are, or a dict of fields (those of a
    :class:`swr.retrieve.search.Retrieval`, or of the chat's knobs) over the engine's defaults: the same
    defaults, fusion included, as the chat's."""
    if isinstance(params, RetrievalParams):
        return params.validate()
    known = {k: v for k, v in (params or {}).items() if k in _FIELDS}
    return engine.default_params(**known).validate()


def _filter_reason(s, rp: RetrievalParams) -> str | None:
    if rp.sources and s.source not in rp.sources:
        return f"its source {s.source!r} is not among the selected sources"
    if rp.tags and not set(s.tags or []) & set(rp.tags):
        return f"it has none of the selected tags ({', '.join(rp.tags)})"
    if rp.lang and s.lang != rp.lang:
        return f"its language is {s.lang!r}, not {rp.lang!r}"
    return None


def probe(engine, retrieval_params: RetrievalParams | dict | None, question: str, kb: str, doc_id: str,
          i: int) -> dict:
    """Why sentence ``i`` of ``doc_id`` was (not) retrieved for ``question`` with these params.

    ``retrieval_params``: see :func:`probe_params` (None: the chat's defaults). Returns the
    sentence's rank in the mode's result list and in the dense and the sparse lists (1-based,
    None beyond :data:`PROBE_LIMIT`), its dense score (computed directly, so known at any rank)
    and sparse score, its ``score`` in the chat's ranking (on the scale of ``cutoff_score``, the
    top_k-th hit's score: fused in hybrid mode, never comparable with the dense cosine), and
    ``cut_by``: None (retrieved), ``"missing"``, ``"filter"``,
    ``"candidates"`` (in neither the dense_k nor the sparse_k candidate list of hybrid),
    ``"no_shared_terms"`` (sparse: no query term in it) or ``"top_k"``; ``reason`` says it in
    words.
    """
    rp = probe_params(engine, retrieval_params)
    engine.require_kb(kb)
    found = engine.fetch_sentences(kb, [(doc_id, int(i))])
    out = {"kb": kb, "doc_id": doc_id, "i": int(i), "question": question, "params": rp.to_dict(), "text": None,
           "source": None, "retrieved": False, "rank": None, "dense_rank": None, "dense_score": None,
           "score": None, "sparse_rank": None, "sparse_score": None, "shared_terms": 0, "in_dense_candidates": False,
           "in_sparse_candidates": False, "cutoff_score": None, "filter": None, "cut_by": "missing",
           "reason": f"Sentence {i} of document {doc_id} is not in knowledge base {kb!r}.",
           "probe_limit": PROBE_LIMIT}
    if not found:
        return out
    sent = next(iter(found.values()))
    out.update(text=sent.text.strip(), source=sent.source)
    filt = _filter_reason(sent, rp)
    out["filter"] = filt
    _rank(engine, question, kb, sent, rp, filt, out)
    out["reason"], out["cut_by"], out["retrieved"] = _verdict(rp, filt, out)
    return out


def _rank(engine, question: str, kb: str, sent, rp: RetrievalParams, filt: str | None, out: dict) -> None:
    """The sentence's ranks and scores: dense list, sparse list, and the chat's own ranking."""
    # rank it where the filter lets it compete (else without the filter: where it would have been)
    chat = rp.with_(sources=(), tags=(), lang=None) if filt else rp
    key = (sent.doc_id, sent.i)

    def find(hits):
        for r, h in enumerate(hits, 1):
            if (h.sentence.doc_id, h.sentence.i) == key:
                return r, h
        return None, None

    deep = max(PROBE_LIMIT, rp.dense_k, rp.sparse_k)
    single = chat.with_(top_k=PROBE_LIMIT, dense_k=deep, sparse_k=deep, min_score=None, stages=())
    dense = engine.retrieve(question, kb, single, mode="dense")
    sparse = engine.retrieve(question, kb, single, mode="sparse")
    final, out["shown"] = _chat(engine, question, kb, chat, PROBE_LIMIT)
    out["dense_rank"], dh = find(dense.hits)
    out["sparse_rank"], sh = find(sparse.hits)
    out["rank"], fh = find(final)
    out["score"] = float(fh.score) if fh else None  # on the scale of cutoff_score (the mode's, fused in hybrid)
    qv = engine.embedder.encode_query(question.strip())
    pv = engine.embedder.encode_passages([sent.text.strip()])[0]
    out["dense_score"] = float(dh.score) if dh else round(float(qv @ pv), 6)
    out["sparse_score"] = float(sh.score) if sh else None
    q_terms = set(engine.sparse.encode_query(question).indices)
    d_terms = set(engine.sparse.encode_documents([sent.text.strip()])[0].indices)
    out["shared_terms"] = len(q_terms & d_terms)
    if out["sparse_score"] is None and not out["shared_terms"]:
        out["sparse_score"] = 0.0
    out["in_dense_candidates"] = out["dense_rank"] is not None and out["dense_rank"] <= rp.dense_k
    out["in_sparse_candidates"] = out["sparse_rank"] is not None and out["sparse_rank"] <= rp.sparse_k
    k = out["shown"]
    out["cutoff_score"] = float(final[k - 1].score) if 0 < k <= len(final) else None


def chat_ranking(engine, question: str, kb: str, rp: RetrievalParams, depth: int) -> list:
    """The chat's ranking ``depth`` deep: the hits it shows (``rp.top_k``, and the places cross-lingual
    search adds), then the rest of a ``depth``-deep search in its order. A search ``depth`` deep is not
    that list: cross-lingual search places sentences by the top k it fills (``other_places``), so a
    sentence the chat shows third can rank 54th in a deeper search, and a probe must never call a
    sentence the chat shows "ranked too low"."""
    return _chat(engine, question, kb, rp, depth)[0]


def _chat(engine, question: str, kb: str, rp: RetrievalParams, depth: int) -> tuple[list, int]:
    """(:func:`chat_ranking`, how many hits the chat shows)."""
    top = engine.retrieve(question, kb, rp).hits
    if depth <= len(top):
        return top[:depth], len(top)
    shown = {(h.sentence.doc_id, h.sentence.i) for h in top}
    deeper = engine.retrieve(question, kb, rp, top_k=depth).hits
    return (top + [h for h in deeper if (h.sentence.doc_id, h.sentence.i) not in shown])[:depth], len(top)


def _verdict(rp: RetrievalParams, filt: str | None, out: dict) -> tuple[str, str | None, bool]:
    """(reason, cut_by, retrieved) from the ranks."""
    k, mode = out.get("shown") or rp.top_k, rp.mode
    rank_txt = f"rank {out['rank']}" if out["rank"] else f"below rank {PROBE_LIMIT}"
    if filt:
        return (f"Filtered out: {filt}. Without the filter it would rank "
                f"{out['rank'] or '>' + str(PROBE_LIMIT)} in {mode} mode.", "filter", False)
    if out["rank"] is not None and out["rank"] <= k:
        return f"Retrieved at rank {out['rank']} of the {k} shown (top_k {rp.top_k}).", None, True
    if mode == "sparse" and not out["shared_terms"]:
        return "BM25 cannot find it: it shares no term with the question.", "no_shared_terms", False
    if mode == "hybrid" and out["rank"] is None and not (out["in_dense_candidates"] or out["in_sparse_candidates"]):
        dr = out["dense_rank"] or f">{PROBE_LIMIT}"
        sr = out["sparse_rank"] or (f">{PROBE_LIMIT}" if out["shared_terms"] else "none (no shared term)")
        return (f"Not among the fusion candidates: dense rank {dr} (dense_k {rp.dense_k}), "
                f"sparse rank {sr} (sparse_k {rp.sparse_k}).", "candidates", False)
    return f"Ranked too low: {rank_txt} in {mode} mode, {k} shown (top_k {rp.top_k}).", "top_k", False
