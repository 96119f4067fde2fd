"""Qdrant Edge query requests built from a :class:`~swr.store.base.SearchRequest`: the candidate lists
of one search (dense, BM25 with IDF over the knowledge base only), the fused request Qdrant computes
itself (kept to test that the client-side fusion agrees), and the keyword filters."""
from __future__ import annotations

import numpy as np
import qdrant_edge as q

from swr.store.base import DENSE, RRF_K, SPARSE, SearchRequest, search_conditions
from swr.text.sparse import SparseVec


def match_filter(**conds) -> q.Filter:
    """A must-filter from keyword conditions; lists become MatchAny, None is skipped."""
    must = []
    for key, value in conds.items():
        if value is None:
            continue
        match = q.MatchAny(list(value)) if isinstance(value, (list, tuple)) else q.MatchValue(value)
        must.append(q.FieldCondition(key=key, match=match))
    return q.Filter(must=must)


def weights(req: SearchRequest) -> list[float] | None:
    """The two lists' weights of a weighted fusion (dense, sparse); None for the other fusions."""
    return [req.dense_weight, 1.0 - req.dense_weight] if req.fusion == "weighted" else None


def _idf(kb: str) -> q.SearchParams:
    # BM25 IDF over this knowledge base only: one tenant's documents never shift another's scores
    return q.SearchParams(idf=q.IdfParams(corpus=match_filter(type="s", kb=kb)))


def candidate_queries(req: SearchRequest, hnsw_ef: int) -> tuple[list[str], list]:
    """The names (``dense``, ``sparse``) and query requests of one search's candidate lists."""
    flt = match_filter(**search_conditions(req))
    queries, names = [], []
    if req.dense is not None:
        dense_q = q.Query.Nearest(np.asarray(req.dense, dtype=np.float32).tolist(), using=DENSE)
        queries.append(q.QueryRequest(limit=max(req.dense_k, req.top_k), query=dense_q, filter=flt,
                                      params=q.SearchParams(hnsw_ef=hnsw_ef)))
        names.append("dense")
    if req.sparse is not None and req.sparse.indices:
        sparse_q = q.Query.Nearest(q.SparseVector(req.sparse.indices, req.sparse.values), using=SPARSE)
        queries.append(q.QueryRequest(limit=max(req.sparse_k, req.top_k), query=sparse_q, filter=flt,
                                      params=_idf(req.kb)))
        names.append("sparse")
    return names, queries


def sparse_any_queries(kb: str, lang: str | None, vectors: list[SparseVec]) -> list:
    """One top-1 BM25 request per vector: does any sentence of ``kb`` (in ``lang``) hold its terms."""
    flt = match_filter(type="s", kb=kb, lang=lang)
    return [q.QueryRequest(limit=1, query=q.Query.Nearest(q.SparseVector(v.indices, v.values), using=SPARSE),
                           filter=flt, params=_idf(kb)) for v in vectors]


def fused_query(req: SearchRequest, hnsw_ef: int) -> q.QueryRequest:
    """Qdrant's own fused request for a hybrid search (prefetch + fusion inside Qdrant)."""
    flt = match_filter(**search_conditions(req))
    dense_q = q.Query.Nearest(np.asarray(req.dense, dtype=np.float32).tolist(), using=DENSE)
    sparse_q = q.Query.Nearest(q.SparseVector(req.sparse.indices, req.sparse.values), using=SPARSE)
    return q.QueryRequest(
        limit=req.top_k, filter=flt,
        prefetches=[q.Prefetch(limit=req.dense_k, query=dense_q, filter=flt, params=q.SearchParams(hnsw_ef=hnsw_ef)),
                    q.Prefetch(limit=req.sparse_k, query=sparse_q, filter=flt, params=_idf(req.kb))],
        query=q.Fusion.Dbsf() if req.fusion == "dbsf" else q.Fusion.Rrf(k=RRF_K, weights=weights(req)))
