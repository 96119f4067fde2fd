"""Window modes beyond ±N: ``section`` and ``budget`` windows, planned at query time.

Both plan :class:`swr.retrieve.window.Interval` s that :func:`swr.retrieve.window.assemble` (the one assembler)
turns into passages, so merging, highlighting, the evidence card and the answer path see ordinary
passages; nothing is embedded or written.

- ``section``: each hit grows to its block as recorded at index time (:mod:`swr.text.structure`):
  the whole list of steps, the whole table (its first row is the header), the paragraph; a hit on
  a heading grows over the text of its section up to the next heading (never past a heading of
  the same or a higher level; a subsection's heading also stops it). Blocks never cross a
  heading. A block larger than the budget is cut around the hit (outward, the following side
  first), not at its beginning. A window is capped at :data:`SECTION_MAX` sentences around its hit.
- ``budget``: each hit's whole block first (rank order) when it fits in what is left of the
  budget (an answer that spans a paragraph or a list comes whole); then the windows grow one
  sentence at a time, across all hits, toward the neighbour whose stored dense vector is most
  similar to the question vector, until the next sentence would not fit.

Both keep the whole context (every passage's characters together) within ``budget_chars``: the
hits come first, in rank order (a hit that no longer fits is left out, except the first), then the
growth. Each passage says why it stops on each side: ``heading`` (the next sentence is a
heading), ``block_end``, ``budget``, ``cap`` (``SECTION_MAX``, or the neighbours fetched for a
budget window: :func:`budget_radius`), ``doc_edge``.

Store work per question: ``section`` one sentence fetch (the blocks plus the sentence beyond each
end); ``budget`` one sentence fetch and one vector fetch of the hits' neighbours.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from swr.core.errors import ReindexNeeded
from swr.core.params import MAX_WINDOW
from swr.core.types import Hit, Sentence
from swr.retrieve.window import Interval
from swr.text.structure import STRUCTURE_VERSION

SECTION_MAX = 40  # sentences of one section window at most (a long list or table is cut around the hit)

Key = tuple[str, int]
Fetch = Callable[[list[Key]], dict[Key, Sentence]]
FetchVectors = Callable[[list[Key]], dict[Key, np.ndarray]]


def require_structure(hits: list[Hit]) -> None:
    """:class:`ReindexNeeded` when a hit's document was indexed before structure was stored."""
    old = sorted({h.sentence.source for h in hits if h.sentence.block is None})
    if old:
        raise ReindexNeeded(
            f"Section windows need the document structure recorded at indexing (structure version "
            f"{STRUCTURE_VERSION}), which {', '.join(old)} was indexed without: re-index to use section "
            "windows (delete the document or knowledge base and index it again); fixed and budget windows "
            "work as they are.")


def _ranked(hits: list[Hit]) -> list[tuple[Hit, int]]:
    return sorted(((h, h.rank or pos) for pos, h in enumerate(hits, start=1)), key=lambda hr: hr[1])


class _Plan:
    """Chosen sentences per document, the budget left, and the reasons growth stopped."""

    def __init__(self, budget: int, mode: str) -> None:
        self.mode = mode
        self.left = budget
        self.chosen: dict[str, set[int]] = {}
        self.hits: list[tuple[Hit, int]] = []
        self.why: dict[tuple[str, int, int], str] = {}  # (doc, i, side -1/+1) -> reason growth stopped there

    def add_hits(self, hits: list[Hit]) -> None:
        for h, rank in _ranked(hits):
            s = h.sentence
            if s.i in self.chosen.get(s.doc_id, ()):
                self.hits.append((h, rank))
                continue
            if self.hits and len(s.text) > self.left:
                continue  # no room for this hit: left out (the first hit always stays)
            self.chosen.setdefault(s.doc_id, set()).add(s.i)
            self.left -= len(s.text)
            self.hits.append((h, rank))

    def take(self, doc: str, s: Sentence) -> bool:
        if s.i in self.chosen[doc]:
            return True
        if len(s.text) > self.left:
            return False
        self.chosen[doc].add(s.i)
        self.left -= len(s.text)
        return True

    def intervals(self, sources: dict[str, str], sizes: dict[str, int]) -> list[Interval]:
        out: list[Interval] = []
        for doc, idx in self.chosen.items():
            runs: list[list[int]] = []
            for i in sorted(idx):
                if runs and i == runs[-1][1] + 1:
                    runs[-1][1] = i
                else:
                    runs.append([i, i])
            for lo, hi in runs:
                hs = [(h, r) for h, r in self.hits if h.sentence.doc_id == doc and lo <= h.sentence.i <= hi]
                if not hs:
                    continue
                hs.sort(key=lambda hr: hr[0].sentence.i)
                n = sizes[doc]
                before = "doc_edge" if lo == 0 else self.why.get((doc, lo, -1), "cap")
                after = "doc_edge" if hi >= n - 1 else self.why.get((doc, hi, 1), "cap")
                out.append(Interval(doc, sources[doc], lo, hi, [h for h, _ in hs], [r for _, r in hs], self.mode,
                                    before, after))
        out.sort(key=lambda iv: iv.best_rank)
        return out


