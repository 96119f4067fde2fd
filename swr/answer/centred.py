"""The language-centred cosine answerability's evidence score reads (swr/answer/evidence.py).

Across languages the plain cosine runs low for a right answer (an English question's Chinese answer
scored 0.79-0.84 where the bars sit at 0.86-0.875) and e5 puts generic sentences near every
question. The cross-lingual search marks each hit with its cosine after each language's mean is
taken out (``Hit.centred``) and with its hubness (``Hit.hub``, :mod:`swr.retrieve.xl_centre`); the
best hit's centred cosine less the fusion's share of its hubness compares languages on one scale
and a generic sentence for what it is: one of the figures of the evidence score, which answers what
the bars refused. Only a knowledge base the search centred (two languages) has both; elsewhere the
score reads without it.
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
