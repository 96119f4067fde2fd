"""Answerability: does the retrieved evidence answer the question at all?

Retrieval always returns *something*; "What is the capital of France?" against appliance manuals
returns a table border. Two signals decide, both on scales that mean the same for every question:

- ``cosine``: the best cosine between the question (query prefix) and a retrieved sentence
  (passage prefix), from the dense scores of the hits or their stored vectors. Never a fused
  score: DBSF and RRF scores are normalised per result list, so the best hit of a hopeless
  question scores as high as that of a good one. Only cosines that vouch for the question
  count (:func:`best_hit`): those of the question's own vector, in any document; those of a
  vector standing in for it (its translation's, or the question without its product's name)
  only in the documents the question names (a translation's vector is a gloss of the question:
  "What year did Tesla die?" scores 0.846 through a translated hit against the wrong, Chinese,
  knowledge base of ``bench/answerable.py``, 0.729 by its own vector); and, when the question
  names a product, none in another product's document unless the sentence itself names the
  question's product (an FAQ's "On the AF-360 air fryer, E4 tells you ..."):
  "空气炸锅的容量是多少？"'s own vector is closest to a kettle sentence. The hits' via
  (``swr.retrieve.crosslingual``) says which vector found them; the named and foreign documents come
  with the hits (:class:`swr.core.types.Hits`, :class:`swr.engine.Retrieval`);
- ``coverage``: the share of the question's content terms (no question words) found in the
  retrieved passages.

A question's model numbers and error codes (``E2``, ``KX-2000``) decide first: one that no passage
holds (nor names a passage's document) makes it unanswerable (the passages are about another
code), and all of them held in a document the question names answer it at ``cosine >= low``.
Otherwise answerable when ``cosine >= high`` and a question term is in the passages (or the
question has none, only a code), or ``cosine >= low`` and ``coverage >= cover``, or, when the
closest sentence is in the other language than the question (e5 scores those lower and no term can match),
``cosine >= cross`` with a shared term or a product the question names, or ``cosine >=
cross_names`` with a name of the question's translation written as a name in the passages
(:func:`translated_names`), or, when passages of the other language were retrieved (by the
question's translation), their best hit's cosine at ``translated_cos`` with ``translated_cover`` of
the translation's terms written there (:func:`translated_evidence`); what the bars refuse, the
evidence score (swr/answer/evidence.py, which reads the language-centred cosine too) may
answer. Across languages a shared term counts only in the passages of the closest sentence's
language (a code or number is written alike in both). The bars are per embedding model, set on
``bench/answerable.py``'s tuning half and reported on both halves (``bench/README.md``); the
translated-evidence bars on bench/real_kbs.py's refusal part. Last, whatever answered it, a question
about a kind of product or a maker that no document of the knowledge base names is refused
(swr/answer/products.py: "my tumble dryer" on a robot vacuum's FAQ). Every number is on
:class:`swr.core.rules.answerable.AnswerRules` (``RetrievalParams.answerable``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum

from swr.answer.answerable_terms import (
    Translated,
    absent_names,
    code_evidence,
    compound_cover,
    coverage,
    evidence_coverage,
    question_terms,
    topic_terms,
    translated_evidence,
    translated_names,
    unknown_terms,
    unwritten,
)
from swr.answer.centred import best_centred, centred_turn, hub_weight
from swr.answer.evidence import standout, weigh
from swr.answer.products import absent_products
from swr.answer.smalltalk import small_talk
from swr.answer.substantive import substantive_text
from swr.core.ids import sentence_id
from swr.core.lang import detect_lang, has_han
from swr.core.rules.answerable import DEFAULT_ANSWER, AnswerRules, AnswerThresholds
from swr.core.types import Passage
from swr.retrieve.aliases import sources_named


class Rule(str, Enum):
    """The rule that decided a question's answerability (kept in the answer's trace)."""

    NO_SENTENCE = "answerable.no_sentence"  # nothing substantive retrieved
    SMALL_TALK = "answerable.small_talk"  # closer to a small-talk example than to the knowledge base
    CODE_MISSING = "answerable.code_missing"  # a code of the question no passage writes
    NAME_ABSENT = "answerable.name_absent"  # a Chinese name neither the passages nor their documents write
    PRODUCT_ABSENT = "answerable.product_absent"  # a product kind asked about that no document names (products.py)
    UNKNOWN_TERMS = "answerable.unknown_terms"  # most of the question's terms in no document
    CODES_NAMED = "answerable.codes_named"  # the question's codes held in a document it names
    TRANSLATED = "answerable.translated"  # the other language's passages: its hit's cosine, the translation's terms
    TRANSLATED_HIGH = "answerable.translated_high"  # the other language's passages: its hit's cosine alone
    SUBJECT_NAMED = "answerable.subject_named"  # the question names a passage's document; its terms there
    CROSS_NAMES = "answerable.cross_names"  # across languages: the translation's names in the passages
    CROSS = "answerable.cross"  # across languages: cosine and a shared term or named product
    HIGH = "answerable.high"  # cosine at the high bar with a term of the question
    LOW_COVER = "answerable.low_cover"  # cosine at the low bar with most of the question's terms
    EVIDENCE = "answerable.evidence"  # the bars refused, the evidence score answers (EvidenceModel)
    CENTRED = "answerable.centred"  # ... and the score refused, the centred cosine answers (answer/centred.py)
    NO_TERM = "answerable.no_term"  # high cosine, but none of the question's terms in the passages
    BELOW = "answerable.below"  # cosine below the bars


class Reason(str):
    """A decision's reason (a plain string, as before) that also carries its :class:`Rule`."""

    rule: Rule

    def __new__(cls, text: str, rule: Rule) -> "Reason":
        obj = super().__new__(cls, text)
        obj.rule = rule
        return obj


