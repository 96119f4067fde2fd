"""One question's search: its vectors, the store's (or the cross-lingual) hits, the post-fusion
stages, and the typed :class:`Retrieval` the engine builds windows and answers from."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from swr.core.lang import detect_lang
from swr.core.params import MAX_TOP_K, RetrievalParams
from swr.core.types import Hit, Hits, Passage
from swr.retrieve import expand, rerank, xl_fuse
from swr.store import SearchRequest


@dataclass
class Retrieval:
    """Hits of one question with the knobs that produced them; windows are built from it later."""

    question: str
    kb: str
    hits: list[Hit]
    params: dict  # request.to_dict() without window_size: the "settings" of an answer
    timings: dict = field(default_factory=dict)
    request: RetrievalParams | None = None  # the typed knobs (None only for hand-built retrievals)
    query_vector: object = None  # the question's dense vector (numpy), for budget windows
    query_tokens: list[str] | None = None  # the question's BM25 terms (SparseEncoder.query_tokens)
    dense_pool: list | None = None  # the dense candidates (point id, cosine) of the question's vector (types.Hits)
    translated_pool: list | None = None  # those of its translations' vectors (cross-lingual search)
    named: frozenset = frozenset()  # the documents the question names (Hits.named)
    foreign: frozenset = frozenset()  # another product's documents than the question names (Hits.foreign)
    # whether the first k hits are what a search at top_k k returns (:meth:`prefix`): not after a
    # cross-lingual fusion over several languages, whose placements depend on the top k it fills
    prefix_exact: bool = True
    translations: dict = field(default_factory=dict)  # the question's translations searched, by language (Hits)
    cosines: dict = field(default_factory=dict)  # each searched list's dense cosines, best first (Hits)

    @property
    def answer_pool(self) -> list:
        """The dense candidates answerability reads (both pools)."""
        return [*(self.dense_pool or ()), *(self.translated_pool or ())]

    def prefix(self, k: int) -> "Retrieval":
        """The first ``k`` hits, as if searched with ``top_k=k`` (the store guarantees the top-k
        list is a prefix of the top-K list; a cross-lingual fusion does not: :attr:`prefix_exact`)."""
        req = self.request.with_(top_k=k) if self.request is not None else None
        return replace(self, hits=self.hits[:k], params={**self.params, "top_k": k}, timings=dict(self.timings),
                       request=req, translations=dict(self.translations), cosines=dict(self.cosines))


def rerank_pool(rp: RetrievalParams) -> int | None:
    """The candidates the store returns when the reranker runs (it sees a larger pool than top_k)."""
    return min(max(rp.top_k * 3, 20), MAX_TOP_K) if "rerank" in rp.stages else None


_DEFAULTS = RetrievalParams()  # frozen: built once, not per question


def request_stamp(rp: RetrievalParams) -> dict:
    """The settings an answer records of its request: every knob but ``window_size`` (the windows'),
    and the cross-lingual rules only when the request changed them."""
    # the defaults: a stamp names what a request changed
    same = {name for name in ("crosslingual", "condense", "extractive")
            if getattr(rp, name) == getattr(_DEFAULTS, name)}
    return rp.to_dict(skip={"window_size", *same})


def search(question: str, kb: str, rp: RetrievalParams, *, store, embedder, sparse, crosslingual,
           reranker=None) -> Retrieval:
    """Search ``kb`` for a checked ``question`` under validated knobs ``rp``: the hits, no windows.

    Both vectors in every mode, so every hit can show its dense and its sparse rank; the question's
    translations (cross-lingual search, unless ``rp.lang`` filters one language) are embedded with
    it, in one model call. The post-fusion ``rp.stages`` run on the fused list, then its top-k stay and no
    more (a reranker compares the languages itself: the places cross-lingual search adds are not kept).
    """
    t0 = time.perf_counter()
    xl = crosslingual is not None and crosslingual.enabled
    extra = crosslingual.prefetch(kb, question, rp.crosslingual, rp.glossary) if xl and not rp.lang else []
    batch = getattr(embedder, "encode_queries", None)
    dense = batch([question, *extra])[0] if extra and batch else embedder.encode_query(question)
    t1 = time.perf_counter()
    req = SearchRequest.from_params(kb, dense, sparse.encode_query(question), rp, top_k=rerank_pool(rp))
    found = Hits.of(crosslingual.search(req, question, rp.crosslingual, rp.glossary) if xl else store.search(req))
    hits: list[Hit] = found
    for h in hits:
        h.fused_score = h.score
    if rp.stages:
        hits = rerank.apply(list(rp.stages), hits, question, min_score=rp.min_score, reranker=reranker)[:rp.top_k]
        for r, h in enumerate(hits, start=1):
            h.rank = r
    t2 = time.perf_counter()
    terms = sparse.query_tokens(question)  # what the sparse side searched for, and each hit's share
    for h in hits:
        h.matched_tokens = sparse.matched_tokens(terms, h.sentence.text)
    # answerability's best cosine (swr.answer.answerable) reads the question's own vector's and its
    # translations' dense candidates, and the documents the question names
    return Retrieval(question=question, kb=kb, hits=hits, params=request_stamp(rp),
                     timings={"embed_ms": round((t1 - t0) * 1000, 2), "search_ms": round((t2 - t1) * 1000, 2)},
                     request=rp, query_vector=dense, query_tokens=terms, dense_pool=list(found.dense_pool),
                     translated_pool=list(found.translated_pool), named=frozenset(found.named),
                     foreign=frozenset(found.foreign), translations=dict(found.translations),
                     prefix_exact=not (xl and len(found.cosines) > 1),
                     cosines=dict(found.cosines) or _own_cosines(question, found))


def _own_cosines(question: str, found: Hits) -> dict:
    """A plain (not cross-lingual) search's one list of dense cosines, keyed as the cross-lingual
    search keys its lists (:func:`swr.retrieve.xl_fuse.list_cosines`)."""
    return xl_fuse.list_cosines({detect_lang(question): found}, {})


def windows(retrieval: Retrieval, rp: RetrievalParams, *, fetch, fetch_vectors, encode_query,
            kept: dict | None = None) -> list[Passage]:
    """``retrieval``'s hits widened into merged windows under validated knobs ``rp``
    (:func:`swr.retrieve.expand.build`); ``fetch`` / ``fetch_vectors`` read stored sentences and
    vectors by ``(doc_id, i)``. Budget windows of a hand-built retrieval without its question
    vector get it from ``encode_query`` (the query cache). ``kept`` (a dict) receives the stored
    sentences the windows were built from, the hits' own included, by ``(doc_id, i)``."""
    if kept is not None:
        kept.update(((h.sentence.doc_id, h.sentence.i), h.sentence) for h in retrieval.hits)
        inner = fetch

        def fetch(keys):
            got = inner(keys)
            kept.update(got)
            return got

    query = retrieval.query_vector
    if rp.window_mode == "budget" and query is None and retrieval.hits:
        query = encode_query(retrieval.question)
    return expand.build(retrieval.hits, rp.window_mode, window_size=rp.window_size, budget_chars=rp.budget_chars,
                        fetch=fetch, fetch_vectors=fetch_vectors, query=query)
