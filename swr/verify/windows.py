"""Candidate chunks of a claim and the windows that slide over them: retrieval widened into chunks
(:func:`candidates`), the windows' texts embedded in one batched call (:func:`embed_windows`), every
window's cosines (:func:`window_views`) and its verdict (:func:`judge_views`)."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

import swr.verify.verdict as vd
from swr.core.ids import sentence_id
from swr.core.params import VerifyParams
from swr.core.rules.verify import DEFAULT_VERDICT, VerdictRules
from swr.core.types import Passage, Sentence
from swr.retrieve import window as win


def slide(first: int, last: int, size: int, step: int) -> list[tuple[int, int]]:
    """Windows ``(a, b)`` (inclusive) of ``size`` sentences every ``step`` over ``first..last``.

    The last window always ends at ``last`` (a final window is added when the step skips the
    end); a range shorter than ``size`` is one window.
    """
    if size < 1 or step < 1:
        raise ValueError("window size and step must be at least 1")
    if last < first:
        return []
    if last - first + 1 <= size:
        return [(first, last)]
    out = [(a, a + size - 1) for a in range(first, last - size + 2, step)]
    if out[-1][1] < last:
        out.append((last - size + 1, last))
    return out


@dataclass
class Chunk:
    """A candidate chunk of one claim: the passage, its sentences as stored, whether windows are
    embedded over it."""

    kb: str
    passage: Passage
    sentences: list[Sentence]
    slide: bool

    def sid(self, n: int) -> str:
        return sentence_id(self.kb, self.passage.doc_id, self.sentences[n].i)

    def text(self, a: int, b: int) -> str:
        return "".join(s.text for s in self.sentences[a:b + 1]).strip()


def candidates(engine, claim: str, kb: str, p: VerifyParams, retrieve_knobs: dict) -> tuple[list[Chunk], dict]:
    """Retrieve a claim's candidate sentences and widen them into chunks (one store read)."""
    retrieval = engine.retrieve(claim, kb, top_k=p.candidates, mode=p.mode, fusion=p.fusion, **retrieve_knobs)
    got = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in retrieval.hits}

    def fetch(keys):
        out = engine.fetch_sentences(kb, keys)
        got.update(out)
        return out

    chunks = []
    for k, ps in enumerate(win.build(retrieval.hits, p.passage_window, fetch)):
        sents = [got[(ps.doc_id, i)] for i in range(ps.first, ps.last + 1) if (ps.doc_id, i) in got]
        chunks.append(Chunk(kb, ps, sents, slide=k < p.use_top))
    return chunks, retrieval.params


def embed_windows(engine, chunks_of: list[list[Chunk]], p: VerifyParams, embedder, per_window_calls: bool):
    """Stored vectors of every candidate sentence, and ONE model call for the multi-sentence
    windows of the sliding chunks of all claims. Returns (stored, encoded, timings, counts)."""
    t0 = time.perf_counter()
    ids = sorted({ch.sid(n) for chunks in chunks_of for ch in chunks for n in range(len(ch.sentences))})
    stored = engine.store.vectors(ids) if ids else {}
    t1 = time.perf_counter()
    need: dict[str, None] = {}
    for chunks in chunks_of:
        for ch in chunks:
            for n in range(len(ch.sentences)):
                if ch.sid(n) not in stored:
                    need[ch.text(n, n)] = None
            if ch.slide:
                for a, b in slide(0, len(ch.sentences) - 1, p.window, p.step):
                    if a != b:
                        need[ch.text(a, b)] = None
    texts = [t for t in need if t]
    calls0 = embedder.calls
    if not texts:
        vecs = np.zeros((0, engine.embedder.dim), dtype=np.float32)
    elif per_window_calls:  # the slow baseline of bench/verify_batching.py
        vecs = np.vstack([embedder.encode_passages([t]) for t in texts])
    else:
        vecs = embedder.encode_passages(texts)
    encoded = dict(zip(texts, np.asarray(vecs, dtype=np.float32)))
    t2 = time.perf_counter()
    timings = {"vectors_ms": round((t1 - t0) * 1000, 2), "encode_ms": round((t2 - t1) * 1000, 2)}
    counts = {"encode_calls": embedder.calls - calls0, "encoded_texts": len(texts), "stored_vectors": len(stored)}
    return stored, encoded, timings, counts


@dataclass(frozen=True)
class WindowView:
    """One window of one candidate chunk as the verdict sees it: its sentences, their cosines and
    the window's own cosine (None: not embedded). Plain data: ``bench/verdicts.py`` caches these
    to re-judge claims without retrieving or embedding again."""

    chunk: int  # index of the chunk among the claim's candidates
    a: int
    b: int
    doc_id: str
    sentences: tuple[str, ...]
    cosines: tuple[float | None, ...]
    window_cos: float | None


def window_views(chunks: list[Chunk], q: np.ndarray, stored: dict, encoded: dict, p: VerifyParams) -> list[WindowView]:
    """Every sliding window of every chunk of one claim, with its cosines (no model call)."""
    out = []

    def cos_of(vec):
        return None if vec is None else float(vec @ q)

    for k, ch in enumerate(chunks):
        sent_cos = []
        for n in range(len(ch.sentences)):
            v = stored.get(ch.sid(n))
            sent_cos.append(cos_of(v if v is not None else encoded.get(ch.text(n, n))))
        for a, b in slide(0, len(ch.sentences) - 1, p.window, p.step):
            wcos = sent_cos[a] if a == b else (cos_of(encoded.get(ch.text(a, b))) if ch.slide else None)
            out.append(WindowView(k, a, b, ch.passage.doc_id, tuple(s.text for s in ch.sentences[a:b + 1]),
                                  tuple(sent_cos[a:b + 1]), wcos))
    return out


def judge_views(claim: vd.ClaimFacts, views: list[WindowView], index, t: vd.Thresholds,
                rules: VerdictRules = DEFAULT_VERDICT) -> list[tuple]:
    """Every window judged: [(finding, chunk index, a, b, measure)]."""
    out = []
    for w in views:
        m = vd.measure(claim, list(w.sentences), list(w.cosines), w.window_cos, w.doc_id, index, rules)
        out.append((vd.classify(m, t, rules), w.chunk, w.a, w.b, m))
    return out