@dataclass
class Answerability:
    """Whether the evidence answers the question, and the figures that decided it."""

    answerable: bool
    score: float  # the deciding cosine
    coverage: float
    reason: str
    thresholds: dict
    rules: list = field(default_factory=list)  # the Rule ids that decided (swr.answer.answerable.Rule values)
    signals: dict = field(default_factory=dict)  # the figures the rules read, for the trace and calibration

    def to_dict(self) -> dict:
        return asdict(self)


def thresholds_for(model: str, rules: AnswerRules = DEFAULT_ANSWER) -> AnswerThresholds:
    return rules.thresholds(model)


def rules_of(params) -> AnswerRules:
    """The answerability rules of a retrieval's params (a :class:`swr.core.params.RetrievalParams`
    or its dict: its ``answerable`` field); the defaults without."""
    if isinstance(params, dict):
        return AnswerRules.from_dict(params.get("answerable"))
    return getattr(params, "answerable", None) or DEFAULT_ANSWER


def counted(hit) -> bool:
    """Whether ``hit``'s own cosine (``Hit.dense_score``) can count toward :func:`best_hit`: the
    question's own vector's (``via`` None or "lang-list"), or any list's in a document the
    question names (``via`` carries "alias": a translation's, or the question's without the
    product's name); never a translation's cosine in a document the question does not name (the
    module docstring says why). Counting every hit's cosine answered 3 of 52 held-out questions
    against a knowledge base of the other language (bench/README.md, "Answerability": 0 of 52)."""
    via = hit.via or ""
    return hit.dense_score is not None and (via in ("", "lang-list") or "alias" in via)


def names_one_of(engine, kb: str, text: str, named) -> bool:
    """Whether ``text`` (a sentence) itself names (swr.retrieve.aliases, any language) one of the documents
    ``named`` ("On the AF-360 air fryer, E4 tells you ..." in an FAQ names the air fryer's manual)."""
    return bool(named) and bool(sources_named(engine, kb, text) & set(named))


def _grounds(engine, kb: str, named, foreign):
    """The test :func:`best_hit` puts a candidate sentence to: not of a ``foreign`` document
    (another product's than the question names), unless the sentence names a ``named`` one."""
    def ok(source: str, text: str) -> bool:
        return source not in foreign or names_one_of(engine, kb, text, named)
    return ok


grounds = _grounds  # the public name (swr.answer.extractive's candidates pass the same test)