def _meta(hits: list[Hit]) -> tuple[dict[str, str], dict[str, int]]:
    return ({h.sentence.doc_id: h.sentence.source for h in hits}, {h.sentence.doc_id: h.sentence.n for h in hits})


def _section_range(s: Sentence) -> tuple[int, int]:
    """The sentences a section window of hit ``s`` grows over."""
    if s.block_kind == "heading":
        return s.block_first, max(s.block_last, s.section_last)
    return s.block_first, s.block_last


def _block_chars(have: dict[Key, Sentence], doc: str, a: int, b: int) -> int | None:
    """Characters of sentences a..b of ``doc`` (None when one is not fetched)."""
    got = [have.get((doc, i)) for i in range(a, b + 1)]
    return None if any(g is None for g in got) else sum(len(g.text) for g in got)


def _grow_block(p: _Plan, have: dict[Key, Sentence], s: Sentence, a: int, b: int) -> None:
    """Grow hit ``s`` over sentences ``a..b`` of its block: the whole block when it fits in what
    is left of the budget, else outward from the hit one sentence a side at a time, the
    following side first (an answer goes on after the sentence that matched the question), so
    the context keeps the part of the block around the hit instead of the block's beginning."""
    doc = s.doc_id
    a0, b0 = _section_range(s)
    ends = {-1: a, 1: b}
    at = {-1: s.i, 1: s.i}
    open_ = [1, -1]
    while open_:
        for side in list(open_):
            i = at[side]
            if i == ends[side]:
                if ends[side] != (a0 if side < 0 else b0):
                    p.why[(doc, i, side)] = "cap"
                else:
                    beyond = have.get((doc, i + side))
                    p.why[(doc, i, side)] = ("heading" if beyond is not None and beyond.block_kind == "heading"
                                             else "block_end")
                open_.remove(side)
                continue
            nxt = have.get((doc, i + side))
            if nxt is None:
                p.why[(doc, i, side)] = "missing"
                open_.remove(side)
            elif nxt.block_kind == "heading" and nxt.block != s.block:
                p.why[(doc, i, side)] = "heading"  # a subsection's heading: its text is its own
                open_.remove(side)
            elif not p.take(doc, nxt):
                p.why[(doc, i, side)] = "budget"
                open_.remove(side)
            else:
                at[side] = i + side


def plan_section(hits: list[Hit], fetch: Fetch, budget_chars: int) -> tuple[list[Interval], dict[Key, Sentence]]:
    """Section windows of ``hits`` and the sentences fetched for them (one fetch)."""
    require_structure(hits)
    ranges: list[tuple[Hit, int, int]] = []
    want: set[Key] = set()
    for h, _ in _ranked(hits):
        s = h.sentence
        a, b = _section_range(s)
        a, b = max(a, s.i - SECTION_MAX // 2), min(b, s.i + SECTION_MAX // 2)
        ranges.append((h, a, b))
        want.update((s.doc_id, i) for i in range(max(0, a - 1), min(s.n - 1, b + 1) + 1))
    have = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in hits}
    missing = sorted(k for k in want if k not in have)
    if missing:
        have.update(fetch(missing))
    p = _Plan(budget_chars, "section")
    p.add_hits(hits)
    kept = {id(h) for h, _ in p.hits}
    for h, a, b in ranges:
        if id(h) in kept:
            _grow_block(p, have, h.sentence, a, b)
    sources, sizes = _meta(hits)
    return p.intervals(sources, sizes), have


def budget_radius(hits: list[Hit], budget_chars: int) -> int:
    """Neighbours fetched on each side of a hit for a budget window: enough sentences of the
    hits' mean length to spend the budget twice over, at most ``MAX_WINDOW``."""
    mean = sum(len(h.sentence.text) for h in hits) / max(1, len(hits))
    return max(1, min(MAX_WINDOW, math.ceil(2 * budget_chars / max(10.0, mean))))


