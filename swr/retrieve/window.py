"""Hits -> passages: the window of each hit, merged per document. Pure functions: the hits
passed in are never changed (a hit's rank is its position in the list when it has none).

llama-index's MetadataReplacementPostProcessor swaps each hit for its own stored window, so
adjacent hits repeat the same sentences in the prompt; and its window is baked in at parse time.
Here a window is an interval [i-w, i+w] computed at query time; intervals of one document that
overlap or touch are merged, so no sentence appears twice in the context.

Two helpers are shared with the other stages: :func:`join_sentences` (the one place a run of
stored sentences becomes a passage text with the offsets of each sentence in it; the claim
verifier builds its chunks with it) and :func:`hit_spans` (the one span merger: highlight spans of
hits in a passage text, used for the extractive answer's marks and the evidence HTML).

A passage does not begin with a sentence that has no word in it ("|", the closing pipe of the
table row before the window, or a "| --- |" rule), nor end with one on a line of its own: such a
sentence says nothing and read as a stray line above the answer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from swr.core.params import MAX_WINDOW
from swr.core.types import Hit, Passage, PassageHit, Sentence

__all__ = ["MAX_WINDOW", "Interval", "plan", "needed", "assemble", "build", "join_sentences", "hit_span",
           "hit_spans"]


@dataclass
class Interval:
    """Sentences ``lo..hi`` (inclusive) of one document, and the hits inside."""

    doc_id: str
    source: str
    lo: int
    hi: int
    hits: list[Hit] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)  # each hit's rank (its own, else its list position)
    mode: str = "fixed"  # the window mode that made it (swr/retrieve/expand.py makes section and budget ones)
    stop_before: str | None = None  # why it does not reach further back / forward (Passage fields)
    stop_after: str | None = None

    @property
    def best_rank(self) -> int:
        return min(self.ranks)


def plan(hits: list[Hit], window_size: int) -> list[Interval]:
    """Merged intervals for ``hits`` at ``window_size``, ordered by their best hit's rank."""
    if not 0 <= window_size <= MAX_WINDOW:
        raise ValueError(f"window_size must be between 0 and {MAX_WINDOW}")
    by_doc: dict[str, list[tuple[Hit, int]]] = {}
    for pos, h in enumerate(hits, start=1):
        by_doc.setdefault(h.sentence.doc_id, []).append((h, h.rank or pos))
    out: list[Interval] = []
    for doc_hits in by_doc.values():
        doc_hits.sort(key=lambda hr: hr[0].sentence.i)
        cur: Interval | None = None
        for h, rank in doc_hits:
            s = h.sentence
            lo, hi = max(0, s.i - window_size), min(max(s.n - 1, s.i), s.i + window_size)
            after = "doc_edge" if hi >= s.n - 1 else "cap"
            if cur is not None and lo <= cur.hi + 1:
                if hi > cur.hi:
                    cur.hi, cur.stop_after = hi, after
                cur.hits.append(h)
                cur.ranks.append(rank)
            else:
                cur = Interval(s.doc_id, s.source, lo, hi, [h], [rank], "fixed",
                               "doc_edge" if lo == 0 else "cap", after)
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
        hit_at = {h.sentence.i: (h, r) for h, r in zip(iv.hits, iv.ranks)}
        run: list[Sentence] = []
        for i in range(iv.lo, iv.hi + 2):
            s = sentences.get((iv.doc_id, i)) if i <= iv.hi else None
            if s is not None:
                run.append(s)
                continue
            if any(x.i in hit_at for x in run):
                before, after = _stops(iv, run)
                passages.append(_passage(iv, _trimmed(run, hit_at), hit_at, before, after))
            run = []
    return passages


_WORD = re.compile(r"\w")


def _trimmed(run: list[Sentence], hit_at) -> list[Sentence]:
    """``run`` without the word-less sentences at its start, nor those on lines of their own at
    its end (a hit always stays)."""
    a, b = 0, len(run)
    while b - a > 1 and run[a].i not in hit_at and not _WORD.search(run[a].text):
        a += 1
    while b - a > 1 and run[b - 1].i not in hit_at and not _WORD.search(run[b - 1].text) \
            and "\n" in run[b - 2].text[len(run[b - 2].text.rstrip()):] + run[b - 1].text[:len(run[b - 1].text)
                                                                                   - len(run[b - 1].text.lstrip())]:
        b -= 1
    return run[a:b]