def best_hit(engine, question: str, kb: str, hits, filters: dict | None = None,
             pool: list | None = None, foreign=frozenset(), named=frozenset(),
             rules: AnswerRules | None = None) -> tuple[float, str] | None:
    """(cosine, text) of the substantive sentence of ``kb`` closest to the question, whatever the
    fusion of ``hits``.

    ``pool``: the dense candidates ``(point id, cosine)`` the retrieval's own search already
    ranked with the question's vector (:class:`swr.core.types.Hits`, the same filters), read best
    first, ``rules.pool_read`` at a time, to the first substantive one: no second search (a second
    search was half a quiet question's time). Without a pool, or with nothing
    substantive in it, a dense search with the same source/tag/language filters. Of ``hits``,
    the cosines :func:`counted`. ``named`` / ``foreign``: the sources of the documents the
    question names and of another product's documents (:attr:`swr.core.types.Hits.named`,
    ``.foreign``): a sentence of a foreign document counts only when it names a named one.
    """
    ok = _grounds(engine, kb, frozenset(named or ()), frozenset(foreign or ()))
    rules = rules or rules_of(filters)
    read = rules.pool_read
    dense: list[tuple[float, str]] = []
    if pool:
        best: dict[str, float] = {}
        for pid, score in pool:
            if score > best.get(pid, float("-inf")):
                best[pid] = score
        ranked = sorted(best.items(), key=lambda t: -t[1])
        for at in range(0, len(ranked), read):  # table borders can fill the top: read on
            top = ranked[at:at + read]
            texts = {sentence_id(s.kb, s.doc_id, s.i): (s.source, s.text)
                     for s in engine.store.get([p for p, _ in top])}
            dense = [(score, texts[pid][1]) for pid, score in top
                     if pid in texts and substantive_text(texts[pid][1]) and ok(*texts[pid])]
            if dense:
                break
    if not dense:  # no pool, or nothing substantive in it: a dense search of its own
        f = {k: v for k, v in (filters or {}).items() if k in ("sources", "tags", "lang") and v}
        found = engine.retrieve(question, kb, mode="dense", top_k=rules.dense_k, stages=(), min_score=None, **f)
        mine = _grounds(engine, kb, found.named, found.foreign)
        dense = [(h.dense_score, h.sentence.text) for h in found.hits
                 if counted(h) and mine(h.sentence.source, h.sentence.text)]
    scored = [(cos, text) for cos, text in dense + [(h.dense_score, h.sentence.text) for h in hits
                                                     if counted(h) and ok(h.sentence.source, h.sentence.text)]
              if substantive_text(text)]
    return max(scored) if scored else None


def _codes_and_names(cos: float, cross: bool, t: AnswerThresholds, codes: tuple, missing: tuple, absent: tuple,
                     unknown: tuple, n_terms: int, rules: AnswerRules,
                     translated: tuple | None = None) -> tuple[bool, str] | None:
    """:func:`decide`'s first rules, on what the question names: its codes, its Chinese names, its
    terms no document uses (None: none of them decides)."""
    # a code says exactly what is asked about, in either language: passages without it are about something
    # else ("What does E9 mean on the air fryer?": no manual lists an E9, its closest are other codes' rows)
    if missing:
        return False, Reason(f"cosine {cos:.3f}, but the question's {', '.join(missing)} is in none of the passages",
                             Rule.CODE_MISSING)
    # when a document the question names holds every code of it, that is evidence no paraphrase
    # fakes: the low bar ("What does error E2 mean on the air fryer?", 0.875 to "E2 means fan
    # fault.", only "error" of its words in the passages: it sat on the high bar, 0.874895 on the
    # 4-bit engine). Not for a code alone: every sample manual has an E5, and "What does error E5
    # mean on my washing machine?" names none of them
    if codes and cos >= t.low:
        return True, Reason(f"cosine {cos:.3f} >= {t.low:g} and the passages of the document it names hold "
                      f"the question's {', '.join(codes)}", Rule.CODES_NAMED)
    # in one language, a name the question asks about (a person, a railway) that neither the passages
    # nor their documents write: they are about someone else, however close (e5's Chinese cosines
    # run high: "广茂铁路全长多少公里？" scored 0.895 against another railway's article)
    if not cross and absent:
        return False, Reason(f"cosine {cos:.3f}, but the question's {', '.join(absent)} is in none of the passages "
                       "or their documents", Rule.NAME_ABSENT)
    # in one language, a question most of whose words no document uses asks about something else
    # ("How do I reset the firmware password of my router?" on the sample manuals; bench/answerable.py:
    # no answered question of its own KB had more than half unknown; half is not enough: "What does
    # error E5 mean on my washing machine?" has only "machine" unknown); of a Chinese question only its
    # topic_terms count ("网上", "那种": how a customer asks). In a KB of both languages the translation
    # speaks for it: when most of its terms are known to the other language's documents, the question
    # is about what they say ("乐器画廊是在哪一年关闭的？" against XQuAD's English paragraph; real,
    # three seeds: 16 of 19 right answers this rule refused, 2 of its 3 off-domain refusals)
    tr = Translated(*translated) if translated else None
    if tr is not None and tr.terms and tr.unknown <= rules.unknown_share * tr.terms:
        return None
    if not cross and n_terms and len(unknown) > rules.unknown_share * n_terms:
        return False, Reason(f"cosine {cos:.3f}, but {len(unknown)} of the question's {n_terms} terms "
                       f"({', '.join(unknown)}) are in no document of this knowledge base", Rule.UNKNOWN_TERMS)
    return None


