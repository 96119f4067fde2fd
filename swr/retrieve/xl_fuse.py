"""The cross-lingual fusion: the question's own language first, another language only where it is better.

The lists of one cross-lingual search (swr/retrieve/crosslingual.py) are ``(via, hits)`` or
``(via, hits, True)`` for the lists of the subject documents alone; ``via`` is None for the
question language's lists, ``"lang-list"`` for another language's searched with the question's own
vectors and ``"translation"`` for those searched with its translation's. Each list's scores are
already normalised within it (DBSF), so they rank inside a list but do not compare across
languages: summed or maxed, the other language's best sentence ranked as high as the question
language's best, and an English question whose English answer is indexed got three Chinese
sentences on a neighbouring topic (bench/real_kbs.py, BiPaR).

So the question language's sentences keep their own order (their best fused score, plus the
subject bonus; a sentence of a document the question names ranks with them whatever its
language), and each other-language sentence is compared with them on one scale: the probability
that the answer is within its window, from a logistic model per side
(:class:`swr.core.rules.crosslingual.CrossLingualRules`, calibrated on two mixed-language knowledge
bases). It goes above a question-language sentence only when its probability is higher by the
rules' ``margin`` (the question-language side read as a running minimum, so one weak sentence
does not open the door to every other-language one). The fusion's top k is not all that is shown:
the plain search's top k stays whatever the fusion ranks above it, and the other language's most
probable sentences get places of their own beside it (``other_places``), so turning cross-lingual
search on never takes a same-language answer away (with ``other_places`` 0 the top k is fixed, and the
question language's best sentence keeps a place in it: ``own_kept``). A sentence of either language that writes the code
the question asks about (an error table's row; codes are written alike in both languages) goes first
(``code_first``). Every hit records the rules that placed it (``Hit.trace``:
:class:`~swr.core.rules.crosslingual.XlRule` values).
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from swr.core.rules.crosslingual import DEFAULT_RULES, CrossLingualRules, XlRule
from swr.core.types import Hit
from swr.text.claims import codes as codes_of, written
from swr.text.structure import is_contents

_WORDY = re.compile(r"\w")


@dataclass
class _Entry:
    score: float
    order: int
    rank: int
    cos: float
    sparse: float  # BM25 score / the list's best


@dataclass
class _Cand:
    hit: Hit
    own: list[_Entry] = field(default_factory=list)  # question-language lists
    lists: dict[str, _Entry] = field(default_factory=dict)  # another language's: "lang-list", "translation"
    subject: bool = False
    via: str | None = None
    score: float = float("-inf")
    order: int = 0
    p: float = 1.0  # another language's: the calibrated probability that its window holds the answer


def length(text: str, cap: int = DEFAULT_RULES.length_cap_chars) -> float:
    """A sentence's length on a 0..1 scale (log; ``cap`` characters and more: 1): e5 puts short
    generic lines ("哦？", "去干什么？") close to many questions, and they rarely hold an answer."""
    return min(1.0, math.log1p(len(text.strip())) / math.log1p(cap))


_EXP_LIMIT = 50.0  # exp() of more overflows nothing useful: the sigmoid is 0 or 1 to double precision


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-_EXP_LIMIT, min(_EXP_LIMIT, z))))


def _p(weights: tuple[float, ...], x: list[float]) -> float:
    return _sigmoid(weights[0] + sum(w * v for w, v in zip(weights[1:], x)))


def _cos(h: Hit, hub_weight: float = 0.0) -> float | None:
    """The cosine the fusion compares: language-centred where the search marked it, less its
    hubness x ``hub_weight`` where known (xl_centre)."""
    if h.centred is None:
        return h.dense_score
    return h.centred - hub_weight * h.hub if h.hub is not None else h.centred


def _collect(lists: list[tuple], weights: dict[str, float], rules: CrossLingualRules, qlang: str | None) -> dict:
    cands: dict[tuple[str, int], _Cand] = {}
    for order, (via, hits, *subject) in enumerate(lists):
        cos = [_cos(h, rules.hub_weight) for h in hits if _cos(h) is not None]
        lo = (min(cos) if cos else 0.0) - rules.missing_cos_drop
        top_s = max([h.sparse_score or 0.0 for h in hits] or [0.0]) or 1.0
        for r, h in enumerate(hits, start=1):
            if weights.get(h.sentence.source) and not subject:
                continue  # a subject document's sentences compete in its own list (its BM25 there
                # leaves out the words that named the subject)
            c = cands.setdefault((h.sentence.doc_id, h.sentence.i), _Cand(h))
            e = _Entry(h.score, order, r, _cos(h, rules.hub_weight) if _cos(h) is not None else lo,
                       (h.sparse_score or 0.0) / top_s)
            c.subject = c.subject or bool(subject)
            found = via  # this hit's list; another language's sentence in the plain list: the question's
            # vectors found it in that language (this hit only: the plain list goes on in both languages)
            if via is None and qlang and h.sentence.lang and h.sentence.lang != qlang:
                found = "lang-list"
            if e.score > c.score or (e.score == c.score and order < c.order):
                c.score, c.order, c.via, c.hit = e.score, order, found, h
            if found is None:
                c.own.append(e)
            elif found not in c.lists or e.score > c.lists[found].score:
                c.lists[found] = e
    return cands


def _foreign_p(c: _Cand, best_cos: float, rules: CrossLingualRules, window: list[float] | None = None
               ) -> tuple[float, list[str]]:
    t, g = c.lists.get("translation"), c.lists.get("lang-list")
    ct = t.cos if t else (g.cos + rules.lang_cos_gap if g else best_cos)
    cl = g.cos if g else ct - rules.lang_cos_gap
    both = bool(t and g)
    trace = [XlRule.BOTH_LISTS.value] if both else []
    x = [ct - best_cos, cl - best_cos, t.sparse if t else 0.0, 1.0 / t.rank if t else 0.0,
         1.0 / g.rank if g else 0.0, float(both), length(c.hit.sentence.text, rules.length_cap_chars)]
    if window is not None:
        return _p(rules.foreign_window_weights, x + window), trace
    return _p(rules.foreign_weights, x), trace


def _merge(primary: list[tuple], others: list[tuple], margin: float, by_score: bool = True) -> list[tuple]:
    """Primary (question language, subject documents) in their order; each other-language
    candidate (best probability first) goes above the first question-language one it beats by
    ``margin``; never above a named document's sentence, unless ``by_score`` (its score, the list
    score plus the subject bonus, higher than that sentence's: lists' scores do not compare across
    languages, CrossLingualRules.subject_passed_by_score)."""
    out, rest, floor = [], list(others), 1.0

    def enter(passes, why: Callable) -> None:
        nonlocal rest
        for p, c, trace in [t for t in rest if passes(t)]:
            out.append((c, [*trace, f"{XlRule.FOREIGN_ENTERS.value}:{why(p)}"]))
        rest = [t for t in rest if not passes(t)]

    for p, c, trace in primary:
        if p is None:  # a named document's sentence: the named product's text first
            if by_score:
                enter(lambda t, c=c: t[1].score > c.score, lambda p: "score")
        else:
            floor = min(floor, p)
            enter(lambda t, f=floor: t[0] > f + margin, lambda p, f=floor: f"{p:.2f}>{f:.2f}+{margin:g}")
        out.append((c, trace))
    out += [(c, [*trace, XlRule.FOREIGN_AFTER.value]) for _, c, trace in rest]
    return out


def fuse(lists: list[tuple], top_k: int, weights: dict[str, float] | None = None, bonus: float = 0.0,
         foreign: set[str] | frozenset = frozenset(), exempt: Callable[[Hit], bool] | None = None,
         rules: CrossLingualRules = DEFAULT_RULES, qlang: str | None = None, codes: tuple = (),
         windows: dict | None = None, unnamed: set[str] | frozenset = frozenset()) -> list[Hit]:
    """The best ``top_k`` hits of the lists (the module docstring), ranked, traced and scored.

    ``weights`` (source -> subject weight) names the documents the question is about: their
    sentences get ``bonus`` x their weight and rank with the question language's. ``qlang``: the
    question's language (a sentence of another language in a ``None`` list, the plain search over
    every language, counts as found by the question's vectors in its language). ``foreign``: the
    sources of another product's documents; with ``rules.other_product_last`` their sentences go
    after every other sentence except those ``exempt`` says name a named product themselves.
    ``codes``: the question's (:func:`swr.text.claims.codes`), for ``rules.code_first``. ``windows``:
    ``{(doc_id, i): cosine}`` of the candidates' windows (:mod:`swr.retrieve.xl_window`), read by
    both models (``rules.own_window_weights``, ``rules.foreign_window_weights``) when given. ``unnamed``:
    the documents with a subject of their own the question does not name (it names some): the places
    added beside the top k skip them (another product's manual is no evidence for the named one).
    A hit's ``score`` is its best list score (plus the subject bonus), shown at most at the score
    above it; ``via`` says which list found it (``+alias`` for a subject document).
    """
    weights = weights or {}
    cands = _collect(lists, weights, rules, qlang)
    best_cos = max([e.cos for c in cands.values() for e in c.own] or [0.0])
    wof = _window_of(cands, windows) if windows else None
    primary, others = [], []
    for c in cands.values():
        w = weights.get(c.hit.sentence.source, 0.0)
        c.score += bonus * w
        if w:  # a document the question names, in any language: ranked by its score and the bonus,
            # and no other sentence is compared with it (the named product's text first)
            primary.append((None, c, [XlRule.SUBJECT.value]))
        elif c.own:
            e = max(c.own, key=lambda e: e.score)
            x = [e.cos - best_cos, e.sparse, 1.0 / e.rank, e.score, length(c.hit.sentence.text, rules.length_cap_chars)]
            p = _p(rules.own_window_weights, x + wof(c)[:1]) if wof else _p(rules.own_weights, x)
            primary.append((p, c, [XlRule.OWN_LANGUAGE.value]))
        else:
            c.p, trace = _foreign_p(c, best_cos, rules, wof(c) if wof else None)
            others.append((c.p, c, trace))
    primary.sort(key=lambda t: (-t[1].score, t[1].order, t[1].hit.sentence.source, t[1].hit.sentence.i))
    others.sort(key=lambda t: (-t[0], t[1].order, t[1].hit.sentence.source, t[1].hit.sentence.i))
    merged = _merge(primary, others, rules.margin, rules.subject_passed_by_score)
    if rules.code_first and codes and others:  # one language: the plain search's order
        merged = _code_first(merged, codes, rules.code_first_holders)
    # the other language's most probable sentence, when both its lists rank it high too (rules.agreed_rank)
    agreed = others[0][1] if rules.agreed_kept and others and _high_in_both(others[0][1], rules.agreed_rank) \
        else None
    # the plain search's top k (the question language's list), where another language was searched
    first = next((hits for via, hits, *subject in lists if via is None and not subject), [])
    plain = [(h.sentence.doc_id, h.sentence.i) for h in first[:top_k]] \
        if any(via is not None for via, *_ in lists) else None
    skip = unnamed if weights else frozenset()
    return _ranked(merged, top_k, weights, foreign, exempt, rules, agreed, plain, skip)


def _window_of(cands: dict, windows: dict) -> Callable[[_Cand], list[float]]:
    """A candidate's window features: its window's cosine less the best question-language window's,
    and less the best other-language window's (a window not embedded reads as the lowest)."""
    def cos(c: _Cand) -> float:
        return windows.get((c.hit.sentence.doc_id, c.hit.sentence.i), low)

    low = min(windows.values())
    own = max([cos(c) for c in cands.values() if c.own] or [low])
    other = max([cos(c) for c in cands.values() if not c.own] or [low])
    return lambda c: [cos(c) - own, cos(c) - other]


_CODE_PARTS = re.compile(r"([A-Z]*)(\d+)")


def _code_first(merged: list[tuple], codes: tuple, holders: int) -> list[tuple]:
    """``merged`` with the candidates that write a code the question asks about first (in their order):
    a code of the question that the candidates list beside a sibling (another code of its letters and
    another number) and that at most ``holders`` of them write (CrossLingualRules.code_first)."""
    def number(code: str) -> tuple[str, int] | None:
        m = _CODE_PARTS.match(code)
        return (m.group(1), int(m.group(2))) if m and m.group(1) else None

    texts = [t[0].hit.sentence.text for t in merged]
    listed = {number(c) for text in texts for c in codes_of(text)} - {None}
    writes = {c: [written(c, text) for text in texts] for c in codes
              if (n := number(c)) and any(f == n[0] and k != n[1] for f, k in listed)}
    asked = [w for w in writes.values() if sum(w) <= holders]
    if not asked:
        return merged
    holds = [any(col) for col in zip(*asked)]
    return [(c, [*trace, XlRule.CODE_FIRST.value]) for (c, trace), h in zip(merged, holds) if h] + \
        [t for t, h in zip(merged, holds) if not h]


def _high_in_both(c: _Cand, rank: int) -> bool:
    """Whether another language's candidate is within ``rank`` in both its lists."""
    return not c.own and all(v in c.lists and c.lists[v].rank <= rank for v in ("translation", "lang-list"))


def _ranked(merged: list[tuple], top_k: int, weights: dict[str, float], foreign, exempt, rules,
            agreed: _Cand | None = None, plain: list | None = None, skip=frozenset()) -> list[Hit]:
    def key(t):
        c, trace = t
        other = bool(weights) and rules.other_product_last and c.hit.sentence.source in foreign \
            and not (exempt and exempt(c.hit))
        empty = rules.empty_last and not _WORDY.search(c.hit.sentence.text)
        s = c.hit.sentence
        contents = rules.contents_last and is_contents(s.heading) and s.block_kind != "heading"
        return (empty, contents, other)
    out, floor = [], None
    ordered = sorted(merged, key=key)
    if rules.heading_after:
        ordered = _headings_after(ordered)
    if rules.other_places and plain is not None:
        ranked = _places(ordered, plain, top_k, min(rules.other_places, top_k),
                         lambda t: any(key(t)) or t[0].p < rules.other_place_p
                         or (t[0].hit.sentence.source in skip and t[0].p < rules.unnamed_place_p))
    else:
        ranked = _kept(ordered, top_k, rules.own_kept, lambda t: any(key(t)))
        if agreed is not None:
            ranked = _agreed(ordered, ranked, top_k, agreed, lambda t: any(key(t)))
    for r, (c, trace) in enumerate(ranked, start=1):
        empty, contents, other = key((c, trace))
        trace = trace + ([XlRule.OTHER_PRODUCT_LAST.value] if other else []) + \
            ([XlRule.CONTENTS_LAST.value] if contents else []) + ([XlRule.EMPTY_LAST.value] if empty else [])
        score = c.score if floor is None else min(c.score, floor)
        floor = score
        via = c.via
        if weights.get(c.hit.sentence.source):
            via = f"{via}+alias" if via else "alias"
        h = c.hit
        h.rank, h.via, h.score, h.trace = r, via, round(score, 6), trace
        out.append(h)
    return out


def _headings_after(ordered: list[tuple]) -> list[tuple]:
    """``ordered``, with the heading of a section a sentence ranked above it is already in moved
    after every other candidate: its window is that section's (a section window is the same one),
    so its place goes to another section ("3. 首次使用前" under "5. 电热水壶第一次使用前，请将壶内装满水…":
    the sample kettle manual's first-use passage grew by the section's intro, and the 0.5B model
    answered from the intro instead of the step)."""
    seen: set[tuple] = set()
    kept, after = [], []
    for c, trace in ordered:
        s = c.hit.sentence
        if s.block_kind == "heading" and (s.doc_id, s.section) in seen:
            after.append((c, [*trace, XlRule.HEADING_AFTER.value]))
            continue
        if s.section is not None:
            seen.add((s.doc_id, s.section))
        kept.append((c, trace))
    return kept + after


# the first trace of a question-language sentence (or a named document's): the places own_kept keeps
_MINE = frozenset({XlRule.OWN_LANGUAGE.value, XlRule.SUBJECT.value})


def _places(ordered: list[tuple], plain: list, top_k: int, places: int, last: Callable[[tuple], bool]) -> list[tuple]:
    """The fusion's top k, the plain search's top k (``plain``: its sentences' keys) and the other
    language's ``places`` most probable sentences, in ``ordered``'s order: turning
    cross-lingual search on never takes a place from what the plain search shows
    (CrossLingualRules.other_places). A sentence the rules put ``last`` takes no added place."""
    def key(t: tuple) -> tuple:
        return t[0].hit.sentence.doc_id, t[0].hit.sentence.i

    keyed = [(key(t), t) for t in ordered]
    top = {k for k, _ in keyed[:top_k]}
    others = [k for k, t in keyed if k not in plain and t[1][0] not in _MINE and not last(t)]
    why = {**{k: XlRule.PLAIN_KEPT.value for k in plain}, **{k: XlRule.OTHER_PLACE.value for k in others[:places]}}
    return [t if k in top else (t[0], [*t[1], why[k]]) for k, t in keyed if k in top or k in why]


def _kept(merged: list[tuple], top_k: int, keep: int, last: Callable[[tuple], bool]) -> list[tuple]:
    """The top ``top_k`` of ``merged``, with at least ``keep`` of the question language's sentences
    (or the named documents'): those missing take the last places from other-language ones. One
    place is always left to the other language (at top-k 1 nothing is kept); a sentence the rules
    put ``last`` (no word, another product's) is never brought up."""
    keep = min(keep, top_k - 1)
    top, rest = merged[:top_k], merged[top_k:]
    have = sum(t[1][0] in _MINE for t in top)
    for c, trace in [t for t in rest if t[1][0] in _MINE and not last(t)][:max(0, keep - have)]:
        i = max(i for i, t in enumerate(top) if t[1][0] not in _MINE)
        top = top[:i] + top[i + 1:] + [(c, [*trace, XlRule.OWN_KEPT.value])]
    return top


def _agreed(ordered: list[tuple], top: list[tuple], top_k: int, agreed: _Cand,
            last: Callable[[tuple], bool]) -> list[tuple]:
    """``top``, with ``agreed`` (another language's most probable sentence, which both its lists
    rank high) given its last place when it is not in it (a place beside the question language's best)."""
    if any(t[0] is agreed for t in top):
        return top
    cand = next((t for t in ordered if t[0] is agreed and not last(t)), None)
    if cand is None:
        return top
    kept = (cand[0], [*cand[1], XlRule.AGREED_KEPT.value])
    if len(top) < top_k:
        return [*top, kept]
    best = next((i for i, t in enumerate(top) if t[1][0] in _MINE), None)  # the question language's best stays
    places = [i for i in range(len(top)) if i != best]
    if not places:  # top-k 1: the place is the question language's best
        return top
    i = places[-1]
    return top[:i] + [kept] + top[i + 1:]


def list_cosines(own_of: dict, translated_of: dict) -> dict[str, list[float]]:
    """Each list's dense cosines, best first (:attr:`Plan.cosines`), from the store's hits by
    language of the question's own vector and of its translations'."""
    return {f"{kind}:{lang}": sorted((c for _, c in getattr(hits, "dense_pool", ())), reverse=True)
            for kind, of in (("own", own_of), ("translation", translated_of)) for lang, hits in of.items()}
