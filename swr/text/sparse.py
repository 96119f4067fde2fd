"""Sparse BM25 vectors that Qdrant scores as BM25.

Documents get saturated term frequencies, queries weight 1 per term, and the collection's IDF
modifier multiplies by IDF at query time, so IDF stays right as documents come and go. Vectors
are computed on the client, so both store backends (Qdrant Edge and a Qdrant server) get the
exact same vectors and tokenization. Every point is one sentence, so ``avg_len`` is set for
sentences, not for the 256-token documents Qdrant's BM25 assumes by default.

Two tokenizers:
- ``jieba`` (default): jieba's search-mode segmentation for Chinese documents (a long word also
  yields its sub-words), its precise mode for questions (a long word counts once), dictionary
  words only; model numbers, error codes and versions kept whole, and in documents also in parts
  and joined ("KX-2000" -> kx-2000, kx, 2000, kx2000; "E4" -> e4; "1800W" -> 1800w, 1800);
  English lower-cased, stop words dropped, Snowball-stemmed; Chinese function and question words
  dropped.
- ``qdrant``: Qdrant's own ``Bm25`` with its multilingual tokenizer (``qdrant_edge.Bm25``).
  Measured on CMRC 2018 dev, 300 questions, sparse only (``bench/hybrid.py``): qdrant 0.627 /
  0.780 / 0.883 hit@1/3/10 against jieba 0.617 / 0.760 / 0.863: one to two points better on
  general Chinese questions (within the noise of 300 questions). But it drops pure numbers:
  "KX-2000" becomes just "kx", so KX-2000 and KX-3000 are the same query, and "1.7" of "1.7L"
  vanishes. Model numbers and error codes are what support questions hinge on, so jieba is the
  default; ``SWR_SPARSE=qdrant`` selects Qdrant's.
"""
from __future__ import annotations

import re
import threading
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from swr.core.lang import HAN_BMP
from swr.core.rules.serving import DEFAULT_SERVING
from swr.text.stopwords import EN_STOP, ZH_STOP

AVG_SENTENCE_TOKENS = 20.0
K1, B = 1.2, 0.75


@dataclass(frozen=True)
class SparseVec:
    indices: list[int]
    values: list[float]


_TOKEN = re.compile(
    f"(?P<cjk>[{HAN_BMP}]+)"
    r"|(?P<word>[0-9a-z\u00c0-\u024f]+(?:[-._/+][0-9a-z\u00c0-\u024f]+)*)")
_PARTS = re.compile(r"[-._/+]")
_NUM_UNIT = re.compile(r"^(\d+)[a-z]{1,3}$")



_STEMMERS = threading.local()


def _stem_en(word: str) -> str:
    """The Snowball English stem of ``word``. A snowballstemmer stemmer keeps the word it is
    working on in the instance, so one shared by threads garbles words and raises IndexError (seen
    with eight askers and an upload, bench/concurrency.py): one stemmer per thread."""
    stemmer = getattr(_STEMMERS, "en", None)
    if stemmer is None:
        import snowballstemmer

        stemmer = _STEMMERS.en = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


#: thread-safe and cached (lru_cache is thread-safe; a word stemmed twice at once is harmless)
stem_en = lru_cache(maxsize=200_000)(_stem_en)

class JiebaBm25:
    """BM25 over jieba (Chinese) + a code-preserving English tokenizer."""

    version = "jieba-bm25-1"
    _init_lock = threading.Lock()

    def __init__(self, avg_len: float = AVG_SENTENCE_TOKENS) -> None:
        import jieba

        with self._init_lock:
            jieba.setLogLevel(60)
            jieba.initialize()
        self._jieba = jieba
        self._stem = stem_en
        self.avg_len = avg_len
        self.query_precise = True
        # a pure function of (text, mode): questions and the hit sentences whose matched terms are
        # shown recur, so their terms are remembered (documents being indexed are not)
        self._cached = lru_cache(maxsize=DEFAULT_SERVING.token_cache_texts)(self._tokens)

    def tokens(self, text: str, *, query: bool = False) -> list[str]:
        """The terms of ``text``, in order (repeats kept: they are the term frequencies); remembered
        for recent texts (:data:`swr.core.rules.serving.ServingRules.token_cache_texts`)."""
        return list(self._cached(text, query, query and self.query_precise))

    def _tokens(self, text: str, query: bool, precise: bool) -> tuple[str, ...]:
        return tuple(self.tokenize(text, query=query, precise=precise))

    def tokenize(self, text: str, *, query: bool = False, precise: bool | None = None) -> list[str]:
        """The terms of ``text``, in order (repeats kept: they are the term frequencies).

        Documents use jieba's search mode (a long word also yields its sub-words, so "水壶" in a
        question matches "电热水壶" in a manual); questions use its precise mode, so a long word
        in a question counts once instead of once per sub-word.
        """
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        for m in _TOKEN.finditer(text):
            if m.group("cjk"):
                # HMM off: dictionary words only (its guessed words, like "前要", match nothing)
                run = m.group("cjk")
                precise = self.query_precise if precise is None else precise
                words = self._jieba.cut(run, HMM=False) if query and precise \
                    else self._jieba.cut_for_search(run, HMM=False)
                out.extend(t for t in words if t not in ZH_STOP)
                continue
            word = m.group("word")
            parts = _PARTS.split(word)
            if len(parts) > 1:  # a code or version ("kx-2000", "1.7l")
                out.append(word)
                if not query:  # documents also index its parts and its joined form, so a question
                    # saying "2000" or "KX2000" finds "KX-2000"; a question's code counts once
                    out.extend(p for p in parts if p and p not in EN_STOP)
                    out.append("".join(parts))
            elif word not in EN_STOP:
                out.append(self._stem(word) if word.isalpha() else word)
                unit = _NUM_UNIT.match(word)
                if unit:  # "1800w" is also "1800"
                    out.append(unit.group(1))
        return out

    def embed_document(self, text: str) -> SparseVec:
        tf = Counter(self.tokenize(text))  # not remembered: a document's sentences are indexed once
        n = sum(tf.values())
        norm = K1 * (1 - B + B * n / self.avg_len)
        return _vec({t: c * (K1 + 1) / (c + norm) for t, c in tf.items()})

    def embed_query(self, text: str) -> SparseVec:
        return _vec({t: 1.0 for t in self.tokens(text, query=True)})


