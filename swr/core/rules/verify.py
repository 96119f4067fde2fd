"""The numbers of claim verification, the verdicts and the answer check.

Reachable from :class:`swr.core.params.VerifyParams` (``verdict``, ``check``), so a request, a
benchmark or a test sets another value with ``with_()``. Calibrated numbers say so with the
benchmark to re-run before changing them; the others are free (a product choice).
"""
from __future__ import annotations

from dataclasses import dataclass

from swr.core.rules import FromDict


@dataclass(frozen=True)
class Thresholds(FromDict):
    """Cosine and coverage thresholds of one embedding model (swr/verify/verdict.py's module doc).
    Cosines are the embedding model's (query prefix for the claim, passage prefix for the window).
    Calibrated: re-run bench/verdicts.py (dev half: labelled claims from SQuAD and CMRC 2018
    articles) and tests/test_verdicts.py (sample manuals) before changing."""

    support: float  # window cosine that supports when the window also covers the claim
    high: float  # window cosine that supports on its own (a claim in another language)
    topic: float  # window cosine at which a conflict contradicts
    cover: float = 0.6  # share of the claim's facts (content terms, numbers, codes) that covers it
    literal: float = 0.9  # share of the claim's key terms that supports on its own

    def to_dict(self) -> dict:
        return {"support": self.support, "high": self.high, "topic": self.topic, "cover": self.cover,
                "literal": self.literal}


# multilingual-e5-small puts almost any two sentences of one topic above 0.8 (bench/verdicts.py)
E5 = Thresholds(support=0.86, high=0.92, topic=0.84)
# any other embedding model (MiniLM-like cosine scale); set on the sample manuals only
OTHER = Thresholds(support=0.55, high=0.75, topic=0.45)


@dataclass(frozen=True)
class VerdictRules(FromDict):
    """The numbers of swr/verify/verdict.py beside the per-model cosines."""

    # the thresholds of an e5 embedding model; calibrated: re-run bench/verdicts.py before changing
    e5: Thresholds = E5
    # the thresholds of any other embedding model; calibrated on the sample manuals (tests/test_verdicts.py)
    other: Thresholds = OTHER
    # a window stating this share of the claim's facts is on the claim's topic whatever its cosine;
    # calibrated: re-run bench/verdicts.py before changing
    on_topic_cover: float = 0.5
    # two bare numbers (no unit) of as many digits conflict from this value up ("2200" vs "1800"; a
    # small bare number is a count or a step); free
    bare_number_min: float = 100

    def __post_init__(self) -> None:
        object.__setattr__(self, "e5", Thresholds.from_dict(self.e5))
        object.__setattr__(self, "other", Thresholds.from_dict(self.other))



@dataclass(frozen=True)
class CheckRules(FromDict):
    """The numbers of the answer check (swr/verify/check.py): each answer sentence against the passages."""

    # sentences per sliding window over a passage; free (a claim and its neighbour)
    window: int = 2
    # a sentence at most this long (characters, without marks) is checked with its question ("可以。");
    # set on the sample manuals' short answers (tests/test_verify.py); free within 8..16
    short_chars: int = 12
    # ... and an English one of at most this many words too; calibrated with short_chars
    short_words: int = 3
    # support (share of checkable sentences supported) under this rejects the answer; free
    reject_below: float = 0.5
    # the sentence holding a claim's codes must state this share of its facts; calibrated on the sample
    # manuals' error-code tables (tests/test_verify.py) before changing
    code_cover: float = 0.5
    # an answer of at most this many sentences, one of them a refusal, is a refusal; free
    refusal_sentences: int = 2



DEFAULT_VERDICT = VerdictRules()
DEFAULT_CHECK = CheckRules()