def decide(cos: float, cover: float, cross: bool, t: AnswerThresholds, named: bool = False,
           has_terms: bool = True, codes: tuple = (), missing: tuple = (), names: tuple = (),
           unknown: tuple = (), n_terms: int = 0, absent: tuple = (), subject: float | None = None,
           translated: tuple | None = None, rules: AnswerRules = DEFAULT_ANSWER,
           held: bool = False) -> tuple[bool, str]:
    # long: one ordered list of rules, each a few lines; the order is the decision (first match wins)
    """The decision on the figures, and why. ``has_terms``: the question has content terms (a
    question of only a code, "E4是什么意思？", has none: its cosine decides alone). ``codes``: the
    question's model numbers and error codes (:func:`swr.text.claims.codes`) when a passage of a document
    the question names holds them all (else empty), ``missing``: those no passage holds;
    ``names``: the names of the question's translation its passages hold (:func:`translated_names`);
    ``unknown``: those of the question's ``n_terms`` content terms no document of the knowledge base
    uses (:func:`unknown_terms`); ``absent``: the question's Chinese names that neither the passages
    nor their documents write (:func:`absent_names`); ``subject``: the share of the question's terms
    in the passages of the documents it names (None: it names none; :class:`SubjectAnswer`);
    ``translated``: (cosine, cover) of the evidence in the other language (:func:`translated_evidence`);
    ``held``: a passage writes a code of the question (a term found, for the bars that need one). The
    reason is a :class:`Reason`: its ``rule`` says which rule decided."""
    first = _codes_and_names(cos, cross, t, codes, missing, absent, unknown, n_terms, rules, translated)
    if first is not None:
        return first
    # across languages a cosine alone is weak evidence (with per-language lists the best sentence of
    # the other language is always a candidate: "What is the speed of light?" scores 0.873 against
    # a Chinese manual, as "空气炸锅的容量是多少？" does against the English one): the cross bar needs a
    # shared term (a code, a number) found in the passages, or a product the question names
    # ... or a name of the question's translation: bench/answerable.py's questions in the other
    # language than their article, answered 5 / 0 -> 14 / 17 (dev / held out), wrong knowledge bases
    # of the other language 0 / 0 -> 1 / 0 of 37 / 40 (bench/README.md, "Answerability")
    if cross and cos >= t.cross_names and names:
        return True, Reason(f"cosine {cos:.3f} >= {t.cross_names:g} (the closest sentence is in the other language) "
                      f"and the passages name its translation's {', '.join(names)}", Rule.CROSS_NAMES)
    # (a code is a shared term: model numbers are written alike in both languages, "LM32-C6")
    # a named product needs a quarter of the translation's words found ("policy" of a01_returns_policy.md)
    tr_named = named and (translated is None or Translated(*translated).cover >= rules.translated_cover)
    if cross and cos >= t.cross and (cover > 0 or tr_named or held):
        return True, Reason(f"cosine {cos:.3f} >= {t.cross:g} (the closest sentence is in the other language) "
                      f"and {cover:.0%} of the question's terms found", Rule.CROSS)
    # in one language a high cosine answers only when a term of the question is in the passages: e5
    # puts "今天天气怎么样？" at 0.878 from a kettle sentence, and no passage says a word of it (on
    # bench/answerable.py no answerable same-language question was answered with none of its terms)
    if cos >= t.high and (cover > 0 or not has_terms or held):
        return True, Reason(f"cosine {cos:.3f} >= {t.high:g}" + (f" and {cover:.0%} of the question's terms found"
                                                                 if has_terms else ""), Rule.HIGH)
    if cos >= t.low and cover >= t.cover:
        return True, Reason(f"cosine {cos:.3f} >= {t.low:g} and {cover:.0%} of the question's terms found",
                            Rule.LOW_COVER)
    # the question names a document of the passages (its product word or model number: "the
    # dehumidifier"), and that document's passages hold half its terms: they are its evidence
    # ("Can I wash the dehumidifier filter in the dishwasher?", 0.869, "Do not put the air filter in
    # a dishwasher." in the DH-20 manual; bench/new_user.py)
    sub = rules.subject
    if not cross and subject is not None and cos >= sub.low and subject >= sub.cover:
        return True, Reason(f"cosine {cos:.3f} >= {sub.low:g} and {subject:.0%} of the question's terms "
                            "found in the passages of the document it names", Rule.SUBJECT_NAMED)
    # the passages of the other language than the question (found by its translation): their best
    # hit's cosine and the translation's words in them vouch for them, as the question's own cosine
    # and words do in its language (real: BiPaR's and XQuAD's cross-language answers were refused
    # 70 % / 83 % of the time, their closest sentence by the question's own vector being another
    # document of its language). Not for a question without content terms: "What is 24 hours in
    # minutes?" finds the rice cooker's "24 小时" by its translation, which vouches for nothing asked
    tr = Translated(*translated) if translated else None
    if has_terms and tr and tr.cos >= rules.translated_cos and tr.cover >= rules.translated_cover \
            and tr.terms >= rules.translated_min_terms and tr.unknown <= rules.unknown_share * tr.terms:
        return True, Reason(f"the other language's passages: cosine {translated[0]:.3f} >= {rules.translated_cos:g} "
                            f"and {translated[1]:.0%} of the question's translated terms found", Rule.TRANSLATED)
    # ... and at a cosine no off-domain question's translation reaches, whatever words the dictionary chose
    # ("I'm not receiving the verification code" -> 受 验证码, one word; "steady red light" -> 稳定 红灯, the help
    # centre's 红色常亮)
    if has_terms and tr and tr.cos >= rules.translated_high:
        return True, Reason(f"the other language's passages: cosine {translated[0]:.3f} >= {rules.translated_high:g}",
                            Rule.TRANSLATED_HIGH)
    bar = t.cross if cross else t.high
    if cos >= bar:
        return False, Reason(f"cosine {cos:.3f}, but none of the question's terms is in the passages", Rule.NO_TERM)
    return False, Reason(f"cosine {cos:.3f} below {bar:g}, and " + (f"below {t.low:g}" if cos < t.low else
                                                                  f"only {cover:.0%} of the question's terms found"),
                         Rule.BELOW)


