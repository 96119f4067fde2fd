"""Document subjects learned from the documents, in both languages, so a question naming a
product in either language (空气炸锅 = air fryer = AF-360) finds that product's documents.

A document with a title (its first sentence a heading) has subject terms: the terms of its file
name and title that are said at least twice among them and its first sentences ("Morningbrook
AF-360 Digital Air Fryer — Instruction Manual", "Thank you for choosing the Morningbrook AF-360
Digital Air Fryer"), tokenized as BM25 does (jieba words, stemmed English words, model codes
whole), each text also translated word by word into the other language (:mod:`swr.text.glossary`).
A question (and its translations) is matched against them with BM25's IDF over the knowledge
base's documents: a term every document has ("manual", "说明书") weighs nothing, a product name
or model code found in one or two documents weighs most. Documents without a title (articles,
paragraphs) name no subject and get no bonus, nor, in a knowledge base of two languages, do short
pages (``SubjectRules.min_sentences``: a page's title names its topic, not a product).
:meth:`Subjects.weights` gives each matching document a weight in (0, 1] (its score over the best
document's); :mod:`swr.retrieve.crosslingual` adds a bonus proportional to it to that document's hits
and searches those documents on their own.

Learned per knowledge base on first use and again whenever its sentence count changes; reads
only the first ``SubjectRules.intro`` sentences of each document (one batched fetch).
"""
from __future__ import annotations

import math
import re
import threading
from collections import Counter
from pathlib import PurePath
from typing import Callable

from swr.core.ids import sentence_id
from swr.core.lang import detect_lang, has_han
from swr.core.rules.answerable import DEFAULT_SUBJECTS, SubjectRules
from swr.core.rules.serving import DEFAULT_SERVING
from swr.retrieve.subjects import name_terms
from swr.text.claims import codes
from swr.text.sparse import JiebaBm25

_NAME_SPLIT = re.compile(r"[_\-.\s]+")
_SENTENCE_END = re.compile(r"[.!?。！？:：;；,，…]$")
_CLOSING = "\"'”’」』》）)]】 "  # closing quotes and brackets that may follow a sentence's end
_OPENING = re.compile(r"^[\"'“‘「『]")


def _is_title(text: str, rules: SubjectRules = DEFAULT_SUBJECTS) -> bool:
    """A heading: a Markdown heading, or one short line that does not end like a sentence (nor
    is speech: :attr:`SubjectRules.speech_not_title`)."""
    t = text.strip()
    if t.startswith("#"):
        return True
    if rules.speech_not_title and (_OPENING.match(t) or _SENTENCE_END.search(t.rstrip(_CLOSING))):
        return False
    return 0 < len(t) <= rules.max_title and "\n" not in t and not _SENTENCE_END.search(t)


