"""What each document is about: its subject (the product of a manual, the entity of an article),
learnt from its name, its title (its opening lines that are headings) and the model numbers of
its opening lines.

A fact about the rice cooker does not support a claim about the kettle, however alike the two
sentences are. Documents name their product: ``kettle_manual_zh.md`` opens with "晨川 KX-2000
智能控温电热水壶 使用说明书". The name terms of a document are the key terms of its file name and
title (Chinese compounds also by their tails: 电热水壶 -> 水壶, because a Chinese head noun ends the
word) and the codes of its first sentences; terms found in the names of many documents
("manual", "说明书", the brand) are dropped. Documents that share a code are one subject (the
Chinese manual and the English quick guide of the RC-550). A document whose opening names the
model numbers of other documents, of two families or more (an FAQ over three products), has no
subject of its own: each of its windows is about the subjects it names, or about none.

A text *mentions* a subject when it holds one of its codes, one of its Chinese name terms, or two
of its English name terms (one when it has only one: "kettle"); "digital" alone does not make a
claim about the digital air fryer.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Callable

from swr.core.lang import HAN_BMP as CJK, has_han as has_cjk
from swr.core.rules.answerable import DEFAULT_SUBJECTS, SubjectRules
from swr.text.claims import code_family, codes, contained, key_terms

_NAME_SPLIT = re.compile(r"[_\-.\s]+|(?<=[a-z])(?=[A-Z])")


@dataclass
class Subject:
    """One subject: the documents about it and the terms that name it."""

    key: int
    docs: list[str]
    names: list[str]  # the documents' sources, for reasons shown to people
    codes: set[str] = field(default_factory=set)
    zh_terms: set[str] = field(default_factory=set)
    en_terms: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        code = sorted(self.codes)[0] if self.codes else ""
        return f"{self.names[0]}" + (f" ({code})" if code else "")


class SubjectIndex:
    """Subjects of one knowledge base's documents; see the module doc."""

    def __init__(self, subjects: list[Subject], doc_subject: dict[str, int | None],
                 rules: SubjectRules = DEFAULT_SUBJECTS) -> None:
        self.rules = rules
        self.subjects = {s.key: s for s in subjects}
        self.doc_subject = doc_subject

    def mentioned(self, text: str) -> set[int]:
        """The subjects ``text`` names."""
        out = set()
        found_codes = set(codes(text))
        low = text.lower()
        for s in self.subjects.values():
            if s.codes & found_codes or any(t in low for t in s.zh_terms):
                out.add(s.key)
                continue
            if s.en_terms:
                need = min(self.rules.en_mention, len(s.en_terms))
                if len(contained(sorted(s.en_terms), text)) >= need:
                    out.add(s.key)
        return out

    def of_window(self, doc_id: str, text: str) -> set[int]:
        """The subjects a window is about: those it names, plus its document's own subject."""
        own = self.doc_subject.get(doc_id)
        return self.mentioned(text) | ({own} if own is not None else set())

    def label(self, keys: set[int]) -> str:
        return ", ".join(sorted(self.subjects[k].label for k in keys if k in self.subjects))


def compatible(claim: set[int], window: set[int]) -> bool:
    """A window can back a claim unless it is about a subject and the claim names one it is not
    about: every subject the claim names must be the window's (its document's, or one its text
    names). The window's own wording of a true claim names what the claim names; a claim that puts
    another product in a fact's place names a subject the window does not."""
    return not claim or not window or claim <= window


def _heading_like(text: str, rules: SubjectRules = DEFAULT_SUBJECTS) -> bool:
    """A title line ("QUICK START GUIDE", "晨川 KX-2000 智能控温电热水壶 使用说明书"), not a sentence of
    the body: short (``rules.heading_chars``, ``rules.heading_cjk`` of them Chinese) and without
    sentence punctuation."""
    t = text.strip()
    short = len(t) <= rules.heading_chars and len(re.findall(f"[{CJK}]", t)) <= rules.heading_cjk
    return bool(t) and short and (t.isupper() or not re.search(r"[.!?。！？，,；;]", t))


def _name_words(source: str) -> str:
    stem = PurePath(source).stem
    return " ".join(w for w in _NAME_SPLIT.split(stem) if w)


def name_terms(name: str, title: str, terms: Callable[[str], set[str]], translate: Callable[[str], str] | None = None,
               *, translate_name: bool = True) -> set[str]:
    """The terms that name a document: ``terms`` of its file name's words (``name``) and of its
    title and, with ``translate`` (a text -> that text in the other language, "" when it cannot be),
    of their translations (of the title's only, ``translate_name=False``). The one name-term
    extractor of both subject needs: :class:`swr.retrieve.aliases.Subjects` reads names with BM25's
    tokens (ranking, "this question names that document"), :func:`build` with the claims' key terms
    (the verdicts' product guard)."""
    out = terms(name) | terms(title)
    if translate is not None:
        for text in (name, title) if translate_name else (title,):
            if text.strip():
                out |= terms(translate(text) or "")
    return out


def _terms(text: str, rules: SubjectRules = DEFAULT_SUBJECTS) -> tuple[set[str], set[str]]:
    zh, en = set(), set()
    for t in key_terms(text):
        if re.search(r"\d", t):
            continue  # numbers and codes are read by codes()
        if has_cjk(t):
            if len(t) >= rules.min_zh_term:
                zh.add(t)
                zh.update(t[k:] for k in range(1, len(t) - 1))  # 电热水壶 -> 热水壶, 水壶
        elif len(t) >= rules.min_en_term:
            en.add(t)
    return zh, en