def _vec(weights: dict[str, float]) -> SparseVec:
    merged: dict[int, float] = {}
    for t, w in weights.items():  # crc32 is stable across processes (hash() is not)
        k = zlib.crc32(t.encode("utf-8")) & 0x7FFFFFFF
        merged[k] = max(merged.get(k, 0.0), w)
    idx = sorted(merged)
    return SparseVec(idx, [float(merged[i]) for i in idx])


class QdrantBm25:
    """Qdrant's own BM25 (``qdrant_edge.Bm25``, multilingual tokenizer)."""

    version = "qdrant-bm25-multilingual-1"

    def __init__(self, avg_len: float = AVG_SENTENCE_TOKENS) -> None:
        import qdrant_edge as q

        self._bm25 = q.Bm25(q.Bm25Config(tokenizer=q.TokenizerType.Multilingual, avg_len=avg_len))

    def embed_document(self, text: str) -> SparseVec:
        v = self._bm25.embed_document(text)
        return SparseVec(list(v.indices), list(v.values))

    def embed_query(self, text: str) -> SparseVec:
        v = self._bm25.embed_query(text)
        return SparseVec(list(v.indices), list(v.values))


TOKENIZERS = {"jieba": JiebaBm25, "qdrant": QdrantBm25}


class SparseEncoder:
    """BM25 document and query vectors with the configured tokenizer."""

    def __init__(self, kind: str = "jieba", avg_len: float = AVG_SENTENCE_TOKENS) -> None:
        if kind not in TOKENIZERS:
            raise ValueError(f"unknown sparse tokenizer {kind!r}: use one of {', '.join(TOKENIZERS)}")
        self.kind = kind
        self._impl = TOKENIZERS[kind](avg_len)
        self.version = self._impl.version

    @property
    def query_precise(self) -> bool | None:
        """jieba: questions cut in precise mode (True, the default) or search mode (False);
        None for a tokenizer without the choice."""
        return getattr(self._impl, "query_precise", None)

    @query_precise.setter
    def query_precise(self, value: bool) -> None:
        if hasattr(self._impl, "query_precise"):
            self._impl.query_precise = bool(value)

    def query_tokens(self, text: str) -> list[str] | None:
        """The question's BM25 terms exactly as :meth:`encode_query` searches them (jieba's precise
        cut for Chinese, codes such as ``kx-2000`` and ``e4`` whole), each once, in order; None for
        a tokenizer that does not expose its terms (``qdrant``)."""
        tokens = getattr(self._impl, "tokens", None)
        return None if tokens is None else list(dict.fromkeys(tokens(text, query=True)))

    def matched_tokens(self, query_tokens: list[str] | None, sentence: str) -> list[str] | None:
        """The question's terms (:meth:`query_tokens`) that ``sentence`` holds as a document
        (:meth:`encode_documents`' terms: search-mode sub-words, a code's parts and joined form),
        in the question's order: what its BM25 score is made of. None when the terms are unknown."""
        tokens = getattr(self._impl, "tokens", None)
        if tokens is None or query_tokens is None:
            return None
        have = set(tokens(sentence))
        return [t for t in query_tokens if t in have]

    def encode_documents(self, texts: list[str]) -> list[SparseVec]:
        """One vector per sentence (saturated term frequencies)."""
        return [self._impl.embed_document(t) for t in texts]

    def encode_query(self, text: str) -> SparseVec:
        """The question's terms, each with weight 1."""
        return self._impl.embed_query(text)
