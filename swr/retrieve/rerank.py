"""Stages that may follow fusion, in the order the user sets: a score cutoff and a cross-encoder
reranker. Both take the fused candidate list (best first) and return a new one; the engine then
keeps the top-k.

The reranker is off by default: no cross-encoder weights are bundled. Set ``SWR_RERANK_MODEL`` to
a sentence-transformers ``CrossEncoder`` name or local path (e.g. BAAI/bge-reranker-base in the
Hugging Face cache) to turn it on.
"""
from __future__ import annotations

import logging
import threading

from swr.core.errors import BadRequest, SwrError
from swr.core.params import STAGES
from swr.core.types import Hit

log = logging.getLogger("swr.retrieve.rerank")


def cutoff(hits: list[Hit], min_score: float | None) -> list[Hit]:
    """Drop hits whose score (of the mode that ranked them) is below ``min_score``."""
    if min_score is None:
        return hits
    return [h for h in hits if h.score >= min_score]


class CrossEncoderReranker:
    """Re-score (question, sentence) pairs with a cross-encoder; thread-safe, loaded lazily."""

    def __init__(self, model: str, device: str = "auto") -> None:
        self.model_name = model
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            try:
                from sentence_transformers import CrossEncoder

                kwargs = {} if self.device == "auto" else {"device": self.device}
                self._model = CrossEncoder(self.model_name, **kwargs)
            except Exception as exc:
                raise SwrError(f"The reranker model {self.model_name!r} could not be loaded "
                               f"({type(exc).__name__}: {exc}). Put it in the Hugging Face cache or give a "
                               "local path in SWR_RERANK_MODEL, or turn the reranker off.") from exc
        return self._model

    def __call__(self, question: str, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return hits
        with self._lock:
            scores = self._load().predict([(question, h.sentence.text.strip()) for h in hits])
        for h, s in zip(hits, scores):
            h.rerank_score = float(s)
            h.score = float(s)
        return sorted(hits, key=lambda h: -h.score)


def apply(stages: list[str], hits: list[Hit], question: str, *, min_score: float | None,
          reranker: CrossEncoderReranker | None) -> list[Hit]:
    """Run the post-fusion stages in the given order."""
    for stage in stages:
        if stage not in STAGES:
            raise BadRequest(f"Unknown stage {stage!r}: use {', '.join(STAGES)}.")
        if stage == "cutoff":
            hits = cutoff(hits, min_score)
        elif stage == "rerank":
            if reranker is None:
                raise BadRequest("The reranker is off: set SWR_RERANK_MODEL to a cross-encoder model.")
            hits = reranker(question, hits)
    return hits