def _stops(iv: Interval, run: list[Sentence]) -> tuple[str | None, str | None]:
    """The stop reasons of a run of ``iv``: the interval's own at its ends, ``missing`` where a
    missing sentence cut it."""
    return (iv.stop_before if run[0].i == iv.lo else "missing", iv.stop_after if run[-1].i == iv.hi else "missing")


def join_sentences(run: list[Sentence]) -> tuple[str, list[tuple[int, int]]]:
    """The text of consecutive stored sentences, stripped, and each sentence's ``(start, end)`` in
    it (its content without surrounding whitespace; clamped to the text)."""
    raw = "".join(s.text for s in run)
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    spans, pos = [], -lead
    for s in run:
        start = pos + len(s.text) - len(s.text.lstrip())
        end = pos + len(s.text.rstrip())
        spans.append((max(0, start), max(0, min(end, len(text)))))
        pos += len(s.text)
    return text, spans


def _passage(iv: Interval, run: list[Sentence], hit_at: dict[int, tuple[Hit, int]], before: str | None,
             after: str | None) -> Passage:
    text, spans = join_sentences(run)
    phits = []
    for s, (start, end) in zip(run, spans):
        if s.i not in hit_at:
            continue
        h, rank = hit_at[s.i]
        phits.append(PassageHit(i=s.i, sentence=s.text.strip(), score=h.score, start=start, end=end, page=s.page,
                                rank=rank, dense_score=h.dense_score, dense_rank=h.dense_rank,
                                sparse_score=h.sparse_score, sparse_rank=h.sparse_rank,
                                fused_score=h.fused_score, rerank_score=h.rerank_score, via=h.via,
                                matched_tokens=h.matched_tokens, trace=list(h.trace) if h.trace else None,
                                centred=h.centred, hub=h.hub))
    pages = sorted({s.page for s in run if s.page is not None})
    return Passage(doc_id=iv.doc_id, source=iv.source, first=run[0].i, last=run[-1].i, text=text,
                   hits=phits, score=max(h.score for h in phits), pages=pages, window_mode=iv.mode,
                   stop_before=before, stop_after=after)


def build(hits: list[Hit], window_size: int, fetch) -> list[Passage]:
    """Passages for ``hits``: ``fetch(list[(doc_id, i)]) -> dict[(doc_id, i), Sentence]``."""
    intervals = plan(hits, window_size)
    want = needed(intervals)
    have = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in hits}
    missing = [k for k in want if k not in have]
    if missing:
        have.update(fetch(missing))
    return assemble(intervals, have)


def hit_span(text: str, hit: PassageHit) -> tuple[int, int]:
    """The hit's span in ``text``, trimmed of surrounding whitespace (falls back to a search for
    the sentence when the given span does not hold it)."""
    start, end = max(0, hit.start), min(len(text), hit.end)
    wanted = (hit.sentence or "").strip()
    if wanted and wanted not in text[start:end]:
        found = text.find(wanted)
        if found >= 0:
            start, end = found, found + len(wanted)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def hit_spans(text: str, hits: list[PassageHit], *,
              merge_touching: bool = False) -> list[tuple[int, int, list[PassageHit]]]:
    """Non-overlapping highlight spans of ``hits`` in ``text``, each with the hits it covers, in
    text order. Overlapping spans merge; with ``merge_touching`` also spans that touch."""
    spans: list[tuple[int, int, list[PassageHit]]] = []
    located = sorted(((*hit_span(text, h), h) for h in hits), key=lambda t: (t[0], t[1]))
    for start, end, hit in located:
        if end <= start:
            continue
        if spans and (start < spans[-1][1] or (merge_touching and start == spans[-1][1])):
            s, e, hs = spans[-1]
            spans[-1] = (s, max(e, end), hs + [hit])
        else:
            spans.append((start, end, [hit]))
    return spans
