"""Hits -> passages: the window of each hit, merged per document. Pure functions.

llama-index's MetadataReplacementPostProcessor swaps each hit for its own stored window, so
adjacent hits repeat the same sentences in the prompt; and its window is baked in at parse time.
Here a window is an interval [i-w, i+w] computed at query time; intervals of one document that
overlap or touch are merged, so no sentence appears twice in the context.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .types import Hit, Passage, PassageHit, Sentence

MAX_WINDOW = 10


@dataclass
class Interval:
    """Sentences ``lo..hi`` (inclusive) of one document, and the hits inside."""

    doc_id: str
    source: str
    lo: int
    hi: int
    hits: list[Hit] = field(default_factory=list)

    @property
    def best_rank(self) -> int:
        return min(h.rank for h in self.hits)


def plan(hits: list[Hit], window_size: int) -> list[Interval]:
    """Merged intervals for ``hits`` at ``window_size``, ordered by their best hit's rank."""
    if not 0 <= window_size <= MAX_WINDOW:
        raise ValueError(f"window_size must be between 0 and {MAX_WINDOW}")
    by_doc: dict[str, list[Hit]] = {}
    for rank, h in enumerate(hits, start=1):
        if not h.rank:
            h.rank = rank
        by_doc.setdefault(h.sentence.doc_id, []).append(h)
    out: list[Interval] = []
    for doc_hits in by_doc.values():
        doc_hits.sort(key=lambda h: h.sentence.i)
        cur: Interval | None = None
        for h in doc_hits:
            s = h.sentence
            lo, hi = max(0, s.i - window_size), min(max(s.n - 1, s.i), s.i + window_size)
            if cur is not None and lo <= cur.hi + 1:
                cur.hi = max(cur.hi, hi)
                cur.hits.append(h)
            else:
                cur = Interval(s.doc_id, s.source, lo, hi, [h])
                out.append(cur)
    out.sort(key=lambda iv: iv.best_rank)
    return out


def needed(intervals: list[Interval]) -> list[tuple[str, int]]:
    """(doc_id, sentence number) of every sentence the passages need, hits included."""
    return [(iv.doc_id, i) for iv in intervals for i in range(iv.lo, iv.hi + 1)]


def assemble(intervals: list[Interval], sentences: dict[tuple[str, int], Sentence]) -> list[Passage]:
    """Passages from intervals and the fetched sentences.

    A passage's text is the exact document text from its first to its last sentence (the stored
    sentences tile the document), stripped. A sentence that is missing (its document was deleted
    meanwhile) splits the interval: each run of present sentences that holds a hit becomes a
    passage, so no text is ever invented.
    """
    passages = []
    for iv in intervals:
        hit_at = {h.sentence.i: h for h in iv.hits}
        run: list[Sentence] = []
        for i in range(iv.lo, iv.hi + 2):
            s = sentences.get((iv.doc_id, i)) if i <= iv.hi else None
            if s is not None:
                run.append(s)
                continue
            if any(x.i in hit_at for x in run):
                passages.append(_passage(iv, run, hit_at))
            run = []
    return passages


def _passage(iv: Interval, run: list[Sentence], hit_at: dict[int, Hit]) -> Passage:
    raw = "".join(s.text for s in run)
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    phits, pos = [], -lead
    for s in run:
        h = hit_at.get(s.i)
        if h is not None:
            start = pos + len(s.text) - len(s.text.lstrip())
            end = pos + len(s.text.rstrip())
            phits.append(PassageHit(i=s.i, sentence=s.text.strip(), score=h.score, start=max(0, start),
                                    end=max(0, min(end, len(text))), page=s.page, rank=h.rank,
                                    dense_score=h.dense_score, dense_rank=h.dense_rank,
                                    sparse_score=h.sparse_score, sparse_rank=h.sparse_rank,
                                    fused_score=h.fused_score, rerank_score=h.rerank_score))
        pos += len(s.text)
    pages = sorted({s.page for s in run if s.page is not None})
    return Passage(doc_id=iv.doc_id, source=iv.source, first=run[0].i, last=run[-1].i, text=text,
                   hits=phits, score=max(h.score for h in phits), pages=pages)


def build(hits: list[Hit], window_size: int, fetch) -> list[Passage]:
    """Passages for ``hits``: ``fetch(list[(doc_id, i)]) -> dict[(doc_id, i), Sentence]``."""
    intervals = plan(hits, window_size)
    want = needed(intervals)
    have = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in hits}
    missing = [k for k in want if k not in have]
    if missing:
        have.update(fetch(missing))
    return assemble(intervals, have)
