"""Verdicts: does a window support a claim, contradict it, or neither, and why.

Similarity picks the candidate windows (:mod:`swr.verify.verify`); this module decides, on what
similarity cannot see (:mod:`swr.text.claims`, :mod:`swr.retrieve.subjects`):

- the *focus* of a window: its sentence that is about the claim's subject and holds most of the
  claim's content terms (ties: the higher cosine), or the whole window when the terms are spread;
- numbers with units: a claim number the focus states differently (``5 years`` vs ``2-year``,
  ``2200 W`` vs ``1800W``) is a conflict; the same value in another unit (``4.2 kg`` vs
  ``4.2 L``) too; one the focus does not state is a gap;
- codes: an error code or model number of the same family (``E4`` vs ``E2``) is a conflict;
- polarity: a negation on one side only (``可以用钢丝球`` vs ``请勿使用钢丝球``) is a conflict;
- subject: a window about another product (the claim names the kettle, the window the rice
  cooker) can neither support nor contradict; it is reported as "another product's fact".

A window *supports* when its subject fits, it has no conflict and no gap, and its cosine reaches
``support`` while it states ``cover`` of the claim's facts, or it holds ``literal`` of the claim's
key terms, or (a claim in the other language than the window, where no term can match) its cosine
reaches ``high``, or reaches ``support`` while the window states every number the claim itself
asserts (not its question's: :meth:`ClaimFacts.anchors`). In one language a cosine alone
never supports: e5 puts sentences of one topic above 0.9 whatever they state. It *contradicts* when its subject
fits, it is on topic (cosine ``topic`` or ``topic_literal`` of the content terms) and it has a
conflict. The claim is ``supported`` when a window supports it, else ``contradicted`` when one
contradicts it, else ``not found``; every verdict carries its reasons.

Thresholds are cosines of the embedding model (query prefix for the claim, passage prefix for
the window), never fused retrieval scores: DBSF and RRF scores are relative to each query's
result list and mean nothing across queries. They were set on the sample manuals and the dev
half of ``bench/verdicts.py`` (labelled claims from SQuAD and CMRC 2018 articles) and are reported
on both halves (``bench/README.md``, "``verdicts.py``").
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from swr.core.lang import detect_lang, has_han
from swr.core.rules.verify import DEFAULT_VERDICT, Thresholds, VerdictRules
from swr.retrieve.subjects import SubjectIndex, compatible
from swr.text import claims as cl

VERDICTS = ("supported", "contradicted", "not found")
_LATIN_WORD = re.compile(r"[A-Za-z]{3,}")


def language_text(sentence: str, statement: str) -> str:
    """The text whose language is a claim's: the answer sentence itself when it has words ("E2
    means overheating." after a Chinese question is English), else its statement ("4.2 L"
    answers the Chinese question it completes)."""
    words = sentence and (has_han(sentence) or _LATIN_WORD.search(sentence))
    return sentence if words else statement


def thresholds_for(model: str, support: float | None = None, rules: VerdictRules = DEFAULT_VERDICT) -> Thresholds:
    """The calibrated thresholds of an embedding model (``rules.e5`` or ``rules.other``); ``support``
    overrides the support cosine (the other cosines keep their calibrated distance to it)."""
    base = rules.e5 if "e5" in (model or "").lower() else rules.other
    if support is None:
        return base
    d = float(support) - base.support
    return Thresholds(support=base.support + d, high=base.high + d, topic=base.topic + d, cover=base.cover,
                      literal=base.literal)


@dataclass
class ClaimFacts:
    """What a claim states, read once."""

    text: str
    terms: list[str]  # key terms (literal path)
    content: list[str]  # key terms without numbers and codes
    quantities: list[cl.Quantity]
    codes: list[str]
    negated: bool
    subjects: set[int]
    about: list[str] = field(default_factory=list)  # content terms that do not name the subject
    own_codes: list[str] = field(default_factory=list)  # codes that are not model numbers of a subject
    given: str = ""  # the question the claim answers (the answer check's): its numbers are not the claim's
    sentence: str = ""  # the answer sentence the claim was made from (its language is the claim's)

    @classmethod
    def read(cls, text: str, subjects: SubjectIndex | None) -> "ClaimFacts":
        content = cl.content_terms(text)
        mentioned = subjects.mentioned(text) if subjects else set()
        names: set[str] = set()
        model_codes: set[str] = set()
        for s in (subjects.subjects.values() if subjects else []):
            model_codes |= s.codes
            if s.key in mentioned:
                names |= s.zh_terms | {cl.stem(t) for t in s.en_terms}
        about = [t for t in content if t not in names and cl.stem(t) not in names]
        codes = cl.codes(text)
        return cls(text=text, terms=cl.key_terms(text), content=content, quantities=cl.quantities(text),
                   codes=codes, negated=cl.negated(text), subjects=mentioned, about=about,
                   own_codes=[c for c in codes if not any(_same_code(c, m) for m in model_codes)])

    def language_text(self) -> str:
        """The text whose language is the claim's (:func:`language_text`)."""
        return language_text(self.sentence, self.text)

    def anchors(self) -> list[cl.Quantity]:
        """The numbers the claim itself asserts (not those of the question it answers): facts a window
        in another language can state word for word ("4.2 L" of "空气炸锅的容量是多少？ 4.2 L"). Codes
        are not: a code names what a sentence is about ("E2"), and any window about E2 holds it."""
        given = cl.quantities(self.given)
        return [x for x in self.quantities if not any(x.same(g) for g in given)]

    def coverage(self, text: str) -> float:
        """The share of the claim's facts ``text`` states: content terms (not the subject's name),
        numbers with units, codes."""
        have_q, have_c = cl.quantities(text), cl.codes(text)
        n = len(self.about) + len(self.quantities) + len(self.own_codes)
        if not n:
            return 0.0
        got = len(cl.contained(self.about, text)) + sum(any(q.same(h) for h in have_q) for q in self.quantities) \
            + sum(any(_same_code(c, h) for h in have_c) for c in self.own_codes)
        return got / n