class Subjects:
    """Subject terms of each document of a knowledge base, and question matching."""

    def __init__(self, store, translate=None, rules: SubjectRules = DEFAULT_SUBJECTS,
                 said_in: Callable[[str, str], int] | None = None) -> None:
        self.store = store
        self.rules = rules
        self.translate = translate  # (text, lang) -> text; None: no cross-language terms
        # (kb, term) -> how many documents say it; None: no topic words (:meth:`naming`)
        self.said_in = said_in
        self._tok = JiebaBm25()
        self._cache: dict[str, tuple[int, dict[str, set[str]], dict[str, float]]] = {}
        self._named: dict[tuple, frozenset[str]] = {}  # (kb, version, text) -> named sources (named())
        self._said: dict[tuple, int] = {}  # (kb, version, term) -> documents saying it (topic_words())
        self._lock = threading.Lock()

    def terms(self, text: str) -> set[str]:
        """A question's terms (BM25's query tokens)."""
        return set(self._tok.tokens(text, query=True))

    def _tokens(self, text: str) -> set[str]:
        """BM25's document tokens (电热水壶 also gives 水壶)."""
        return set(self._tok.tokens(text))

    def _other(self, text: str) -> str:
        """``text`` in the other language ("" when it cannot be)."""
        return self.translate(text, "en" if detect_lang(text) == "zh" else "zh") or ""

    def _both(self, text: str) -> set[str]:
        """A document's terms in both languages (BM25's document tokens: 电热水壶 also gives 水壶)."""
        out = self._tokens(text)
        if self.translate is not None and text.strip():
            out |= self._tokens(self._other(text))
        return out

    def learn(self, kb: str, version=None) -> tuple[dict[str, set[str]], dict[str, float]]:
        """(source -> subject terms, term -> IDF) of ``kb``; cached until ``version`` (default: its
        sentence count, one store call) changes."""
        count = self.store.count(kb) if version is None else version
        with self._lock:
            hit = self._cache.get(kb)
            if hit and hit[0] == count:
                return hit[1], hit[2]
        docs = [d for d in self.store.docs(kb) if d.complete]
        r = self.rules
        ids = [sentence_id(kb, d.doc_id, i) for d in docs for i in range(min(r.intro, d.sentences))]
        intro: dict[str, list] = {}
        for s in self.store.get(ids):
            intro.setdefault(s.source, []).append(s)
        subjects = {}
        # a short page names no subject in a knowledge base of two languages (SubjectRules.min_sentences)
        pages = r.min_sentences if len({s.lang for ss in intro.values() for s in ss if s.lang}) > 1 else 0
        for d in docs:
            sents = sorted(intro.get(d.source, []), key=lambda s: s.i)
            name = " ".join(_NAME_SPLIT.split(PurePath(d.source).stem))
            # a subject is named again and again at the start of a document ("AF-360 Air Fryer"
            # in the title, the first line, the file name); a word said once there ("Thank you
            # for choosing") is not one
            if not sents or not _is_title(sents[0].text, r) or d.sentences < pages:
                subjects[d.source] = set()  # no title, or a one-topic page: it names no subject of its own
                continue
            units = Counter(t for text in [name, *(s.text for s in sents)] for t in self._both(text))
            named = name_terms(name, sents[0].text, self._tokens, self._other if self.translate is not None else None)
            subjects[d.source] = {t for t, c in units.items() if c >= r.min_repeats and t in named}
        n = len(subjects)
        df = Counter(t for terms in subjects.values() for t in terms)
        idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}  # BM25's IDF, its 0.5
        with self._lock:
            self._cache[kb] = (count, subjects, idf)
        return subjects, idf

    def strip(self, text: str, named: set[str]) -> str:
        """``text`` without the words whose terms are in ``named`` (the words that named the
        subject: inside the subject's documents they tell no sentence from another)."""
        import jieba

        keep = []
        for piece in jieba.lcut(text, HMM=False):
            if not (self.terms(piece) & named):
                keep.append(piece)
        return "".join(keep).strip()

    def weights(self, kb: str, texts: list[str]) -> dict[str, float]:
        """Source -> weight in (0, 1] for the documents whose subject the question names."""
        return self.match(kb, texts)[0]

    def naming(self, kb: str, texts: list[str], version=None) -> tuple[dict[str, float], set[str], set[str]]:
        """(source -> weight, the terms that named them, the topic words left out): :meth:`match`
        without the knowledge base's topic words (:meth:`topic_words`), unless the question
        (``texts[0]``) has a code: a code is said by several products, its product word tells which
        ("净水器E3啥故障": 净水器 is in 25 of a help centre's 40 articles, E3 in the purifier's and the
        blender's). Each round leaves out the topic words among the terms that named, until none
        is ("return" a topic word, then "use" of "can't use a smartphone")."""
        weights, named = self.match(kb, texts, version=version)
        ignore: set[str] = set()
        if self.said_in is None or not texts or codes(texts[0]):
            return weights, named, ignore
        while named:
            topic = self.topic_words(kb, named, lambda t: self.said_in(kb, t), version)
            if not topic:
                break
            ignore |= topic
            weights, named = self.match(kb, texts, version=version, ignore=ignore)
        return weights, named, ignore

    def named(self, kb: str, text: str, version=None) -> set[str]:
        """The sources of the documents ``text`` names (the documents of :meth:`match`); with a
        ``version``, remembered per (knowledge base, version, text): the fusion asks it of every
        candidate sentence, question after question."""
        if not text:
            return set()
        if version is None:
            return set(self.naming(kb, [text])[0])
        key = (kb, version, text)
        hit = self._named.get(key)
        if hit is None:
            hit = frozenset(self.naming(kb, [text], version=version)[0])
            with self._lock:
                if len(self._named) >= DEFAULT_SERVING.named_cache_texts:
                    self._named.clear()
                self._named[key] = hit
        return set(hit)

    def match(self, kb: str, texts: list[str], version=None, ignore=frozenset()) -> tuple[dict[str, float], set[str]]:
        """(source -> weight in (0, 1], the question's terms that named them).

        ``texts`` are the question and its translations; ``ignore``: terms that name nothing here
        (:meth:`topic_words`). Nothing when no term of the question sets a few documents apart (it
        is in none, or in most of them).
        """
        subjects, idf = self.learn(kb, version)
        if len(subjects) < 2:  # size: one document tells none apart
            return {}, set()
        q = set().union(*(self.terms(t) for t in texts if t)) - set(ignore)
        scores = {src: sum(idf[t] for t in q & terms) for src, terms in subjects.items()}
        best = max(scores.values(), default=0.0)
        if best <= 0:
            return {}, set()
        ranked = sorted(((s, src) for src, s in scores.items() if s >= self.rules.min_share * best), reverse=True)
        if len(ranked) > max(self.rules.max_subjects, int(len(subjects) * self.rules.max_subject_share)):
            return {}, set()
        named = {t for _, src in ranked for t in q & subjects[src]}
        return {src: s / best for s, src in ranked}, named

    def topic_words(self, kb: str, terms, said_in: Callable[[str], int], version=None) -> set[str]:
        """Those of ``terms`` (subject terms a question matched) that the knowledge base says
        throughout: in the bodies of more than :attr:`SubjectRules.name_spread` x (the documents
        whose subject has it) + 1 documents (``said_in(term)``: how many documents say it; asked
        once per term and knowledge base version). A title's topic word (退货 in a help centre's
        "七天无理由退货政策") names no document; a product's name or code does.

        A term no body says is a title's translation (``return`` of "七天无理由退货政策" in a Chinese
        help centre): it is counted as its twins (:func:`_twins`: 退货), so an English question's
        topic word names nothing either, and a product's name ("kettle": 电热水壶) still does."""
        subjects, _ = self.learn(kb, version)
        out = set()
        for t in sorted(terms):
            docs = frozenset(src for src, ts in subjects.items() if t in ts)
            n = self._said_in(kb, version, t, said_in)
            if n == 0 and docs:
                twins, exact = _twins(subjects, t, docs)
                counts = [self._said_in(kb, version, u, said_in) for u in twins]
                n = (min if exact else max)(counts, default=0)
            if n > self.rules.name_spread * len(docs) + 1:
                out.add(t)
        return out

    def _said_in(self, kb: str, version, term: str, said_in: Callable[[str], int]) -> int:
        """``said_in(term)``, remembered per knowledge base version."""
        key = (kb, version, term)
        n = self._said.get(key)
        if n is None:
            n = said_in(term)
            with self._lock:
                if len(self._said) >= DEFAULT_SERVING.named_cache_texts:
                    self._said.clear()
                self._said[key] = n
        return n


