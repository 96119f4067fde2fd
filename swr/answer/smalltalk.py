"""Small talk: a question closer to chat than to the knowledge base (rule ``answerable.small_talk``).

e5 puts "How are you today?" at 0.87 from a novel's dialogue and "你叫什么名字？" at 0.87 from a
Wikipedia paragraph that names someone: the bars answered them with a term found ("you", "名字").
A support chat meets such questions every day. Each question is compared with 60 small-talk
questions written for swr in both languages (``data/smalltalk.tsv``: greetings, thanks, the
assistant itself, jokes, weather, time, recommendations); one that is closer to one of them than
:attr:`swr.core.rules.answerable.AnswerRules.small_talk` and closer by
``small_talk_margin`` than to the knowledge base's best sentence is refused as small talk. The
examples are embedded once per process and embedding model; the question's vector is the one its
retrieval embedded (passed along, else the embedder's query cache).
"""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from swr.embed.base import model_key

EXAMPLES = Path(__file__).with_name("data") / "smalltalk.tsv"
_VECS: dict[tuple, tuple[list[str], np.ndarray]] = {}  # (embedder class, model, runtime, dim) -> examples
_LOCK = threading.Lock()


def examples() -> list[str]:
    """The small-talk questions (the file's second column)."""
    rows = [line.split("\t", 1) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    return [text.strip() for _, text in rows]


def _vectors(embedder) -> tuple[list[str], np.ndarray]:
    key = model_key(embedder)
    with _LOCK:
        got = _VECS.get(key)
    if got is None:
        texts = examples()
        got = (texts, np.asarray(embedder.encode_queries(texts), dtype=np.float32))
        with _LOCK:
            _VECS[key] = got
    return got


def closest(embedder, question: str, vector=None) -> tuple[float, str]:
    """(cosine, text) of the small-talk example closest to ``question`` (``vector``: its query vector,
    when its retrieval has it: a regenerated answer asks nothing of the embedder about the question)."""
    texts, vecs = _vectors(embedder)
    q = np.asarray(embedder.encode_query(question) if vector is None else vector, dtype=np.float32)
    sims = vecs @ q
    i = int(np.argmax(sims))
    return float(sims[i]), texts[i]


def small_talk(embedder, question: str, cos: float, rules, vector=None) -> str | None:
    """Why ``question`` is small talk (None: it is not): its closest example scores ``rules.small_talk``
    or more, and ``rules.small_talk_margin`` more than ``cos``, the knowledge base's best sentence
    (``rules``: :class:`swr.core.rules.answerable.AnswerRules`; ``vector``: the question's, if known)."""
    bar, margin = rules.small_talk, rules.small_talk_margin
    near, text = closest(embedder, question, vector)
    if near >= bar and near - cos >= margin:
        return (f"this reads as small talk (cosine {near:.3f} to \"{text}\", {near - cos:.3f} above the "
                f"knowledge base's closest sentence, {cos:.3f})")
    return None
