"""What answerability reads in the evidence besides cosines: the question's codes and model
numbers the passages hold (or lack), the names of its translation, its Chinese names the passages
do not write, and its terms no document of the knowledge base uses (swr.answer.answerable decides
on them)."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePath
from typing import NamedTuple

from swr.core.lang import HAN_BMP, HAN_BMP_RE, has_han
from swr.core.rules.answerable import DEFAULT_ANSWER, AnswerRules
from swr.core.types import Passage
from swr.retrieve.aliases import sources_named
from swr.text import claims as cl, transliterate as tr
from swr.text.stopwords import ASK_WORDS, EN_CONTRACTIONS


def question_terms(question: str) -> list[str]:
    """The question's content terms without question words (its key terms are remembered per text:
    :func:`swr.text.claims.key_terms`)."""
    return [t for t in cl.content_terms(question)
            if t not in ASK_WORDS and t not in EN_CONTRACTIONS and cl.stem(t) not in ASK_WORDS]


def coverage(question: str, passages: list[Passage]) -> float:
    terms = question_terms(question)
    if not terms:
        return 0.0
    text = "\n".join(p.text for p in passages)
    return len(cl.contained(terms, text)) / len(terms)


def evidence_coverage(question: str, passages: list[Passage], closest: str, cross: bool) -> float:
    """:func:`coverage` as :func:`assess` counts it: across languages (``cross``: the closest
    sentence, ``closest``, is in the other language than the question) only in the passages of
    the closest sentence's language (the module docstring)."""
    if cross:
        passages = [p for p in passages if has_han(p.text) == has_han(closest)]
    return coverage(question, passages)


def compound_cover(question: str, passages, unknown: tuple, cover: float, terms: list | None = None) -> float:
    """``cover`` again, a term written right beside an unknown term of the question not counted as
    found: the two name one thing ("air fryer" on a dehumidifier's knowledge base, whose "air filter"
    holds "air"; bench/new_user.py), so the known half found alone says nothing of it. ``terms``:
    the question's :func:`question_terms`, when the caller has them."""
    terms, low = question_terms(question) if terms is None else terms, question.lower()
    beside = set()
    for u in unknown:
        for m in re.finditer(rf"(\w+)[ -]{re.escape(u.lower())}\b|\b{re.escape(u.lower())}[ -](\w+)", low):
            beside |= {t for t in terms if t.lower() == (m.group(1) or m.group(2))}
    if not terms or not beside:
        return cover
    found = [t for t in cl.contained(terms, "\n".join(p.text for p in passages)) if t not in beside]
    return min(cover, len(found) / len(terms))


class CodeEvidence(NamedTuple):
    """The question's codes as :func:`decide` reads them (:func:`code_evidence`)."""

    codes: tuple[str, ...]  # all of them, when every one is held by a passage of a document the question names
    missing: tuple[str, ...]  # those no passage holds, and neither names nor is written in a passage's document
    held: bool = False  # a passage holds one and none is missing (a term found, for the bars that need one)


def code_evidence(engine, question: str, kb: str, passages: list[Passage],
                  asked: set[str] | None = None) -> CodeEvidence:
    """The question's model numbers and error codes (``E2``, ``KX-2000``: :func:`swr.text.claims.codes`,
    written alike in Chinese and English) as :func:`decide` reads them (:class:`CodeEvidence`).
    ``codes``: all of them, when every one is held by a passage of a document the question names
    (else empty); ``missing``: those neither a passage holds nor a passage's document is named by
    (the AF-360 of "What should I do before using the AF-360 air fryer for the first time?" names
    the manual whose first-use passages never repeat it) nor writes anywhere (a product FAQ's page on
    the EB-300's display, whose answer sentence says "the display"); ``held``: none is missing and a passage
    holds one. ``asked``: the sources the question names
    (:func:`swr.retrieve.aliases.sources_named`), when the caller has them."""
    codes = tuple(cl.codes(question))
    if not codes:
        return CodeEvidence((), ())
    text = "\n".join(p.text for p in passages)
    held = set(cl.codes(text)) | {c for c in codes if cl.written(c, text)}  # a model name's part: "C3" of XK32-C3
    missing = tuple(c for c in codes if c not in held and not names_a_subject(engine, c, kb, passages))
    if missing:  # a model name the passages' own document writes elsewhere: the passage is about that product
        missing = tuple(c for c in missing if c not in written_in_documents(engine, kb, missing, passages))
    if missing:
        return CodeEvidence((), missing)
    any_held = any(c in held for c in codes)
    asked = sources_named(engine, kb, question) if asked is None else asked
    if not any(p.source in asked and any(cl.written(c, p.text) for c in codes) for p in passages):
        return CodeEvidence((), (), any_held)
    return CodeEvidence(codes, (), any_held)


