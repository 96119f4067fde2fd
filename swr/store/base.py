"""The store interface both backends implement, and the point layout they share.

One collection holds every knowledge base (tenant). Points:
- one per sentence (``type="s"``): id uuid5(kb, doc_id, i), dense vector ``dense``, sparse ``bm25``,
  payload = :class:`swr.core.types.Sentence` fields;
- one per document (``type="d"``), written after all its sentences, so a document interrupted
  mid-indexing is never listed as complete;
- one per knowledge base (``type="k"``), so an empty knowledge base exists;
- one for the collection (``type="m"``): model, runtime, vector size, splitter version.
Every query filters by ``kb`` (a keyword payload index marked as tenant) and ``type``.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from swr.core.errors import ModelMismatch
from swr.core.ids import sentence_id
from swr.core.params import RetrievalParams, check_search
from swr.core.types import DocInfo, Hit, Hits, Sentence
from swr.text.sparse import SparseVec

DENSE, SPARSE = "dense", "bm25"
RRF_K = 60
SENTENCE_FIELDS = set(Sentence.__dataclass_fields__)




_D = RetrievalParams()  # the defaults are written once, in swr/core/params.py


@dataclass
class SearchRequest:
    """One retrieval: vectors of the question, mode, sizes, fusion and filters.

    Build it with :meth:`from_params`; the field defaults are :class:`swr.core.params.RetrievalParams`'
    (tests and benchmarks that build one by hand get the same ones as the chat).
    """

    kb: str
    dense: np.ndarray | None
    sparse: SparseVec | None
    mode: str = _D.mode
    top_k: int = _D.top_k
    dense_k: int = _D.dense_k
    sparse_k: int = _D.sparse_k
    fusion: str = _D.fusion
    dense_weight: float = _D.dense_weight
    sources: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    lang: str | None = None

    @classmethod
    def from_params(cls, kb: str, dense, sparse, params: RetrievalParams, *,
                    top_k: int | None = None) -> "SearchRequest":
        """The request of ``params`` (``top_k`` overrides its top_k: a reranker's larger pool)."""
        return cls(kb=kb, dense=dense, sparse=sparse, mode=params.mode, top_k=top_k or params.top_k,
                   dense_k=params.dense_k, sparse_k=params.sparse_k, fusion=params.fusion,
                   dense_weight=params.dense_weight, sources=list(params.sources), tags=list(params.tags),
                   lang=params.lang)

    def validate(self) -> None:
        check_search(self.mode, self.fusion, self.top_k, self.dense_weight)


def point_record(pid, payload: dict, vector) -> dict:
    """One exported point (:meth:`Store.export_points`) from a backend's id, payload and named
    vectors (``{"dense": [...], "bm25": <sparse with .indices/.values>}`` or none)."""
    vector = vector if isinstance(vector, dict) else {}
    dense = vector.get(DENSE)
    sp = vector.get(SPARSE)
    return {"id": str(pid), "payload": dict(payload or {}),
            "dense": None if dense is None else [float(x) for x in dense],
            "sparse": None if sp is None else {"indices": [int(i) for i in sp.indices],
                                                "values": [float(v) for v in sp.values]}}


def sentence_from_payload(p: dict) -> Sentence:
    return Sentence(**{k: v for k, v in p.items() if k in SENTENCE_FIELDS})


def check_meta(stored: dict, wanted: dict) -> None:
    """Refuse to mix embedding models in one collection, with the way out."""
    if stored.get("model") != wanted.get("model") or int(stored.get("dim", 0)) != int(wanted.get("dim", 0)):
        raise ModelMismatch(
            f"This store was built with the embedding model {stored.get('model')!r} "
            f"({stored.get('dim')} dimensions, runtime {stored.get('runtime')}), but {wanted.get('model')!r} "
            f"({wanted.get('dim')} dimensions) is configured. Either set SWR_EMBED_MODEL={stored.get('model')} "
            "again, or re-index into a fresh store: set another SWR_COLLECTION (or SWR_HOME) and run "
            "`python -m swr index ...` again, or delete the old collection's folder.")
    check_sparse(stored, wanted)


def check_sparse(stored: dict, wanted: dict) -> None:
    """Sparse vectors of two tokenizers do not mix either."""
    if stored.get("sparse") and wanted.get("sparse") and stored["sparse"] != wanted["sparse"]:
        raise ModelMismatch(
            f"This store's BM25 vectors were built with the tokenizer {stored['sparse']!r}, but "
            f"{wanted['sparse']!r} is configured (SWR_SPARSE). Set SWR_SPARSE back, or re-index into a fresh "
            "store (another SWR_COLLECTION or SWR_HOME).")


def search_conditions(req: SearchRequest) -> dict:
    """The payload conditions of a search, for either backend's filter builder: sentences of the
    request's knowledge base, narrowed by its filters (None: no condition)."""
    return {"type": "s", "kb": req.kb, "source": req.sources or None, "tags": req.tags or None, "lang": req.lang}


def assemble_hits(req: SearchRequest, lists: dict[str, list[tuple[str, float]]],
                  sentences: Callable[[list[str]], dict[str, Sentence | None]]) -> Hits:
    """The hits of one search from its result lists (``"dense"``, ``"sparse"``, ``"hybrid"``:
    ``(point id, score)`` best first), the same way in both backends.

    The list of the request's mode ranks (dense when the mode's list is missing, else sparse);
    a sparse or fused score of 0 means no shared term and is no hit. ``sentences(ids)`` gives the
    top hits' stored sentences (a point deleted meanwhile has none and is skipped); every hit is annotated
    with its dense and sparse ranks and scores; the dense list rides along as ``dense_pool``.
    """
    if not lists:
        return Hits()
    top = _top(req, lists)
    found = sentences([pid for pid, _ in top]) if top else {}
    hits, ids = [], []
    for pid, score in top:
        if found.get(pid) is None:  # deleted between the search and the fetch
            continue
        hits.append(Hit(sentence=found[pid], score=float(score)))
        ids.append(pid)
    merge_ranks(hits, lists.get("dense", []), lists.get("sparse", []), ids)
    return Hits(hits, lists.get("dense", []))


def _top(req: SearchRequest, lists: dict[str, list[tuple[str, float]]]) -> list[tuple[str, float]]:
    """The ranking list's hits of one search: ``(point id, score)``, at most ``top_k``."""
    primary = req.mode if req.mode in lists else ("dense" if "dense" in lists else "sparse")
    return [(pid, s) for pid, s in lists[primary] if s > 0 or primary == "dense"][:req.top_k]


def top_ids(req: SearchRequest, lists: dict[str, list[tuple[str, float]]]) -> list[str]:
    """The point ids :func:`assemble_hits` will ask sentences of (a backend batching several
    searches fetches them all at once)."""
    return [pid for pid, _ in _top(req, lists)] if lists else []


def merge_ranks(fused: list[Hit], dense: list[tuple[str, float]], sparse: list[tuple[str, float]],
                ids: list[str]) -> None:
    """Annotate hits with their rank and score in the dense and the sparse candidate lists."""
    dpos = {pid: (r + 1, s) for r, (pid, s) in enumerate(dense)}
    spos = {pid: (r + 1, s) for r, (pid, s) in enumerate(sparse)}
    for rank, (h, pid) in enumerate(zip(fused, ids), start=1):
        h.rank = rank
        if pid in dpos:
            h.dense_rank, h.dense_score = dpos[pid]
        if pid in spos:
            h.sparse_rank, h.sparse_score = spos[pid]


_WRITES = itertools.count(1)  # process-wide: a deleted and re-created kb never repeats a number


class Store(ABC):
    """What the engine needs from a vector store."""

    backend: str = ""
    location: str = ""

    def generation(self, kb: str) -> int:
        """A number that changes whenever this process writes to ``kb`` through this store (an
        index, a delete, a restore): caches of what a knowledge base holds key on it instead of
        asking the store per question (swr/retrieve/crosslingual.py). Another process's writes to a shared
        server are not seen, so such caches also expire."""
        return self.__dict__.get("_generations", {}).get(kb, 0)

    def generations(self) -> dict[str, int]:
        """Every knowledge base's :meth:`generation` now (a copy): read before a fetch, so what the
        fetch returns is remembered under the generations it may predate."""
        return dict(self.__dict__.get("_generations", {}))

    def wrote(self, kb: str) -> None:
        """Record a write to ``kb`` (the backends call it from every write method)."""
        self.__dict__.setdefault("_generations", {})[kb] = next(_WRITES)

    @abstractmethod
    def ensure(self, meta: dict) -> None:
        """Create the collection for ``meta`` (model, runtime, dim, ...) or check it matches."""

    @abstractmethod
    def meta(self) -> dict | None:
        """The collection's recorded metadata, or None before the first ``ensure``."""

    @abstractmethod
    def upsert(self, sentences: list[Sentence], dense: np.ndarray, sparse: list[SparseVec]) -> None:
        """Write sentence points (idempotent: ids are stable)."""

    @abstractmethod
    def put_doc(self, kb: str, info: DocInfo) -> None:
        """Write (or overwrite) a document's record."""

    @abstractmethod
    def docs(self, kb: str, source: str | None = None, doc_id: str | None = None) -> list[DocInfo]:
        """Document records of a knowledge base (optionally only one source name or doc id)."""

    @abstractmethod
    def kbs(self) -> list[str]:
        """Knowledge base names."""

    @abstractmethod
    def create_kb(self, kb: str) -> None:
        """Record a knowledge base (idempotent)."""

    @abstractmethod
    def delete_kb(self, kb: str) -> int:
        """Delete every point of one knowledge base; returns the number of sentences removed."""

    @abstractmethod
    def delete_doc(self, kb: str, doc_id: str) -> int:
        """Delete a document's sentences and record; returns the number of sentences removed."""

    @abstractmethod
    def search(self, req: SearchRequest) -> Hits:
        """Hits of one knowledge base, best first, each with dense/sparse ranks and scores."""

    def search_many(self, reqs: list[SearchRequest]) -> list[Hits]:
        """:meth:`search` of each request, in order. A backend answers them all in one batched
        call (a cross-lingual question's lists, swr/retrieve/crosslingual.py); this default searches one
        by one."""
        return [self.search(req) for req in reqs]

    def sparse_any(self, kb: str, lang: str | None, vectors: list) -> list[bool]:
        """For each sparse vector, whether any ``lang`` sentence of ``kb`` shares a term with it
        (the cross-lingual dictionary's "do these documents use this word" probes). A backend
        answers all of them in one batched call; this default searches one by one."""
        return [bool(self.search(SearchRequest(kb=kb, dense=None, sparse=v, mode="sparse", top_k=1, lang=lang)))
                for v in vectors]

    @abstractmethod
    def get(self, ids: list[str]) -> list[Sentence]:
        """Sentences by point id (missing ids are skipped)."""

    def fetch_sentences(self, kb: str, keys) -> dict[tuple[str, int], Sentence]:
        """Sentences of ``kb`` by ``(doc_id, i)``, keyed so (missing ones are skipped): the
        neighbour fetch of window building (:func:`swr.retrieve.window.build`)."""
        ids = [sentence_id(kb, d, i) for d, i in keys]
        return {(s.doc_id, s.i): s for s in self.get(ids)} if ids else {}

    def fetch_vectors(self, kb: str, keys) -> dict[tuple[str, int], np.ndarray]:
        """Stored dense vectors of ``kb``'s sentences by ``(doc_id, i)`` (missing ones skipped):
        the neighbour vectors of budget windows (:mod:`swr.retrieve.expand`)."""
        keys = list(keys)
        ids = [sentence_id(kb, d, i) for d, i in keys]
        found = self.vectors(ids) if ids else {}
        return {k: found[pid] for k, pid in zip(keys, ids) if pid in found}

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors by point id (missing ids are skipped). A backend that cannot
        return them answers ``{}`` and callers embed instead."""
        return {}

    @abstractmethod
    def export_points(self, kb: str, doc_id: str | None = None) -> list[dict]:
        """Every point of a knowledge base (sentences, document and knowledge-base records), or of
        one document (its sentences and record), with payload and vectors, as plain JSON-ready
        dicts ``{"id", "payload", "dense": [floats] | None, "sparse": {"indices", "values"} | None}``:
        what :meth:`import_points` writes back unchanged (the trash: restoring never re-embeds)."""

    @abstractmethod
    def import_points(self, records: list[dict]) -> int:
        """Write points exported by :meth:`export_points` back (idempotent); returns how many."""

    @abstractmethod
    def scroll_doc(self, kb: str, doc_id: str) -> list[Sentence]:
        """All sentences of one document, in order."""

    @abstractmethod
    def count(self, kb: str | None = None) -> int:
        """Number of sentence points (of one knowledge base, or all)."""

    def close(self) -> None:  # noqa: B027  (optional: a backend without resources keeps it)
        """Release the store (flush, unlock)."""
