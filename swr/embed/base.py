"""The `Embedder` interface every runtime implements, the e5 prefixes, and the question-first lock
the runtimes share."""
from __future__ import annotations

import contextlib
import logging
import threading
import time

import numpy as np

log = logging.getLogger("swr.embed.base")

E5_SMALL = "intfloat/multilingual-e5-small"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def prefixes(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) the model was trained with."""
    low = model.lower()
    if "e5" in low and "instruct" not in low:
        return "query: ", "passage: "
    if "bge" in low and ("-en" in low or "zh" in low) and "m3" not in low:
        en = "Represent this sentence for searching relevant passages: "
        query = en if "-en" in low else "为这个句子生成表示以用于检索相关文章："
        return (query, "")
    return "", ""


def model_key(embedder) -> tuple:
    """What makes two embedders give the same vectors: (class, model, runtime, dimension). Keys the
    per-process caches of texts swr ships and embeds once (xl_centre's parallel sentences, the
    small-talk examples)."""
    return (type(embedder).__name__, getattr(embedder, "name", None), getattr(embedder, "runtime", None),
            getattr(embedder, "dim", None))


class Embedder:
    """Base class: ``encode_passages`` and ``encode_query`` return L2-normalised float32 arrays."""

    name: str = ""
    runtime: str = ""
    device: str = "cpu"
    dim: int = 0
    # whether a text's vector is bit-identical alone and in a batch: only then are concurrent
    # questions embedded together (swr.embed.batch), which may not change an answer
    batch_invariant: bool = False

    def __init__(self) -> None:
        self.calls = 0  # model invocations (not cache hits)
        self.encoded = 0  # texts sent to the model
        self.seconds = 0.0  # time spent in the model
        # one forward pass at a time, questions first: a passage call takes it per model batch
        self._lock = QuestionsFirst()

    @property
    def sentences_per_s(self) -> float | None:
        """Measured throughput of this process so far."""
        return self.encoded / self.seconds if self.seconds > 0 and self.encoded >= 8 else None

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """Embed documents' sentences (passage prefix applied here)."""
        return self._timed(texts, is_query=False)

    def encode_query(self, text: str) -> np.ndarray:
        """Embed one question (query prefix applied here)."""
        return self._timed([text], is_query=True)[0]

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Embed several questions in one model call (a question and its translations)."""
        return self._timed(list(texts), is_query=True)

    def _timed(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        t0 = time.perf_counter()
        out = self._encode(texts, is_query)
        with self._count_lock:
            self.calls += 1
            self.encoded += len(texts)
            self.seconds += time.perf_counter() - t0
        return np.asarray(out, dtype=np.float32)

    _count_lock = threading.Lock()

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:  # pragma: no cover
        """Embed ``texts``; each model batch runs inside ``self._model_turn(is_query)``."""
        raise NotImplementedError

    def _model_turn(self, is_query: bool):
        """The context one model batch runs in. A question waits for at most the batch that is
        running, never for a whole passage call (the indexer sends 1,024 sentences per call: a
        question asked meanwhile waited ~20 s)."""
        return self._lock.turn(priority=is_query)

    def info(self) -> dict:
        return {"model": self.name, "runtime": self.runtime, "device": self.device, "dim": self.dim,
                "sentences_per_s": self.sentences_per_s}

class QuestionsFirst:
    """A lock whose waiting questions go before waiting passage batches.

    ``threading.Lock`` wakes waiters in no set order; a question waiting behind a stream of
    passage batches could wait for several. Written by hand because the standard library has no
    priority lock; it is a ``Condition`` with a count of waiting questions.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._held = False
        self._questions = 0

    @contextlib.contextmanager
    def turn(self, priority: bool):
        with self._cond:
            if priority:
                self._questions += 1
                try:
                    self._cond.wait_for(lambda: not self._held)
                finally:
                    self._questions -= 1
            else:
                self._cond.wait_for(lambda: not self._held and not self._questions)
            self._held = True
        try:
            yield
        finally:
            with self._cond:
                self._held = False
                self._cond.notify_all()