@dataclass
class Finding:
    """One window judged against one claim."""

    role: str  # "supports" | "contradicts" | "other subject" | "weak"
    cosine: float | None
    literal: float  # share of the claim's key terms in the window
    focus: str
    reasons: list[str] = field(default_factory=list)
    cover: float = 0.0  # ClaimFacts.coverage of the window
    clean: bool = False  # no conflict and nothing missing (numbers, codes): only too far, if weak
    fits: bool = True  # the window's subject fits the claim's (else another product's fact)

    @property
    def supports(self) -> bool:
        return self.role == "supports"


def _same_code(a: str, b: str) -> bool:
    return a == b or a.startswith(b) or b.startswith(a)  # KX2000 is KX2000W's family model


def compare_numbers(claim: ClaimFacts, focus: str,
                    rules: VerdictRules = DEFAULT_VERDICT) -> tuple[list[str], list[str]]:
    """(conflicts, gaps) between the claim's numbers and the focus text's."""
    conflicts, gaps = [], []
    # the claim's words name a kind of number that none of its own numbers is ("weighs 3.5 litres"):
    # what it states is not what the window's 3.5 litres says, however equal the numbers
    kinds = cl.named_kinds(claim.sentence or claim.text)
    dims = {q.dim for q in claim.quantities if q.dim}
    if kinds and dims and not kinds & dims:
        q = next(q for q in claim.quantities if q.dim)
        conflicts.append(f"kind: the claim gives {q.text} ({q.dim}) for a {' or '.join(sorted(kinds))}")
    have = cl.quantities(focus)
    for q in claim.quantities:
        if any(q.same(h) for h in have):
            continue
        other = [h for h in have if q.dim and h.dim == q.dim]
        if other:
            conflicts.append(f"number: the claim says {q.text}, the window says {other[0].text}")
            continue
        unit = [h for h in have if h.dim and q.dim and cl.same_value(h.value, q.value)]
        if unit:
            conflicts.append(f"unit: the claim says {q.text}, the window says {unit[0].text}")
            continue
        bare = [h for h in have if q.dim is None and h.dim is None and h.value >= rules.bare_number_min
                and q.value >= rules.bare_number_min
                and len(str(int(h.value))) == len(str(int(q.value)))]
        if bare:
            conflicts.append(f"number: the claim says {q.text}, the window says {bare[0].text}")
            continue
        gaps.append(f"the window does not state {q.text}")
    return conflicts, gaps