def _twins(subjects: dict[str, set[str]], term: str, docs: frozenset) -> tuple[list[str], bool]:
    """(the subject terms of the other script than ``term`` whose documents are most like ``term``'s
    ``docs`` (Jaccard of the two sets), whether they name exactly ``docs``): the words its
    translation came from. Exact twins are its own words and the least said of them counts ("kettle"
    is 电热水壶 of one manual, not its brand said in three; "purifier" is 净水器 of four purifier
    articles, said in 25); twins that name only some of its documents are several titles' words
    and the most said counts ("return", of 退货政策 and of 售后申请步骤, is as widespread as 退货)."""
    other: dict[str, set[str]] = {}
    for src, ts in subjects.items():
        for u in ts:
            if has_han(u) != has_han(term):
                other.setdefault(u, set()).add(src)
    like = {u: len(ds & docs) / len(ds | docs) for u, ds in other.items() if ds & docs}
    best = max(like.values(), default=0.0)
    return sorted(u for u, j in like.items() if j == best), best == 1.0


def sources_named(engine, kb: str, text: str) -> set[str]:
    """The sources of ``kb``'s documents that ``text`` names (:meth:`Subjects.match`, any language),
    with the subjects the engine's search learned (its version): the one test behind "this question
    names the air fryer's manual" (swr.answer.answerable, swr.verify.check) and "this FAQ sentence names it"
    (swr.retrieve.crosslingual's exempt sentences, swr.answer.answerable's grounds). A hint only: empty when the
    engine has no cross-lingual subjects or the match fails, never an error in a caller's answer."""
    xl = getattr(engine, "crosslingual", None)
    subjects = getattr(xl, "subjects", None)
    if subjects is None or not kb or not text:
        return set()
    try:
        return subjects.named(kb, text, version=xl.subject_version(kb))
    except Exception:  # noqa: BLE001  (a hint only)
        return set()