def _turn(engine, question: str, kb: str, hits, filters, figures: tuple, signals: dict, passages) -> tuple | None:
    """(reason, rule) of what answers what the bars refused: the evidence score, else the centred cosine."""
    rules, (cos, cover, cross, terms, other) = rules_of(filters), figures  # figures: decide()'s, as in assess
    xc = best_centred(hits, hub_weight(filters))  # None: the search did not centre the languages
    if said := weigh(engine, question, kb, cos, cover, cross, terms, other, rules.evidence, signals, passages, xc):
        return Reason(said, Rule.EVIDENCE), Rule.EVIDENCE
    said = centred_turn(engine, question, kb, xc, rules.centred_answer, other)
    return (Reason(said, Rule.CENTRED), Rule.CENTRED) if said else None


def assess(engine, question: str, kb: str, hits, passages: list[Passage], filters: dict | None = None,
           pool: list | None = None, named=frozenset(), foreign=frozenset(),
           translations: dict | None = None, cosines: dict | None = None, vector=None) -> Answerability:
    """Decide whether ``passages`` (retrieved for ``question`` from ``kb`` with ``filters``:
    the retrieval's params) answer it; ``pool``, ``named``, ``foreign``: the retrieval's dense
    candidates and the documents its question names or not, ``translations`` the question's
    translations by language, ``vector`` the question's dense vector (:class:`swr.engine.Retrieval`)."""
    rules = rules_of(filters)
    named_docs = frozenset(named or ())
    t = rules.thresholds(engine.embedder.name)
    best = best_hit(engine, question, kb, hits, filters, pool, foreign, named, rules)
    cover = coverage(question, passages)
    cos, text = best or (0.0, "")
    # nothing substantive retrieved; or closer to a small-talk example than to the KB (answer/smalltalk.py)
    chat = small_talk(engine.embedder, question, cos, rules, vector) if best and t is rules.e5 else None
    if best is None or chat:
        return Answerability(False, round(cos, 6), round(cover, 4), chat or "no substantive sentence was retrieved",
                             t.to_dict(), [(Rule.SMALL_TALK if chat else Rule.NO_SENTENCE).value])
    cross = has_han(question) != has_han(text)
    if not cross and passages and all(has_han(p.text) != has_han(question) for p in passages):
        # the closest sentence is in the question's language but every passage in the other (the Chinese
        # kettle manual's warranty for "Does the kettle have a 5-year warranty?"): read across languages
        cross, text = True, passages[0].text
    cover = evidence_coverage(question, passages, text, cross)  # across languages: in the closest's
    asked = sources_named(engine, kb, question) if passages else set()  # the documents it names, once
    named = cross and any(p.source in asked for p in passages)
    codes, missing, held = code_evidence(engine, question, kb, passages, asked)
    names = translated_names(question, translations, passages, text) if cross else ()
    terms = question_terms(question)
    mine = [p for p in passages if p.source in asked]  # the passages of the documents it names
    subject = coverage(question, mine) if mine and not cross else None
    xl = getattr(engine, "crosslingual", None)
    probe = (lambda terms: xl.unknown(kb, list(terms))) if xl is not None else None
    if probe is not None and terms and translations:  # its and its translations' words: one store call
        probe([*terms, *(t for text in (translations or {}).values() for t in question_terms(text))])
    other = translated_evidence(question, hits, passages, translations, _grounds(engine, kb, named_docs, foreign),
                                probe, rules)
    ok, why = decide(cos, cover, cross, t, named, has_terms=bool(terms), codes=codes, missing=missing,
                     names=names, n_terms=len(terms), subject=subject, translated=other, rules=rules, held=held)
    if ok and not cross and terms:  # the unknown-terms rule only refuses: its store probe only then (py-spy)
        unknown = unwritten(unknown_terms(engine, question, kb), passages, topic_terms(question, terms))
        cover = compound_cover(question, passages, unknown, cover, terms)  # "air" of "air fryer": not alone
        ok, why = decide(cos, cover, cross, t, named, has_terms=True, codes=codes, missing=missing, names=names,
                         unknown=unknown, n_terms=len(terms),
                         absent=absent_names(engine, question, kb, passages, rules), subject=subject,
                         translated=other, rules=rules, held=held)
    rule = getattr(why, "rule", None)
    signals = {"cos": round(cos, 4), "cover": round(cover, 4), "cross": cross, "named": bool(named),
               "subject": None if subject is None else round(subject, 4),
               "translated": None if other is None else [round(x, 4) for x in other],
               "terms": len(terms), "codes": len(codes), "missing": len(missing), "names": len(names),
               "held": held, "standout": standout(cosines, detect_lang(question), rules.evidence.standout_depth)}
    if not ok and rule in (Rule.BELOW, Rule.NO_TERM) and t is rules.e5:  # the bars refused: the score's turn
        if turn := _turn(engine, question, kb, hits, filters, (cos, cover, cross, terms, other), signals, passages):
            (why, rule), ok = turn, True
    if ok and rules.product_absent and (gone := absent_products(engine, question, kb, passages)):  # only refuses
        ok, why = False, Reason(f"the question asks about {', '.join(gone)}, which no document of this "
                                "knowledge base names", Rule.PRODUCT_ABSENT)
    return Answerability(ok, round(cos, 6), round(cover, 4), str(why), t.to_dict(),
                         [why.rule.value] if getattr(why, "rule", None) else [], signals)