def compare_codes(claim: ClaimFacts, focus: str, subjects: SubjectIndex | None) -> tuple[list[str], list[str]]:
    conflicts, gaps = [], []
    have = cl.codes(focus)
    subject_codes = set().union(*(s.codes for s in subjects.subjects.values())) if subjects else set()
    for c in claim.codes:
        if any(_same_code(c, h) for h in have):
            continue
        rival = [h for h in have if cl.code_family(h) == cl.code_family(c) and not _same_code(c, h)]
        if rival and not any(_same_code(c, s) for s in subject_codes):
            conflicts.append(f"code: the claim says {c}, the window says {', '.join(rival)}")
        elif not any(_same_code(c, s) for s in subject_codes):
            gaps.append(f"the window does not name {c}")
    return conflicts, gaps


def is_question(text: str) -> bool:
    """A question ("**What does E4 mean?**", "问：…？") asks and states nothing."""
    t = text.strip().strip("*_ ").strip()
    return t.endswith(("?", "？")) or t.startswith(("问：", "问:", "Q:"))


def pick_focus(claim: ClaimFacts, sentences: list[str], cosines: list[float | None], doc_id: str,
               subjects: SubjectIndex | None) -> tuple[str, float | None, set[int]]:
    """The focus of a window: (text, its cosine when one sentence, its subjects)."""
    def subj(text):
        return subjects.of_window(doc_id, text) if subjects else set()

    best = None
    for text, cos in zip(sentences, cosines):
        if not text.strip():
            continue
        s = subj(text)
        key = (compatible(claim.subjects, s), not is_question(text), len(cl.contained(claim.content, text)),
               cos if cos is not None else -1)
        if best is None or key > best[0]:
            best = (key, text.strip(), cos, s)
    whole = "".join(sentences).strip()
    if best is None:
        return whole, None, subj(whole)
    s_whole = subj(whole)
    if compatible(claim.subjects, s_whole) and len(cl.contained(claim.content, whole)) > best[0][2]:
        return whole, None, s_whole
    return best[1], best[2], best[3]


@dataclass
class Measure:
    """What one window says about one claim, before any threshold (:func:`classify` applies them)."""

    cosine: float | None
    literal: float
    cover: float
    focus: str
    fits: bool  # the window's subject fits the claim's
    conflicts: list[str]
    gaps: list[str]
    other: str = ""  # the reason when the subject does not fit
    cross: bool = False  # the claim and the focus are in different languages (no term can match)
    anchored: bool = False  # across languages: the focus states every number the claim asserts
    anchor_conflict: bool = False  # across languages: the focus states another value of one of them
    anchors: str = ""  # those numbers, for the reason


def measure(claim: ClaimFacts, sentences: list[str], cosines: list[float | None], window_cos: float | None,
            doc_id: str, subjects: SubjectIndex | None, rules: VerdictRules = DEFAULT_VERDICT) -> Measure:
    """Measure one window (its sentences, their cosines, the window's cosine) against a claim."""
    focus, focus_cos, subj = pick_focus(claim, sentences, cosines, doc_id, subjects)
    cos_values = [c for c in (window_cos, focus_cos) if c is not None]
    cos = max(cos_values) if cos_values else None
    literal = len(cl.contained(claim.terms, focus)) / len(claim.terms) if claim.terms else 0.0
    cover = claim.coverage("".join(sentences))
    cross = detect_lang(claim.language_text()) != detect_lang(focus)
    if not compatible(claim.subjects, subj):
        other = (f"another product's fact: this window is about {subjects.label(subj)}, the claim about "
                 f"{subjects.label(claim.subjects)}") if subjects else "another subject"
        return Measure(cos, literal, cover, focus, False, [], [], other, cross)
    n_conf, n_gaps = compare_numbers(claim, focus, rules)
    c_conf, c_gaps = compare_codes(claim, focus, subjects)
    conflicts = n_conf + c_conf
    if claim.negated != cl.negated(focus) and not is_question(focus):
        conflicts.append("polarity: " + ("the window negates, the claim does not" if not claim.negated
                                         else "the claim negates, the window does not"))
    anchored = anchor_conflict = False
    names = ""
    if cross:  # the claim's own numbers against the focus (its question's are not evidence)
        aq = claim.anchors()
        hq = cl.quantities(focus)
        anchored = bool(aq) and all(any(x.same(h) for h in hq) for x in aq)
        anchor_conflict = bool(compare_numbers(replace(claim, quantities=aq), focus, rules)[0]) if aq else False
        names = ", ".join(x.text for x in aq)
    return Measure(cos, literal, cover, focus, True, conflicts, n_gaps + c_gaps, cross=cross, anchored=anchored,
                   anchor_conflict=anchor_conflict, anchors=names)


