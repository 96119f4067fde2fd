"""The subject documents' own lists in a cross-lingual search (:mod:`swr.retrieve.crosslingual`).

When the question names a product (:mod:`swr.retrieve.aliases`), the named documents are searched
on their own in each language, with the naming words left out of BM25, and fused here (dense by
DBSF, BM25 by its best score), so the named manual's own sentences compete with the lists of the
whole knowledge base.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from swr.core.params import MAX_TOP_K
from swr.core.rules.crosslingual import DEFAULT_RULES, CrossLingualRules, XlRule
from swr.core.types import Hit
from swr.store import SearchRequest
from swr.store.fusion import dbsf_norm
from swr.text.claims import codes
from swr.text.sparse import SparseVec

_WORDY = re.compile(r"\w")


def subject_part(store, embed_query: Callable, encode_sparse: Callable, req: SearchRequest, question: str, plan,
                 lists: list, vectors: dict, langs: list[str], subjects, bonus: float, version,
                 embed_queries: Callable | None, rules: CrossLingualRules = DEFAULT_RULES
                 ) -> tuple[dict[str, float], set[str]]:
    """The documents ``question`` names (source -> weight) and those about another product, after
    appending to ``lists`` each searched language's list of the named documents alone (their
    BM25 without the words that named them, their dense vector from the question without its
    product's name). ``plan`` records the searches, embeddings, subjects and foreign documents.
    Cost: one store call (every list batched) and one query embedding per stripped question.
    """
    weights: dict[str, float] = {}
    foreign: set[str] = set()
    if subjects is None or not bonus > 0:
        return weights, foreign
    qlang = plan.question_lang
    weights, named = _named(req.kb, question, plan, subjects, version)
    if req.sources:
        weights = {s: w for s, w in weights.items() if s in req.sources}
    plan.subjects = weights
    drop = set(encode_sparse(" ".join(sorted(named))).indices) if weights else set()
    if weights:  # the documents about another product: a subject of their own, not named; with
        # rules.other_product_code only when a named one is a product with a model number (a help
        # centre's articles have topics: none is another product of the one a word named)
        learned, _ = subjects.learn(req.kb, version)
        plan.unnamed = {src for src, terms in learned.items() if terms and src not in weights}
        if not rules.other_product_code or any(codes(t) for src in weights for t in learned.get(src, ())):
            foreign = set(plan.unnamed)
        plan.foreign = set(foreign)
    if weights:  # the subject documents on their own, in each language searched; inside
        # them the words naming the subject say nothing, so BM25 goes by the other words
        texts = {qlang: question, **plan.translations}
        sub_langs = [lang for lang in langs if lang in vectors or lang == qlang]
        rests = {}
        for lang in sub_langs:
            rest = subjects.strip(texts.get(lang, question), named)
            if vectors.get(lang, vectors[qlang])[0] is not None and rest and rest != texts.get(lang, question) \
                    and _WORDY.search(rest):
                rests[lang] = rest
        # the questions without their product's name, in one model call
        rest_vecs = dict(zip(rests, embed_queries(list(rests.values())) if embed_queries and len(rests) > 1
                             else [embed_query(t) for t in rests.values()]))
        plan.embeddings += len(rests)
        reqs = []
        for lang in sub_langs:
            dense, sparse = vectors.get(lang, vectors[qlang])
            if sparse is not None:
                keep = [(i, v) for i, v in zip(sparse.indices, sparse.values) if i not in drop]
                sparse = SparseVec([i for i, _ in keep], [v for _, v in keep]) if keep else sparse
            reqs.append(replace(req, lang=lang, sources=list(weights), dense=rest_vecs.get(lang, dense),
                                sparse=sparse))
        for lang, (sub, n) in zip(sub_langs, subject_lists(store, reqs, rules.subject_depth)):
            plan.searches += n
            lists.append(("translation" if lang != qlang else None, sub, True))
    return weights, foreign


def _named(kb: str, question: str, plan, subjects, version) -> tuple[dict[str, float], set[str]]:
    """:meth:`Subjects.naming` of the question and its translations (no topic word names a
    document: SubjectRules.name_spread); ``plan.topic_words`` records them and the documents they named."""
    texts = [question, *plan.translations.values()]
    weights, named, ignore = subjects.naming(kb, texts, version=version)
    if ignore:
        before = set(subjects.match(kb, texts, version=version)[0])
        plan.topic_words = {"words": sorted(ignore), "sources": sorted(before - set(weights))}
    return weights, named


def mark_unnamed(hits: list[Hit], plan) -> list[Hit]:
    """``hits``, those of a document a topic word would have named traced ``topic_word`` (why it got
    no bonus: ``plan.topic_words``, :func:`subject_part`)."""
    unnamed = set(plan.topic_words.get("sources", ()))
    for h in hits:
        if h.sentence.source in unnamed:
            h.trace = [*(h.trace or []), XlRule.TOPIC_WORD.value]
    return hits


def said_in(store, encode_sparse: Callable, kb: str, term: str) -> int:
    """How many of ``kb``'s documents say ``term``: the sources of its BM25 hits, up to the store's
    largest top k of sentences (a word said more widely than that is said throughout)."""
    sparse = encode_sparse(term)
    if sparse is None or not sparse.indices:
        return 0
    hits = store.search(SearchRequest(kb=kb, dense=None, sparse=sparse, mode="sparse", top_k=MAX_TOP_K,
                                      sparse_k=MAX_TOP_K))
    return len({h.sentence.source for h in hits})


def subject_lists(store, reqs: list[SearchRequest], depth: int = DEFAULT_RULES.subject_depth
                  ) -> list[tuple[list[Hit], int]]:
    """Hybrid hits of the subject documents for each request (``depth`` per dense and BM25 list),
    fused here: (hits, searches made) per request; every request's searches go to the store as one batch.

    Qdrant's DBSF maps a candidate list of one to zero (its spread is zero), and inside a
    product's own manual the BM25 list is often that short ("容量" is in one sentence); so the
    dense scores are normalised DBSF's way (mean +- 3 sigma) and the BM25 scores by the best one,
    then added, as DBSF adds them.
    """
    kinds = []
    for req in reqs:
        kinds.append([kind for kind, ok in (
            ("dense", req.mode in ("dense", "hybrid") and req.dense is not None),
            ("sparse", req.mode in ("sparse", "hybrid") and req.sparse is not None and bool(req.sparse.indices)))
            if ok])
    found = iter(store.search_many([replace(req, mode=kind, top_k=depth)
                                    for req, ks in zip(reqs, kinds) for kind in ks]))
    return [_subject_fused([(kind, next(found)) for kind in ks]) for ks in kinds]


def _subject_fused(parts: list[tuple[str, list[Hit]]]) -> tuple[list[Hit], int]:
    """One subject list from its dense and BM25 parts (:func:`subject_lists`)."""
    merged: dict[tuple[str, int], tuple[float, Hit]] = {}
    for kind, hits in parts:
        if not hits:
            continue
        vals = [h.score for h in hits]
        norm = dbsf_norm(vals) if kind == "dense" else [v / vals[0] if vals[0] > 0 else 0.0 for v in vals]
        for r, (h, v) in enumerate(zip(hits, norm), start=1):
            key = (h.sentence.doc_id, h.sentence.i)
            total, first = merged.get(key, (0.0, h))
            if kind == "dense":
                first.dense_score, first.dense_rank = h.score, r
            else:
                first.sparse_score, first.sparse_rank = h.score, r
            merged[key] = (total + v, first)
    out = []
    for total, h in sorted(merged.values(), key=lambda t: -t[0]):
        h.score = total
        out.append(h)
    return out, len(parts)