_NAME_PARTS = re.compile(r"[_.\s]+")  # a file name's word separators (a hyphen stays: "RV-8_manual")


def written_in_documents(engine, kb: str, codes: tuple, passages: list[Passage],
                         rules: AnswerRules = DEFAULT_ANSWER) -> set[str]:
    """Those of ``codes`` that a document the passages come from (the first ``rules.name_docs``, each
    read once) writes anywhere, its file name included (:func:`swr.text.claims.written`: "EB300" in
    "EB-300"; a page "rv8_troubleshooting.md" titled "Troubleshooting"). An error code asked about that
    the document does not list stays missing (no manual of the sample knowledge base writes an E9); a
    model name its page writes in another sentence is that product's. A store failure reads as not
    written (the code stays missing, as before the read)."""
    found: set[str] = set()
    try:
        for doc, source in list(dict.fromkeys((p.doc_id, p.source) for p in passages))[:rules.name_docs]:
            body = "\n".join([" ".join(_NAME_PARTS.split(PurePath(source).stem)),
                              *(s.text for s in engine.store.scroll_doc(kb, doc))])
            found |= {c for c in codes if c not in found and cl.written(c, body)}
            if len(found) == len(codes):
                break
    except Exception:  # noqa: BLE001  (evidence only)
        return found
    return found


_CAPITAL = re.compile(r"\b[A-Z][A-Za-z]+")


def translated_names(question: str, translations: dict | None, passages: list[Passage], closest: str) -> tuple:
    """The names of the question's translation into the closest sentence's language that its
    passages in that language write as names too: across languages no word of the question can
    be found, but a proper noun of its translation can ("萨克森花园用波兰语怎么说？" -> "garden use
    Polish how say" -> "Polish" in the Saxon Garden article). A name is a word the translation
    capitalises (CC-CEDICT glosses names only; an LLM's translation also its first word, which
    :func:`question_terms` drops when it asks), found capitalised in a passage, by stem. English
    passages only: Chinese has no capitals."""
    text = (translations or {}).get("en", "")
    if not text or has_han(closest) or not has_han(question):  # a Chinese question, an English closest
        return ()
    capital = {w.lower() for w in _CAPITAL.findall(text)}
    names = [t for t in question_terms(text) if t in capital]
    if not names:
        return ()
    body = "\n".join(p.text for p in passages if not has_han(p.text))
    written = {cl.stem(w.lower()) for w in _CAPITAL.findall(body)}
    return tuple(t for t in cl.contained(names, body) if cl.stem(t) in written)


def unknown_terms(engine, question: str, kb: str) -> tuple[str, ...]:
    """The question's content terms that no sentence of ``kb`` uses (one batched BM25 probe of the
    new ones, cached per knowledge base version: :meth:`swr.retrieve.crosslingual.CrossLingual.unknown`)."""
    terms = question_terms(question)
    xl = getattr(engine, "crosslingual", None)
    if not terms or xl is None:
        return ()
    try:
        return tuple(xl.unknown(kb, terms))
    except Exception:  # noqa: BLE001  (a hint only: never fail an answer over it)
        return ()


# jieba's part-of-speech tags of a name: person, place, organisation, other proper noun
_NAME_TAGS = frozenset({"nr", "ns", "nt", "nz", "nrt", "nrfg"})
_ALL_CJK = re.compile(f"[{HAN_BMP}]+")  # the Chinese characters swr.text.claims reads terms by


def unwritten(unknown, passages: list[Passage], among=None) -> tuple[str, ...]:
    """The ``unknown`` terms (of those ``among``, when given) the passages do not write: a Chinese term
    they write is known, however BM25 cut their text ("扫地机报 E14 是怎么回事？": jieba keeps 扫地机
    whole in the question and cuts the FAQ's 扫地机器人 into 扫地 + 机器人, so 扫地机 was "in no
    document" and the answer refused)."""
    return tuple(u for u in unknown if (among is None or u in among)
                 and not (_ALL_CJK.fullmatch(u) and any(u in p.text for p in passages)))


