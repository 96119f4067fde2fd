"""The numbers of answerability (swr/answer/answerable.py) and of document subjects
(swr/retrieve/aliases.py, swr/retrieve/subjects.py): every one named once, with its meaning and
the data it was calibrated on.

:class:`AnswerRules` is reachable from :class:`swr.core.params.RetrievalParams` (its ``answerable``
field), so a request, a benchmark or a test changes one with ``with_()``. Calibration sets:
"answerable" = bench/answerable.py (SQuAD and CMRC 2018 questions against their own knowledge base
and against the wrong one, XQuAD-zh against the English articles; tuning half); "real" =
bench/real_kbs.py's refusal part (mixed-language BiPaR and XQuAD knowledge bases, the Samsung
E-manuals, off-domain questions); "new_user" = bench/new_user.py (the DH-20 manual and the RB-300
FAQ). Calibrated numbers: re-run those benchmarks before changing them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from swr.core.rules import FromDict


@dataclass(frozen=True)
class AnswerThresholds:
    """The cosine bars of one embedding model (calibrated: answerable, checked on real)."""

    high: float  # best cosine that answers on its own (with a term of the question in the passages)
    low: float  # best cosine that answers when the passages hold ``cover`` of the question's terms
    cover: float  # ... that share of the question's terms
    cross: float  # best cosine that answers when the best sentence is in the other language
    # ... when it is, with a name of the question's translation (Warsaw, Luther) in its language's passages
    cross_names: float = 0.81

    def to_dict(self) -> dict:
        return asdict(self)


# e5 scores a question against a sentence of the other language lower: its own bar (answerable)
E5 = AnswerThresholds(high=0.875, low=0.86, cover=0.66, cross=0.82, cross_names=0.81)
OTHER = AnswerThresholds(high=0.6, low=0.45, cover=0.5, cross=0.55, cross_names=0.55)  # free: no e5


@dataclass(frozen=True)
class SubjectAnswer:
    """When the question names a document of the passages, that document's passages are the
    evidence (calibrated: new_user; checked on answerable, where SQuAD titles are names)."""

    low: float = 0.86  # the best cosine that answers when the question names the passage's document ...
    cover: float = 0.5  # ... and this share of its terms is in that document's passages


@dataclass(frozen=True)
class EvidenceModel(FromDict):
    """The evidence score that answers a question the bars above refuse (``answerable.evidence``): a
    logistic model of the figures answerability reads. Calibrated on real (``bench/real_kbs.py
    --parts bipar xquad emanual refusals``, seeds 0 and 1: 775 questions whose answer is in the
    passages, 420 off-domain questions asked on the same knowledge bases): re-run it before changing.
    Where the search centred the languages (a knowledge base of two) it reads ``centred_weights``."""

    cos: float = 14.72  # weight of the best cosine of the question's own vector
    cover: float = 2.67  # weight of the share of the question's terms in the passages
    known: float = 4.0  # weight of the share of the question's terms some document of the knowledge base uses
    cross: float = 0.39  # weight of "the closest sentence is in the other language"
    tcos: float = 0.41  # weight of the other language's best cosine (its translation's vector; 0 without one)
    tcover: float = 0.42  # weight of the share of the translation's terms in the other language's passages
    tknown: float = -0.51  # weight of the share of the translation's terms the knowledge base uses
    psame: float = 8.96  # weight of how far the best cosine of the question's language's list stands out
    pother: float = 0.97  # ... of the other language's list (the question's vector)
    ptr: float = 3.1  # ... of the translation's list
    gcover: float = 3.37  # weight of the share of the question's terms the other language's passages say (dictionary)
    bias: float = -16.95  # the model's intercept
    # where the search centred the languages: intercept, then the weights of the figures above in their
    # order (cos .. gcover), then of the best hit's cosine with each language's mean taken out less half its
    # hubness (swr/answer/centred.py). Fitted on the centred rows of bench/real_kbs.py --parts bipar xquad
    # xquadwide emanual refusals faq faq2 faq3 faq4 helpzh, seeds 0-2, the passages as the search gives
    # them (the places cross-lingual search adds included): python bench/evidence_fit.py --split
    centred_weights: tuple[float, ...] = (4.215, -13.715, 0.69, 3.436, 1.922, -0.211, -0.397, 2.04, 1.002, -7.901,
                                          -1.425, 2.183, 18.831)
    # ... answers at this score. Each seed left out of the fit in turn, right answers refused / off-domain
    # answered on the centred knowledge bases, of 1,891 / 1,350 over the three seeds, at 0.45 / 0.5 / 0.55 /
    # 0.6: 87 / 153, 95 / 140, 97 / 136, 110 / 130; the plain weights there (and answerable.centred, a rule
    # of its own, left out): 103 / 171
    centred_threshold: float = 0.5
    # size: glosses per dictionary word read for ``gcover`` (all senses: "What is the speed of light?" found
    # "speed" and "light" in the sample manuals' Chinese; 1 / 2 / 3 / all on real, each seed left out:
    # 101 / 95 / 95 / 92 right answers refused, 44 / 45 / 46 / 47 off-domain answered)
    gloss_senses: int = 2
    standout_depth: int = 10  # size: a list's best cosine is compared with the mean of the next nine
    # the score at which the evidence answers (fitted on seeds 0 and 1; each seed left out in turn, right
    # answers refused 32 / 28 / 35 of 383 / 392 / 399, off-domain answered 15 / 14 / 16 of 210; before
    # the standouts and the dictionary's reading 39 / 45 / 52 and 14 / 13 / 15)
    threshold: float = 0.55
    # a question with fewer content terms is never answered by the score: one word found vouches for
    # nothing ("Who won the World Cup in 2018?" and a novel's "world")
    min_terms: int = 2
    floor: float = 0.82  # neither cosine (own, translation's) at this: the score never answers (e5's noise floor)
    # with a term of the question in no document, the passages must hold this share of its terms (or of
    # its translation's, or of those the dictionary reads in the other language's passages): it
    # may name a product the knowledge base lacks ("What is the warranty on the air fryer?", a third,
    # was answered from the dehumidifier's warranty: bench/new_user.py; costs 2 points of real's recall)
    unknown_cover: float = 0.34


@dataclass(frozen=True)
class AnswerRules(FromDict):
    """Every number answerability decides by."""

    e5: AnswerThresholds = E5  # the bars with an e5 embedder
    other: AnswerThresholds = OTHER  # the bars with any other embedder
    subject: SubjectAnswer = field(default_factory=SubjectAnswer)
    evidence: EvidenceModel = field(default_factory=EvidenceModel)  # the score that answers what the bars refuse
    dense_k: int = 10  # size: sentences of answerability's own dense search (no pool)
    pool_read: int = 20  # size: the dense candidates of the retrieval's pool read at a time
    name_docs: int = 3  # size: the passages' documents read for a name the passages do not write
    # in one language, refuse when more than this share of the question's terms is in no document
    # of the knowledge base (answerable: no answered question of its own KB had more than half). At
    # two thirds instead (seed 0: bench/real_kbs.py with the bilingual FAQs and the help centre,
    # bench/answerable.py, bench/new_user.py) 7 right answers more were answered ("ebike", "电动车" on
    # an e-bike FAQ that writes neither) and 6 wrong ones (洗衣机, 冰箱, 微波炉 on a help centre that sells
    # none): a wash, kept at a half (the product a knowledge base lacks is the likelier question)
    unknown_share: float = 0.5
    # the evidence in the other language than the question answers when a hit of that language
    # scores this cosine (its translation's vector) and its passages write ``translated_cover`` of the
    # translation's content terms (real, quick seed 0: 20 of 57 refused right answers of BiPaR and
    # XQuAD answered, 0 of 68 off-domain; at 0.87 two Chinese off-domain questions were answered)
    translated_cos: float = 0.88
    # ... and the share of the translation's content terms its passages must write (same calibration)
    translated_cover: float = 0.25
    # ... or its hit scores this, whatever share of the translation's words its passages write (the
    # dictionary's words are not the knowledge base's: "steady red light" 稳定 红灯, the help centre's
    # 红色常亮). real (seeds 0-2, every knowledge base and off-domain set): 4 right answers a seed it
    # answers (English questions on the Chinese help centre: refused 23 -> 11 %, n=35), one refused
    # off-domain question above it (0.912: a tumble dryer's, refused as another product's); at 0.90, a
    # seed: one right answer more, 12 off-domain questions more
    translated_high: float = 0.91
    # ... and the translation has at least this many content terms: one word found vouches for nothing, as
    # for the evidence score ("What is the power of the sun?" -> 功率 in the sample manuals; real, three
    # seeds: 5 of 119 right answers and 3 of 16 off-domain answers had one)
    translated_min_terms: int = 2
    # a question whose closest small-talk example (swr/answer/data/smalltalk.tsv) scores this with an e5
    # embedder, and ``small_talk_margin`` more than the knowledge base's best sentence, is small talk and
    # refused (swr/answer/smalltalk.py). real (seeds 0-2, every knowledge base): 0 of the 1,000 distinct
    # questions whose answer was in the passages reach it with the margin (the closest: 0.919, a novel's
    # "前几天我是什么感觉？", 0.024 above its passage), 18 of 123 answered off-domain rows (chit-chat) do;
    # the 146 follow-up and new-user questions of bench/data: none (at 0.89 / 0.02 margin, 6 right answers)
    small_talk: float = 0.90
    small_talk_margin: float = 0.05  # ... and this much above the knowledge base's best cosine (same calibration)
    # the bars and the evidence score refused (it cannot read a question of fewer than two content terms),
    # a search that centred the languages answers when its best hit's centred cosine less half
    # its hubness reaches this and every term of the question or its translation is known
    # (swr/answer/centred.py). bench/real_kbs.py seeds 0 / 1 / 2 (the rows of python bench/evidence_fit.py
    # --split), right answers / off-domain questions it answers at 0.25: 5 / 0 / 5 and 2 / 2 / 4; at 0.3:
    # 4 / 0 / 5 and none; at 0.35: 2 / 0 / 5 and none. Above 1: off
    centred_answer: float = 0.30
    # refuse a question that asks about a kind of product or a maker no document of the knowledge base
    # names (swr/answer/products.py). real (seeds 0-2): 0 of the 3,600 right answers refused by it;
    # off-domain refused 92.4 / 91.5 / 92.5 -> 95.3 / 94.6 / 95.3 % (n=590 a seed), the help centre's
    # 87.6 -> 96.6 % (n=89); bench/near_domain.py: the fresh near-domain questions, written without the
    # lists (its report, bench/results/near_domain.md)
    product_absent: bool = True
    # how documents' subjects are learnt (swr/retrieve/aliases.py, swr/retrieve/subjects.py)
    subjects: "SubjectRules" = field(default_factory=lambda: DEFAULT_SUBJECTS)
    heading_chars: int = 80  # size: a Markdown heading line shorter than this is no answer sentence
    min_chars: int = 2  # size: characters besides borders a substantive sentence has at least

    def __post_init__(self) -> None:
        for name, cls in (("e5", AnswerThresholds), ("other", AnswerThresholds), ("subject", SubjectAnswer),
                          ("subjects", SubjectRules), ("evidence", EvidenceModel)):
            v = getattr(self, name)
            if isinstance(v, dict):
                object.__setattr__(self, name, cls(**v))

    def thresholds(self, model: str) -> AnswerThresholds:
        """The bars of the embedding model ``model`` (by name)."""
        return self.e5 if "e5" in (model or "").lower() else self.other


@dataclass(frozen=True)
class SubjectRules(FromDict):
    """How a document's subject (its product) is learnt from its name and opening lines
    (swr/retrieve/aliases.py: ranking and "the question names this document"; swr/retrieve/subjects.py:
    the verdict's product guard). Calibrated: new_user and the sample manuals; checked on real
    (a subject learnt from a novel's character names pulled BiPaR's other-language passages up)."""

    intro: int = 5  # size: first sentences of a document that name its subject (ranking)
    # in a knowledge base of two languages, a titled document of fewer sentences is a page on one topic:
    # its title names the topic ("定时清扫与勿扰模式", "Rooms, no-go zones and virtual walls"), not a product
    # a sentence of it would lose, and it names no subject (as an untitled one). Two original bilingual
    # FAQs of titled pages (7-15 sentences): named pages were the answer's for 27 of 46 and 25 of 61
    # questions (its title's glosses: "first", "one", "mode"), and same-language answers with cross-lingual
    # search on - off went -10.0 -> -5.0 and -20.0 -> -7.5 points; the sample manuals (51-298
    # sentences) keep theirs. In one language the title's words still rank its sentences: the Chinese
    # help centre cut into 201 section passages lost 1 and 2 points of windows at 300 / 600 characters
    # without them (bench/real_kbs.py)
    min_sentences: int = 20
    head_sentences: int = 8  # size: opening sentences read for the title and the codes (verdicts)
    min_repeats: int = 2  # a subject term is said in at least this many of the name and the intro
    min_share: float = 0.5  # documents scoring at least this share of the best one are named too
    max_subjects: int = 4  # a question naming more documents than this (or max_subject_share) names none
    # ... or more than this share of the knowledge base's documents (a big one: a tenth); free, set
    # with max_subjects on new_user and the sample manuals
    max_subject_share: float = 0.1
    max_title: int = 120  # size: characters of a title line (ranking)
    heading_chars: int = 60  # size: characters of a title line (verdicts)
    heading_cjk: int = 20  # size: Chinese characters of a title line (verdicts)
    generic_share: float = 0.4  # a name term in more than this share of the subjects' names is generic
    min_en_term: int = 3  # size: letters of an English name term
    min_zh_term: int = 2  # size: characters of a Chinese name term
    en_mention: int = 2  # a text mentions a subject with this many of its English name terms (or all it has)
    faq_families: int = 2  # a document opening with other documents' codes of this many families is an FAQ
    # a first line that is a quotation (it opens with a quote, or ends in sentence punctuation inside
    # a closing quote: '"Fancy that!"', '韦小宝道：“……？”') is speech, not a title: read as a title,
    # a novel's character names became subjects and pulled the other language's passages up (real: BiPaR)
    speech_not_title: bool = True
    # a question's word names the documents whose subject has it only when the bodies of at most
    # name_spread x (those documents) + 1 documents say it (or the question has a code): a product's
    # name or code is said in its manual and one more (AF-360, RC-550, 电热水壶 on the sample manuals;
    # 360 and the brand in three, naming none), a help centre's topic words in article after article
    # (退货: 2 titles, 13 of 40 articles). Help centre windows +5 to +7 points at 300 / 600 characters,
    # the sample presets, bench/new_user.py and every other part of bench/real_kbs.py unchanged
    name_spread: int = 1


DEFAULT_SUBJECTS = SubjectRules()
DEFAULT_ANSWER = AnswerRules()
