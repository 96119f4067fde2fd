"""The evidence score: answerability's last word on a question its bars refuse
(:class:`swr.core.rules.answerable.EvidenceModel`, rule ``answerable.evidence``).

The bars of :func:`swr.answer.answerable.decide` read one figure at a time (a cosine, then a share
of terms); on real content they refused a fifth of the questions whose answer was in the passages
(bench/real_kbs.py: novels, Wikipedia, device manuals), mostly at cosines just under the bar with
every word of the question in the passages. The score weighs the figures together, as a logistic
model fitted on those sets, and answers only what the bars refused, never against a refusing rule
(a missing code, an absent name, unknown terms). Besides the figures the bars read, it reads how far
each searched list's best cosine stands out of its list (:func:`standout`) and how many of the
question's terms the other language's passages say through the dictionary
(:func:`swr.answer.answerable_terms.gloss_cover`): across languages the question's own words are in
none of those passages.
"""
from __future__ import annotations

import math

from swr.answer.answerable_terms import Translated, gloss_cover, unknown_terms
from swr.core.rules.answerable import EvidenceModel


def standout(cosines: dict | None, qlang: str, depth: int) -> dict[str, float]:
    """How far each searched list's best cosine stands out of the list: the best minus the mean of
    the next ``depth - 1``. A question the knowledge base answers has one sentence clearly closer
    than the rest; an off-domain one finds a flat list (real: a median of 0.045 vs 0.010 in the
    question's language). ``cosines``: :attr:`swr.core.types.Hits.cosines`; keys ``own_same``
    (the question's vector, its language's list), ``own_other`` (its vector, the other
    language's), ``tr`` (the translation's vector)."""
    out = {}
    for key, cs in (cosines or {}).items():
        kind, lang = key.split(":", 1)
        name = "tr" if kind != "own" else ("own_same" if lang == qlang else "own_other")
        rest = cs[1:depth]
        if rest:
            out[name] = round(cs[0] - sum(rest) / len(rest), 4)
    return out


def evidence_score(cos: float, cover: float, cross: bool, unknown_share: float, translated: Translated | None,
                   model: EvidenceModel, standouts: dict | None = None, gcover: float = 0.0,
                   xcos: float | None = None) -> float:
    """The :class:`swr.core.rules.answerable.EvidenceModel` score (0-1) of the figures
    :func:`assess` reads: the question's own best cosine, its terms in the passages and known to
    the knowledge base, the other language's evidence (:func:`translated_evidence`: cosine,
    cover, terms, unknown terms), how far each list's best cosine stands out of its list
    (``standouts``: :func:`standout`'s, by list) and the share of the question's
    terms the other language's passages say through the dictionary (``gcover``:
    :func:`swr.answer.answerable_terms.gloss_cover`) and the best hit's centred cosine less its
    hubness (``xcos``: :func:`swr.answer.centred.best_centred`, None where the search did not centre the
    languages). 0 when neither cosine reaches the model's floor."""
    tcos, tcover, tknown = 0.0, 0.0, 0.0
    if translated and translated.terms:
        tcos, tcover, tknown = translated.cos, translated.cover, 1 - translated.unknown / translated.terms
    if max(cos, tcos) < model.floor:
        return 0.0
    out = standouts or {}
    x = [cos, cover, 1 - unknown_share, float(cross), tcos, tcover, tknown, out.get("own_same", 0.0),
         out.get("own_other", 0.0), out.get("tr", 0.0), gcover]
    if xcos is not None:  # the search centred the languages: the model fitted with that cosine
        w = model.centred_weights
        z = w[0] + sum(a * b for a, b in zip(w[1:], [*x, xcos]))
    else:
        w = (model.cos, model.cover, model.known, model.cross, model.tcos, model.tcover, model.tknown, model.psame,
             model.pother, model.ptr, model.gcover)
        z = model.bias + sum(a * b for a, b in zip(w, x))
    return 1 / (1 + math.exp(-z))


def weigh(engine, question: str, kb: str, cos: float, cover: float, cross: bool, terms: list, translated,
          model: EvidenceModel, signals: dict, passages: list | None = None, xcos: float | None = None) -> str | None:
    """The reason the evidence score answers a question the bars refused, or None (it does not, or
    the question has fewer than ``model.min_terms`` content terms). Reads the lists' standouts from
    ``signals`` (:func:`standout`'s, under ``"standout"``); adds ``unknown``,
    ``gcover`` and ``score`` to it; ``xcos``: the best hit's centred cosine less its hubness (None: the
    search did not centre the languages). The store probe of the question's terms (cached per knowledge
    base version) and the dictionary reading of ``passages`` run only here."""
    if len(terms) < model.min_terms:
        return None
    unknown = unknown_terms(engine, question, kb)
    gcover = gloss_cover(question, passages or [], model.gloss_senses) or 0.0
    signals.update(unknown=len(unknown), gcover=round(gcover, 4))
    # across languages the translation's terms (or the dictionary's reading of the other language's
    # passages) are the ones the other language's passages can hold
    if unknown and max(cover, translated.cover if translated else 0.0, gcover) < model.unknown_cover:
        return None
    score = evidence_score(cos, cover, cross, len(unknown) / len(terms), translated, model,
                           signals.get("standout"), gcover, xcos)
    signals.update(score=round(score, 4))
    bar = model.threshold if xcos is None else model.centred_threshold
    if score < bar:
        return None
    return (f"evidence score {score:.2f} >= {bar:g} (cosine {cos:.3f}, {cover:.0%} of the question's "
            f"terms in the passages, {1 - len(unknown) / len(terms):.0%} known to this knowledge base"
            + (f", the translation's cosine {translated.cos:.3f} with {translated.cover:.0%} of its terms"
               if translated else "")
            + (f", {gcover:.0%} of its terms said by the other language's passages" if gcover else "") + ")")