NAME_CHARS = 2  # size: a Chinese name has two characters or more (one is a surname, or no name)


# jieba's tags of the words that say how a Chinese question is asked rather than what about:
# pronouns, adverbs, time, place and direction words, numbers and measure words, prepositions,
# conjunctions, particles and interjections ("那种", "马上", "网上", "五点", "一部")
_HOW_TAGS = frozenset({"r", "rr", "rz", "d", "dg", "t", "tg", "s", "f", "m", "mq", "q", "p", "c",
                       "u", "uj", "ul", "uz", "ug", "uv", "ud", "y", "e", "o"})


@lru_cache(maxsize=256)
def _tagged(question: str) -> tuple[tuple[str, str], ...]:
    """jieba's (word, part-of-speech tag) pairs of a Chinese question: tagged once for both its
    names (:func:`question_names`) and its topic terms (:func:`topic_terms`)."""
    import jieba.posseg as pseg

    cl.jieba_module()  # jieba with its log level set once
    return tuple((w.word, w.flag) for w in pseg.cut(cl.norm(question)))


def topic_terms(question: str, terms: list[str]) -> list[str]:
    """The ``terms`` of ``question`` (:func:`question_terms`) that say what it asks about: all of
    them in a question without Chinese; in a Chinese one, those jieba does not tag as a word of how
    it is asked (``_HOW_TAGS``; a term its tagger cut otherwise counts). The unknown-terms rule
    (:func:`swr.answer.answerable.decide`) counts only these as unknown: a customer's "网上便宜的那种"
    is in no help-centre article and says nothing about whether the question asks about something
    else (bench/results/refusals.md, "The Chinese help centre")."""
    if not has_han(question) or not terms:
        return list(terms)
    tags: dict[str, str] = {}
    for word, tag in _tagged(question):
        tags.setdefault(word, tag)
    return [t for t in terms if not has_han(t) or tags.get(t, "x") not in _HOW_TAGS]


def question_names(question: str) -> tuple[str, ...]:
    """The Chinese names a question asks about that jieba's dictionary does not know: words of two
    or more Chinese characters that its HMM found and tagged as a name ("广茂" of "广茂铁路全长多少公里？",
    "徐晓飞"). A known word ("华为", "空气炸锅") or a new word tagged otherwise ("晨川", the sample's
    brand: a noun) is none: the rule reads only the names a passage about them must write."""
    if not has_han(question):
        return ()
    tagged = _tagged(question)
    known = cl.jieba_module().dt.FREQ
    out = [word for word, tag in tagged if tag in _NAME_TAGS and len(word) >= NAME_CHARS
           and not known.get(word) and _ALL_CJK.fullmatch(word)]
    return tuple(dict.fromkeys(out))


def absent_names(engine, question: str, kb: str, passages: list[Passage],
                 rules: AnswerRules = DEFAULT_ANSWER) -> tuple[str, ...]:
    """The question's names (:func:`question_names`) that neither a passage nor the passages'
    documents (the first ``rules.name_docs``) write: the passages are about someone or something else
    (bench/answerable.py: "徐晓飞现在效力于哪个球队？" against another Chinese knowledge base, cosine
    0.880 with half its terms in the passages, was answered). Only read when the other rules would
    answer (:func:`assess`); a store failure reads as no absent name (a hint never fails an answer).
    Read only when every passage is Chinese: an English passage writes a Chinese name its own way or
    not at all ("怀胡派" is Waihopai), so the name's absence there says nothing."""
    names = question_names(question)
    if not names or not passages or not all(has_han(p.text) for p in passages):
        return ()
    text = cl.norm("\n".join(p.text for p in passages))
    absent = [n for n in names if n not in text]
    try:
        for doc in list(dict.fromkeys(p.doc_id for p in passages))[:rules.name_docs]:
            if not absent:
                break
            body = cl.norm("\n".join(s.text for s in engine.store.scroll_doc(kb, doc)))
            absent = [n for n in absent if n not in body]
    except Exception:  # noqa: BLE001
        return ()
    return tuple(absent)


def names_a_subject(engine, question: str, kb: str, passages: list[Passage]) -> bool:
    """Whether the question names (in any language: swr.retrieve.aliases) a document the passages come from."""
    named = sources_named(engine, kb, question) if passages else set()
    return any(p.source in named for p in passages)