def _name_runs(source: str) -> set[str]:
    """The Chinese runs of a file name, whole ("额亦都", "司马繇": jieba cuts a name into characters
    or a surname, which name nothing alone), and their tails (电热水壶 -> 水壶)."""
    out = set()
    for run in re.findall(f"[{CJK}]{{2,}}", PurePath(source).stem):
        out.add(run)
        out.update(run[k:] for k in range(1, len(run) - 1))
    return out


def _translated(title: str) -> str:
    """``title`` in the other language, word by word (:mod:`swr.text.glossary`); "" when it cannot be."""
    if not title.strip():
        return ""
    try:
        from swr.text.glossary import glossary

        return glossary().translate(title, "en" if has_cjk(title) else "zh") or ""
    except Exception:  # noqa: BLE001 - a hint only: without it, the title's own language names it
        return ""


def build(docs: list[tuple[str, str, list[str]]], rules: SubjectRules = DEFAULT_SUBJECTS) -> SubjectIndex:
    """The index of ``(doc_id, source, opening sentences)`` triples."""
    raw = []
    for doc_id, source, head in docs:
        # the title: the opening lines that are headings ("# 晨川 KX-2000 智能控温电热水壶 使用说明书"); a
        # first line that is a sentence of the body names much besides the subject
        title = " ".join(h for h in head[:2] if _heading_like(h, rules))  # size: the first two lines
        # the product word in the other language too (CC-CEDICT, word by word): "dehumidifier" of the
        # DH-20 manual is "除湿机" in a Chinese claim, "扫地机器人" of the RB-300 FAQ a "robot"
        named = name_terms(_name_words(source), title, lambda t: set().union(*_terms(t, rules)), _translated,
                           translate_name=False)
        zh = {t for t in named if has_cjk(t)} | _name_runs(source)
        en = {t for t in named if not has_cjk(t)}
        cs = set(codes(" ".join(head)) + codes(_name_words(source)))
        raw.append((doc_id, source, zh, en, cs))
    holders: dict[str, set[str]] = {}
    for doc_id, _, _, _, cs in raw:
        for c in cs:
            holders.setdefault(c, set()).add(doc_id)
    subjects, doc_subject = [], {}
    by_code: dict[str, int] = {}
    for doc_id, source, zh, en, cs in raw:
        shared = {code_family(c) for c in cs if holders[c] - {doc_id}}
        if len(shared) >= rules.faq_families:
            # its opening names the model numbers of other documents' products, of two families or
            # more: an FAQ over several products, with no subject of its own
            doc_subject[doc_id] = None
            continue
        if not (zh or en or cs):
            doc_subject[doc_id] = None
            continue
        key = next((by_code[c] for c in cs if c in by_code), None)
        if key is None:
            key = len(subjects)
            subjects.append(Subject(key, [], []))
        sub = subjects[key]
        sub.docs.append(doc_id)
        sub.names.append(source)
        sub.codes |= cs
        sub.zh_terms |= zh
        sub.en_terms |= en
        for c in cs:
            by_code.setdefault(c, key)
        doc_subject[doc_id] = key
    # a name term of many subjects ("manual", "说明书", the brand) is generic
    n = max(1, len(subjects))
    df: dict[str, int] = {}
    for sub in subjects:
        for t in sub.zh_terms | sub.en_terms:
            df[t] = df.get(t, 0) + 1
    limit = max(1, int(rules.generic_share * n)) if n > 2 else n  # size: with two subjects, none is generic
    for sub in subjects:
        sub.zh_terms = {t for t in sub.zh_terms if df[t] <= limit}
        sub.en_terms = {t for t in sub.en_terms if df[t] <= limit}
    _drop_shared_terms(subjects)
    return SubjectIndex(subjects, doc_subject, rules)


def _drop_shared_terms(subjects: list[Subject]) -> None:
    """A Chinese tail shared by two subjects (电饭煲 / 电热水壶 share none; 说明书 would) names neither."""
    seen: dict[str, int] = {}
    for s in subjects:
        for t in s.zh_terms:
            seen[t] = seen.get(t, 0) + 1
    for s in subjects:
        s.zh_terms = {t for t in s.zh_terms if seen[t] == 1}


_cache: dict[tuple, SubjectIndex] = {}
_cache_lock = threading.Lock()


def for_kb(engine, kb: str, rules: SubjectRules = DEFAULT_SUBJECTS) -> SubjectIndex:
    """The subject index of ``kb`` (cached until its documents change)."""
    docs = [d for d in engine.docs(kb) if d.complete]
    key = (id(engine), kb, tuple(sorted(d.doc_id for d in docs)), rules)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None:
        return hit
    heads = []
    keys = [(d.doc_id, i) for d in docs for i in range(min(rules.head_sentences, d.sentences))]
    got: dict[str, list] = {}
    for s in (engine.fetch_sentences(kb, keys) if keys else {}).values():
        got.setdefault(s.doc_id, []).append(s)
    for d in docs:
        sents = sorted(got.get(d.doc_id, []), key=lambda s: s.i)
        heads.append((d.doc_id, d.source, [s.text.strip().lstrip("#").strip() for s in sents]))
    index = build(heads, rules)
    with _cache_lock:
        if len(_cache) > 64:  # size: knowledge bases kept
            _cache.clear()
        _cache[key] = index
    return index
