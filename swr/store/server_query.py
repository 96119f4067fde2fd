"""The Qdrant server's side of a search: filters, sparse vectors and the batch of query requests
(the dense list, the sparse list and, for hybrid, their fusion inside Qdrant); its errors in words."""
from __future__ import annotations

import numpy as np
from qdrant_client import models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from swr.store.base import DENSE, RRF_K, SPARSE, SearchRequest, search_conditions
from swr.text.sparse import SparseVec


def sparse_vector(sp: SparseVec) -> models.SparseVector:
    return models.SparseVector(indices=[int(i) for i in sp.indices], values=[float(v) for v in sp.values])


def match_filter(**conds) -> models.Filter:
    """A must-filter from keyword conditions; lists become MatchAny, None is skipped."""
    must = []
    for key, value in conds.items():
        if value is None:
            continue
        match = (models.MatchAny(any=list(value)) if isinstance(value, (list, tuple))
                 else models.MatchValue(value=value))
        must.append(models.FieldCondition(key=key, match=match))
    return models.Filter(must=must)


def search_requests(req: SearchRequest, shard=None) -> tuple[list[str], list[models.QueryRequest]]:
    """The batch of one search: names ("dense", "sparse", "hybrid") and their query requests
    (``shard``: the knowledge base's shard key when the collection is sharded by it)."""
    flt = match_filter(**search_conditions(req))
    dense_q = np.asarray(req.dense, dtype=np.float32).tolist() if req.dense is not None else None
    sparse_q = sparse_vector(req.sparse) if req.sparse is not None and req.sparse.indices else None
    # BM25 IDF over this knowledge base only: one tenant's documents never shift another's scores
    idf = models.SearchParams(idf=models.IdfCorpusParams(corpus=match_filter(type="s", kb=req.kb)))
    queries, names = [], []
    if dense_q is not None:
        queries.append(models.QueryRequest(query=dense_q, using=DENSE, limit=max(req.dense_k, req.top_k),
                                           filter=flt, with_payload=True, shard_key=shard))
        names.append("dense")
    if sparse_q is not None:
        queries.append(models.QueryRequest(query=sparse_q, using=SPARSE, limit=max(req.sparse_k, req.top_k),
                                           params=idf, filter=flt, with_payload=True, shard_key=shard))
        names.append("sparse")
    if req.mode == "hybrid" and dense_q is not None and sparse_q is not None:
        weights = [req.dense_weight, 1.0 - req.dense_weight] if req.fusion == "weighted" else None
        queries.append(models.QueryRequest(
            limit=req.top_k, filter=flt, with_payload=True, shard_key=shard,
            prefetch=[models.Prefetch(query=dense_q, using=DENSE, limit=req.dense_k, filter=flt),
                      models.Prefetch(query=sparse_q, using=SPARSE, limit=req.sparse_k, filter=flt, params=idf)],
            query=models.FusionQuery(fusion=models.Fusion.DBSF) if req.fusion == "dbsf"
            else models.RrfQuery(rrf=models.Rrf(k=RRF_K, weights=weights))))
        names.append("hybrid")
    return names, queries


def unavailable_message(location: str, what: str, exc: Exception) -> str:
    """Why a call to the server at ``location`` failed while doing ``what``, and what to check."""
    where = f"The Qdrant server at {location}"
    if isinstance(exc, UnexpectedResponse):
        if exc.status_code in (401, 403):
            return (f"{where} refused the request ({exc.status_code} {exc.reason_phrase}) while {what}: "
                    "check QDRANT_API_KEY.")
        body = exc.content.decode("utf-8", "replace")[:300] if exc.content else ""
        return f"{where} answered {exc.status_code} {exc.reason_phrase} while {what}: {body}"
    cause = exc.source if isinstance(exc, ResponseHandlingException) else exc
    reason = str(cause) or type(cause).__name__
    return (f"{where} cannot be reached while {what} ({reason}). Check that it is running and that "
            "QDRANT_URL (and QDRANT_API_KEY) are right, or unset QDRANT_URL to use the embedded store.")