class Translated(NamedTuple):
    """The evidence in the other language than the question (:func:`translated_evidence`)."""

    cos: float  # the best cosine of a hit in that language (the translation's vector)
    cover: float  # the share of the translation's content terms written in that language's passages
    terms: int = 0  # the translation's content terms
    unknown: int = 0  # ... of them in no document of the knowledge base


def translated_evidence(question: str, hits, passages: list[Passage], translations: dict | None,
                        ok=None, unknown=None, rules: AnswerRules = DEFAULT_ANSWER) -> Translated | None:
    """:class:`Translated` (cosine, cover, terms, unknown) of the evidence in the other language
    than the question: the best dense cosine of a retrieved hit in that language (found by the
    question's translation, the vector that can read it) and the share of the translation's
    content terms written in that language's passages. None when no passage is in the other language
    or the question has no
    translation into it. ``ok(source, text)``: the test a hit passes to count (another product's
    document does not; :func:`swr.answer.answerable.grounds`). The words of a question are in
    no passage of the other language, so only its translation can share terms with them
    ("What percentage of Warsaw's population was Protestant in 1901?" -> 华沙, 人口, 新教徒).
    ``unknown(terms)``: those of the translation's terms no document of the knowledge base uses
    (counted in the result; :func:`swr.answer.answerable.decide` reads more than
    ``rules.unknown_share`` of them as a question about something no document is about
    ("What is the warranty on the air fryer?" -> 保修 空气 炸锅 in a knowledge
    base of a dehumidifier and a robot vacuum: only 保修 is known)."""
    zh = has_han(question)
    other = [p for p in passages if has_han(p.text) != zh]
    text = (translations or {}).get("en" if zh else "zh", "")
    terms = question_terms(text) if text else []
    if not other or not terms:
        return None
    cosines = [h.dense_score for h in hits if h.dense_score is not None and has_han(h.sentence.text) != zh
               and (ok is None or ok(h.sentence.source, h.sentence.text))]
    if not cosines:
        return None
    body = "\n".join(p.text for p in other)
    cos, cover = max(cosines), len(cl.contained(terms, body)) / len(terms)
    if unknown is None:
        return Translated(cos, cover, len(terms))
    try:
        n_unknown = len(tuple(unknown(terms)))
    except Exception:  # noqa: BLE001  (a failure reads as no evidence)
        return None
    return Translated(cos, cover, len(terms), n_unknown)


def gloss_cover(question: str, passages: list[Passage], senses: int) -> float | None:
    """The share of the question's content terms the other language's passages say, read through
    the dictionary (CC-CEDICT, each word's first ``senses`` glosses: a word's later senses are rare
    meanings that match common question words by chance, "light" and "speed" in an appliance
    manual): an English question's terms among the glosses of the Chinese passages' words; a
    Chinese question's term when a content word of one of its glosses is in the English passages. A
    name counts as said when the other language spells it in pinyin (:mod:`swr.text.transliterate`:
    "Wei Xiaobao" and 韦小宝). None: no passage in the other language, or no term."""
    from swr.text.glossary import glossary

    zh = has_han(question)
    other = "\n".join(p.text for p in passages if has_han(p.text) != zh)
    terms = question_terms(question)
    if not other or not terms:
        return None
    g = glossary()
    if not zh:
        bag = " ".join(" ".join(g.zh_en.get(w, [])[:senses]) for w in set(g.segment(other)) if HAN_BMP_RE.search(w))
        said = set(cl.contained(terms, bag))
        # a name the Chinese passages write, spelt in pinyin ("Wei Xiaobao": 韦小宝)
        said |= {w for words, syls in tr.latin_names(question) if tr.written_in_han(syls, other) for w in words}
        return sum(t in said for t in terms) / len(terms)
    found = 0
    for t in terms:
        words = [t] if t in g.zh_en else [w for w in g.segment(t) if w in g.zh_en]
        glosses = " ".join(" ".join(g.zh_en[w][:senses]) for w in words)
        gl = [x for x in cl.content_terms(glosses) if not HAN_BMP_RE.search(x)]
        if (gl and cl.contained(gl, other)) or tr.written_in_latin(t, other):  # or its pinyin: 康熙, "Kang Xi"
            found += 1
    return found / len(terms)
