"""Sparse BM25 vectors that Qdrant scores as BM25 (documents: saturated TF; queries: weight 1;
the collection's IDF modifier multiplies by IDF at query time, so IDF stays right as documents
come and go).

We use Qdrant's own BM25 (``qdrant_edge.Bm25`` with the multilingual tokenizer) rather than a
hand-written one: it needs no download, handles Chinese, and is the same code Qdrant runs, so both
store backends get identical vectors (we compute them on the client for the server backend too).
``avg_len`` is set for sentences, not for the 256-token documents Qdrant assumes by default:
every point here is one sentence.
"""
from __future__ import annotations

from dataclasses import dataclass

SPARSE_VERSION = "qdrant-bm25-multilingual-1"
AVG_SENTENCE_TOKENS = 20.0


@dataclass(frozen=True)
class SparseVec:
    indices: list[int]
    values: list[float]


class SparseEncoder:
    """BM25 document and query vectors."""

    version = SPARSE_VERSION

    def __init__(self, avg_len: float = AVG_SENTENCE_TOKENS) -> None:
        import qdrant_edge as q

        self._bm25 = q.Bm25(q.Bm25Config(tokenizer=q.TokenizerType.Multilingual, avg_len=avg_len))

    def encode_documents(self, texts: list[str]) -> list[SparseVec]:
        """One vector per sentence (saturated term frequencies)."""
        out = []
        for t in texts:
            v = self._bm25.embed_document(t)
            out.append(SparseVec(list(v.indices), list(v.values)))
        return out

    def encode_query(self, text: str) -> SparseVec:
        """The question's terms, each with weight 1."""
        v = self._bm25.embed_query(text)
        return SparseVec(list(v.indices), list(v.values))
