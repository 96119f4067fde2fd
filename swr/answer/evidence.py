"""The evidence score: answerability's last word on a question its bars refuse
(:class:`swr.core.rules.answerable.EvidenceModel`, rule ``answerable.evidence``).

The bars of :func:`swr.answer.answerable.decide` read one figure at a time (a cosine, then a share
of terms); on real content they refused a fifth of the questions whose answer was in the passages
(bench/real_kbs.py: novels, Wikipedia, device manuals), mostly at cosines just under the bar with
every word of the question in the passages. The score weighs the figures together, as a logistic
model fitted on those sets, and answers only what the bars refused, never against a refusing rule
(a missing code, an absent name, unknown terms).
"""
from __future__ import annotations

import math

from swr.answer.answerable_terms import Translated, unknown_terms
from swr.core.rules.answerable import EvidenceModel


def evidence_score(cos: float, cover: float, cross: bool, unknown_share: float, translated: Translated | None,
                   model: EvidenceModel) -> float:
    """The :class:`swr.core.rules.answerable.EvidenceModel` score (0-1) of the figures
    :func:`assess` reads: the question's own best cosine, its terms in the passages and known to
    the knowledge base, and the other language's evidence (:func:`translated_evidence`: cosine,
    cover, terms, unknown terms). 0 when neither cosine reaches the model's floor."""
    tcos, tcover, tknown = 0.0, 0.0, 0.0
    if translated and translated.terms:
        tcos, tcover, tknown = translated.cos, translated.cover, 1 - translated.unknown / translated.terms
    if max(cos, tcos) < model.floor:
        return 0.0
    z = (model.bias + model.cos * cos + model.cover * cover + model.known * (1 - unknown_share)
         + model.cross * float(cross) + model.tcos * tcos + model.tcover * tcover + model.tknown * tknown)
    return 1 / (1 + math.exp(-z))


def weigh(engine, question: str, kb: str, cos: float, cover: float, cross: bool, terms: list, translated,
          model: EvidenceModel, signals: dict) -> str | None:
    """The reason the evidence score answers a question the bars refused, or None (it does not, or
    the question has fewer than ``model.min_terms`` content terms). Adds ``unknown`` and ``score``
    to ``signals``. The store probe of the question's terms (cached per knowledge base version)
    runs only here."""
    if len(terms) < model.min_terms:
        return None
    unknown = unknown_terms(engine, question, kb)
    # across languages the translation's terms are the ones the other language's passages can hold
    if unknown and max(cover, translated.cover if translated else 0.0) < model.unknown_cover:
        signals.update(unknown=len(unknown))
        return None
    score = evidence_score(cos, cover, cross, len(unknown) / len(terms), translated, model)
    signals.update(unknown=len(unknown), score=round(score, 4))
    if score < model.threshold:
        return None
    return (f"evidence score {score:.2f} >= {model.threshold:g} (cosine {cos:.3f}, {cover:.0%} of the question's "
            f"terms in the passages, {1 - len(unknown) / len(terms):.0%} known to this knowledge base"
            + (f", the translation's cosine {translated.cos:.3f} with {translated.cover:.0%} of its terms"
               if translated else "") + ")")
