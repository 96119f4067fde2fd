"""The language-centred cosine answerability's evidence score reads (swr/answer/evidence.py).

Across languages the plain cosine runs low for a right answer (an English question's Chinese answer
scored 0.79-0.84 where the bars sit at 0.86-0.875) and e5 puts generic sentences near every
question. The cross-lingual search marks each hit with its cosine after each language's mean is
taken out (``Hit.centred``) and with its hubness (``Hit.hub``, :mod:`swr.retrieve.xl_centre`); the
best hit's centred cosine less the fusion's share of its hubness compares languages on one scale
and a generic sentence for what it is: one of the figures of the evidence score, which answers what
the bars refused, and a rule of its own where the score refuses too (``answerable.centred``: the
score cannot read a question of fewer than two content terms). Only a knowledge base the search centred (two
languages) has both; elsewhere the score reads without it and the rule never answers.
"""
from __future__ import annotations

from swr.core.rules.crosslingual import DEFAULT_RULES as XL_RULES


def hub_weight(params) -> float:
    """The fusion's hubness weight of a retrieval's params (a RetrievalParams or its dict)."""
    xl = params.get("crosslingual") if isinstance(params, dict) else getattr(params, "crosslingual", None)
    if isinstance(xl, dict):
        return float(xl.get("hub_weight", XL_RULES.hub_weight))
    return float(getattr(xl, "hub_weight", XL_RULES.hub_weight))


def best_centred(hits, weight: float) -> float | None:
    """The best centred cosine of ``hits`` less ``weight`` x its hubness (None: no hit has both: a
    knowledge base of one language has no hubness among the question's language, and its centred
    cosines alone answered chit-chat in Chinese on the English S10 manual, bench/real_kbs.py)."""
    got = [h.centred - weight * h.hub for h in hits or ()
           if getattr(h, "centred", None) is not None and getattr(h, "hub", None) is not None]
    return max(got) if got else None


def centred_turn(engine, question: str, kb: str, xc: float | None, bar: float, other,
                 min_terms: int = 1) -> str | None:
    """Why the centred cosine answers a question the bars refused (None: it does not): the best
    hit's centred cosine less its hubness (``xc``: :func:`best_centred`) at ``bar``, and every content
    term of the question, or of its translation (``other``:
    :class:`swr.answer.answerable_terms.Translated`), at least ``min_terms`` of them ("What is 24 hours
    in minutes?" has none: its translation's "24 小时" is no evidence), used by the knowledge base (an
    unknown one may name what it lacks: "What does error E21 mean on my washing machine?"
    reached the bar on the product FAQ)."""
    from swr.answer.answerable_terms import question_terms, unknown_terms

    if xc is None or xc < bar or len(question_terms(question)) < min_terms:  # no content term: nothing asked
        return None
    if unknown_terms(engine, question, kb) and not (other is not None and other.terms and not other.unknown):
        return None
    return (f"the language-centred cosine less its hubness {xc:.3f} >= {bar:g}, and every term of the question "
            "or its translation is used by this knowledge base")
