"""Stable ids: a sentence's, a document's and a knowledge base's point id (uuid5, so re-indexing the
same file writes the same points and a window's neighbours are fetched by computed id)."""
from __future__ import annotations

import uuid
from functools import lru_cache

from swr.core.rules.serving import DEFAULT_SERVING

NS = uuid.UUID("5b7f1f0e-3c1d-4f0e-9a59-2f6f6c0c5a11")
META_ID = str(uuid.uuid5(NS, "meta"))  # the collection's own record: model, runtime, versions


@lru_cache(maxsize=DEFAULT_SERVING.sentence_id_cache)
def sentence_id(kb: str, doc_id: str, i: int) -> str:
    """Stable point id of sentence ``i`` of a document in a knowledge base (remembered: a question
    computes the ids of its hits, their neighbours and answerability's pool again and again)."""
    return str(uuid.uuid5(NS, f"s\x1f{kb}\x1f{doc_id}\x1f{i}"))


def doc_record_id(kb: str, doc_id: str) -> str:
    return str(uuid.uuid5(NS, f"d\x1f{kb}\x1f{doc_id}"))


def kb_record_id(kb: str) -> str:
    return str(uuid.uuid5(NS, f"k\x1f{kb}"))