def plan_budget(hits: list[Hit], fetch: Fetch, fetch_vectors: FetchVectors, query: np.ndarray,
                budget_chars: int) -> tuple[list[Interval], dict[Key, Sentence]]:
    """Budget windows of ``hits``: greedy growth toward the neighbour most similar to ``query``."""
    # long: one greedy loop whose state (budget, frontier, blocks) is shared by every step
    p = _Plan(budget_chars, "budget")
    p.add_hits(hits)
    r = budget_radius(hits, budget_chars)
    want: set[Key] = set()
    blocks = []
    for h, _ in p.hits:
        s = h.sentence
        want.update((s.doc_id, i) for i in range(max(0, s.i - r), min(s.n - 1, s.i + r) + 1))
        if s.block is not None:  # the hit's block (structure recorded at indexing)
            a, b = _section_range(s)
            a, b = max(a, s.i - SECTION_MAX // 2), min(b, s.i + SECTION_MAX // 2)
            blocks.append((s.doc_id, a, b))
            want.update((s.doc_id, i) for i in range(a, b + 1))
    have = {(h.sentence.doc_id, h.sentence.i): h.sentence for h in hits}
    missing = sorted(k for k in want if k not in have)
    if missing:
        have.update(fetch(missing))
    for doc, a, b in blocks:  # a hit's whole block first, in rank order, when it fits in what is left
        size = _block_chars(have, doc, a, b)
        new = [i for i in range(a, b + 1) if i not in p.chosen[doc]]
        if size is not None and new and sum(len(have[(doc, i)].text) for i in new) <= p.left:
            for i in new:
                p.take(doc, have[(doc, i)])
    keys = sorted(k for k in want if k in have)
    vecs = fetch_vectors(keys) if keys else {}
    q = np.asarray(query, dtype=np.float32).ravel()
    qn = float(np.linalg.norm(q)) or 1.0
    sim = {}
    for k, v in vecs.items():
        vn = float(np.linalg.norm(v)) or 1.0
        sim[k] = float(np.dot(q, v) / (qn * vn))
    # the growing ends: (doc, i, side) with i chosen and i+side not (yet); refused ones leave it
    frontier = {(doc, i, side) for doc, idx in p.chosen.items() for i in idx for side in (-1, 1)
                if i + side not in idx and (doc, i + side) in sim}
    while p.left > 0 and frontier:
        best = max(frontier, key=lambda e: (sim[(e[0], e[1] + e[2])], -e[1]))
        frontier.discard(best)
        doc, i, side = best
        j = i + side
        if not p.take(doc, have[(doc, j)]):
            p.why[best] = "budget"
            continue
        idx = p.chosen[doc]
        frontier.discard((doc, j + side, -side))  # two windows met
        if j + side not in idx and (doc, j + side) in sim:
            frontier.add((doc, j, side))
    # ends that stopped without a refusal: beyond the fetched radius ("cap") or not stored
    for doc, idx in p.chosen.items():
        for i in idx:
            for side in (-1, 1):
                j = i + side
                if j in idx or (doc, i, side) in p.why or j < 0:
                    continue
                if (doc, j) in want and (doc, j) not in have:
                    p.why[(doc, i, side)] = "missing"
                elif (doc, j) in sim or p.left <= 0:
                    p.why[(doc, i, side)] = "budget"
    sources, sizes = _meta(hits)
    return p.intervals(sources, sizes), have


def build(hits: list[Hit], mode: str, *, window_size: int, budget_chars: int, fetch: Fetch,
          fetch_vectors: FetchVectors | None = None, query: np.ndarray | None = None) -> list:
    """Passages of ``hits`` in window ``mode`` (``fixed``: :func:`swr.retrieve.window.build`)."""
    from swr.retrieve import window as win

    if mode == "fixed" or not hits:
        return win.build(hits, window_size, fetch)
    if mode == "section":
        intervals, have = plan_section(hits, fetch, budget_chars)
    elif mode == "budget":
        if fetch_vectors is None or query is None:
            raise ValueError("budget windows need the question vector and a vector fetch")
        intervals, have = plan_budget(hits, fetch, fetch_vectors, query, budget_chars)
    else:
        raise ValueError(f"unknown window mode {mode!r}")
    return win.assemble(intervals, have)