def classify(m: Measure, t: Thresholds, rules: VerdictRules = DEFAULT_VERDICT) -> Finding:
    """The window's role under thresholds ``t``: supports, contradicts, other subject or weak."""
    c = m.cosine if m.cosine is not None else -1.0
    # a conflict counts only in a window that speaks of what the claim speaks of
    # a cosine alone supports only across languages, where no term of the claim can be found: in one
    # language e5 puts sentences of one topic above 0.9 whatever they state (bench/verdicts.py)
    alone = m.cross and c >= t.high
    # across languages the claim's own numbers are the words that can match: a window at the support
    # cosine stating all of them supports ("4.2 L" at cosine 0.870 from the English "4.2 L" line, for
    # "空气炸锅的容量是多少？"); one on the topic stating another value of them contradicts (a negation
    # alone does not: one sentence of the window may negate something else)
    on_topic = m.cover >= rules.on_topic_cover or (c >= t.topic and m.cover > 0) or alone or \
        (m.cross and c >= t.topic and (m.anchored or m.anchor_conflict))
    strong = (c >= t.support and m.cover >= t.cover) or alone or m.literal >= t.literal or \
        (m.cross and m.anchored and c >= t.support)
    args = (m.cosine, m.literal, m.focus)
    if not m.fits:
        return Finding("other subject" if on_topic else "weak", *args, [m.other], m.cover, fits=False)
    # across languages only a number the claim itself asserts can conflict reliably: a negation or
    # a code is read in sentences that need not be the claim's counterpart
    if m.conflicts and on_topic and (not m.cross or m.anchor_conflict):
        return Finding("contradicts", *args, m.conflicts + m.gaps, m.cover)
    if strong and not m.conflicts and not m.gaps:
        if m.cross and not alone and m.literal < t.literal and not (c >= t.support and m.cover >= t.cover):
            return Finding("supports", *args, [f"in the other language, the window states {m.anchors} as the claim "
                                               f"does (cosine {c:.3f}); codes, polarity and subject agree"],
                           m.cover)
        return Finding("supports", *args, [f"the window says the same (cosine {c:.3f}, {m.cover:.0%} of the "
                                           "claim's facts); numbers, codes, polarity and subject agree"], m.cover)
    reasons = m.conflicts + m.gaps
    clean = not m.conflicts and not m.gaps
    if not strong:
        reasons.append(f"too far from the claim (cosine {c:.3f}, {m.cover:.0%} of its facts; supports at "
                       f"{t.support:g} with {t.cover:.0%}" + (f", or {t.high:g} in another language)" if m.cross
                                                             else ")"))
    return Finding("weak", *args, reasons, m.cover, clean=clean)


def judge(claim: ClaimFacts, sentences: list[str], cosines: list[float | None], window_cos: float | None,
          doc_id: str, subjects: SubjectIndex | None, t: Thresholds, rules: VerdictRules = DEFAULT_VERDICT) -> Finding:
    """Judge one window against a claim: :func:`measure`, then :func:`classify`."""
    f = classify(measure(claim, sentences, cosines, window_cos, doc_id, subjects, rules), t, rules)
    return f


def strength(f: Finding) -> tuple[float, float]:
    """How much a window is about the claim: its coverage first, then its cosine."""
    return (round(f.cover, 6), f.cosine if f.cosine is not None else 0.0)


def decide(findings: list[Finding]) -> tuple[str, int | None]:
    """The claim's verdict from its windows' findings, and the index of the deciding finding:
    the stronger (:func:`strength`) of the best supporting and the best contradicting window;
    else ``not found``, decided by the best window about another subject, else the closest."""
    best = {}
    for role in ("supports", "contradicts"):
        ks = [k for k, f in enumerate(findings) if f.role == role]
        if ks:
            best[role] = max(ks, key=lambda k: strength(findings[k]))
    if best:
        both = "supports" in best and "contradicts" in best
        if both and strength(findings[best["contradicts"]]) > strength(findings[best["supports"]]):
            return "contradicted", best["contradicts"]
        return ("supported", best["supports"]) if "supports" in best else ("contradicted", best["contradicts"])
    ks = [k for k, f in enumerate(findings) if f.role == "other subject"] or list(range(len(findings)))
    return "not found", (max(ks, key=lambda k: strength(findings[k])) if ks else None)
