"""Language-centred cosines: the comparison of a question with sentences of two languages on one scale.

multilingual-e5 puts every sentence of one language on a common offset (a "language direction"):
a question scores its own language's sentences higher than the other language's whatever they
say, which is why a mixed knowledge base answered English questions with English sentences on a
neighbouring topic rather than the Chinese answer. Subtracting each language's mean vector
(the mean of the knowledge base's own sentences of that language, a seeded sample of them) from
the sentences, and the question language's mean from the question, takes that offset out: the
cosine after centring is the comparison the fusion reads (:mod:`swr.retrieve.xl_fuse`), while
answerability keeps the plain cosine it was calibrated on.

Dense only, the whole knowledge base ranked by cosine, a top-3 hit in the answer's document
(bench/real_kbs.py's mixed KBs, every question): other-language questions 0.20 -> 0.88 on XQuAD,
0.03 -> 0.27 on BiPaR, 0.12 -> 0.70 on the product FAQ, same-language questions 0.997 -> 0.990,
0.800 -> 0.798, 0.983 -> 0.983. Means taken from other corpora (SQuAD and CMRC paragraphs)
instead of the knowledge base's own gave 0.84, 0.24 and 0.53: the knowledge base's own is used.
Libovický et al. 2020 ("On the language neutrality of pre-trained multilingual representations")
found the same of mBERT: centring each language removes most of its language identity.

A knowledge base in one language has no mean of the question's other language: it is the
knowledge base's mean moved by the model's offset between the languages, measured on parallel
sentences shipped with swr (``data/parallel_en_zh.tsv``, 64 pairs, original text; embedded once,
then cached). English questions on the Chinese help centre (bench/data/helpcentre_zh, 45, dense only,
a top-3 hit in the answer's article): 0.69 plain, 0.84 centred so (0.87 with the offset of 200 XQuAD
question pairs).
"""
from __future__ import annotations

import bisect
import random
from pathlib import Path

import numpy as np

from swr.core.types import Hit
from swr.embed.base import model_key

MEANS_CACHED = 1000  # knowledge bases whose language means are kept (size of the cache)
HUBS_CACHED = 200_000  # sentences whose hubness is kept per knowledge base
PARALLEL = Path(__file__).with_name("data") / "parallel_en_zh.tsv"


_PARALLEL: dict[tuple, dict[str, np.ndarray]] = {}  # (embedder class, model, runtime, dim) -> LangMeans.parallel()


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


class LangMeans:
    """Each language's mean sentence vector per knowledge base, from a seeded sample of its
    sentences, learned again when the knowledge base's version changes."""

    def __init__(self, store, embed_passages=None) -> None:
        self.store, self.embed_passages = store, embed_passages
        self._means: dict[str, tuple] = {}  # kb -> (version, {lang: mean})
        self._offsets: dict[str, np.ndarray] | None = None  # lang -> its parallel sentences' mean
        self._spread: dict[str, dict] = {}  # kb -> {lang: mean length of a sentence's centred vector}
        self._hubs: dict[str, tuple] = {}  # kb -> (version, {(version, lang, key): hubness})
        self.samples = 0  # samples read from the store (tests)

    def of(self, kb: str, version, sample: int, want: str | None = None) -> dict[str, np.ndarray]:
        """{lang: mean vector} of ``kb`` at ``version`` (empty when the store returns no vector);
        ``want``: a language the knowledge base may lack (the question's), then derived from one
        it holds and the parallel sentences' offset (module docstring)."""
        hit = self._means.get(kb)
        means = hit[1] if hit and hit[0] == version else self._learn(kb, version, sample)
        if want and want not in means and means and self.embed_passages is not None:
            par = self.parallel()
            have = next((lang for lang in sorted(means) if lang in par), None)
            if want in par and have:
                return {**means, want: means[have] + par[want] - par[have]}
        return means

    def parallel(self) -> dict[str, np.ndarray]:
        """Each language's mean vector of the parallel sentences: embedded once per process and
        embedding model (every engine of a process, each test's among them, shares it)."""
        if self._offsets is None:
            key = model_key(getattr(self.embed_passages, "__self__", None))
            model = key[1]  # a bare function has no model name: not shared
            got = _PARALLEL.get(key) if model else None
            if got is None:
                rows = [line.split("\t") for line in PARALLEL.read_text(encoding="utf-8").splitlines()
                        if line.strip() and not line.startswith("#")]
                vecs = np.asarray(self.embed_passages([a for a, _ in rows] + [b for _, b in rows]), dtype=np.float32)
                got = {"en": vecs[:len(rows)].mean(axis=0), "zh": vecs[len(rows):].mean(axis=0)}
                if model:
                    _PARALLEL[key] = got
            self._offsets = got
        return self._offsets

    def _learn(self, kb: str, version, sample: int) -> dict[str, np.ndarray]:
        docs = self.store.docs(kb)
        sizes = [max(0, d.sentences) for d in docs]
        starts = list(np.cumsum([0, *sizes]))
        total = int(starts[-1])
        picks = range(total) if total <= sample else sorted(random.Random(kb).sample(range(total), sample))
        keys = []
        for n in picks:
            d = bisect.bisect_right(starts, n) - 1
            keys.append((docs[d].doc_id, n - int(starts[d])))
        vecs = self.store.fetch_vectors(kb, keys) if keys else {}
        sents = self.store.fetch_sentences(kb, list(vecs)) if vecs else {}
        by: dict[str, list] = {}
        for k, v in vecs.items():
            s = sents.get(k)
            if s is not None and s.lang:
                by.setdefault(s.lang, []).append(v)
        means = {lang: np.mean(np.stack(vs), axis=0) for lang, vs in by.items()}
        self.samples += 1
        if len(self._means) > MEANS_CACHED:
            self._means.clear()
            self._spread.clear()
            self._hubs.clear()
        self._means[kb] = (version, means)
        self._spread[kb] = {lang: float(np.mean(np.linalg.norm(np.stack(vs) - means[lang], axis=1)))
                            for lang, vs in by.items()}
        return means

    def hubness(self, kb: str, version, k: int) -> Hubness:
        """The :class:`Hubness` of ``kb`` at ``version`` (call :meth:`of` first), its cache kept
        until the version changes."""
        got = self._hubs.get(kb)
        if not got or got[0] != version or len(got[1]) > HUBS_CACHED:
            got = self._hubs[kb] = (version, {})
        return Hubness(self.store, kb, version, k, self._spread.get(kb, {}), got[1])


def query(question, qlang: str, means: dict):
    """The question's vector less its language's mean (unit length), or None without that mean."""
    if question is None or qlang not in means:
        return None
    return _unit(np.asarray(question, dtype=np.float32) - means[qlang])


def merged(plain: list[Hit], centred: list[Hit], depth: int) -> list[Hit]:
    """One language's candidates: the plain search's and the centred search's, each sentence once
    (the plain search's hit, with its BM25 score), best centred cosine first, ``depth`` of them."""
    seen: dict[tuple[str, int], Hit] = {}
    for h in [*plain, *centred]:
        seen.setdefault((h.sentence.doc_id, h.sentence.i), h)
    ranked = sorted(seen.values(), key=lambda h: -(h.centred if h.centred is not None else -2.0))
    return ranked[:depth]


def centred_lists(store, kb: str, qlang: str, question, own_of: dict, centred_of: dict, translated_of: dict,
                  translations: dict, means: dict, dense_mix: float, hub, depth: int) -> dict:
    """Every list's hits marked (:func:`mark`), and each other language's candidates: its plain
    search's and its centred search's, :func:`merged` (by language, as ``own_of``)."""
    mark(store, kb, [(None, h) for h in own_of.values()] + [(None, h) for h in centred_of.values()]
         + [("translation", h) for h in translated_of.values()], qlang, question, translations, means, dense_mix, hub)
    return {**own_of, **{lang: merged(own_of[lang], hs, depth) for lang, hs in centred_of.items()}}


def mark(store, kb: str, lists: list[tuple], qlang: str, question, translations: dict, means: dict,
         dense_mix: float, hub: "Hubness | None" = None) -> int:
    """Set ``Hit.centred`` of every hit of ``lists`` (``(via, hits, ...)``): the cosine between the
    question and the sentence, each less its language's mean; a translation list's hits against the
    translation's vector (``translations[lang]``, the question's own mixed in at ``dense_mix``) less
    the same mix of means. Needs a mean for the question's language and the sentence's; returns how
    many hits were marked (one vector fetch for them all). With ``hub``, also ``Hit.hub`` (:class:`Hubness`)."""
    if question is None or qlang not in means:
        return 0
    hits = [(via, h) for via, hs, *_ in lists for h in hs if h.centred is None]
    if not hits:
        return 0
    vecs = store.fetch_vectors(kb, list({(h.sentence.doc_id, h.sentence.i) for _, h in hits}))
    own = _unit(np.asarray(question, dtype=np.float32) - means[qlang])
    marked = 0
    for via, h in hits:
        lang, v = h.sentence.lang, vecs.get((h.sentence.doc_id, h.sentence.i))
        if v is None or lang not in means:
            continue
        q = own
        if via == "translation" and lang in translations:
            t = np.asarray(translations[lang], dtype=np.float32)
            q = _unit(t - (dense_mix * means[qlang] + (1 - dense_mix) * means[lang]))
        h.centred = float(q @ _unit(v - means[lang]))
        marked += 1
    if hub is not None:
        hub.mark([h for _, h in hits], vecs, qlang, means)
    return marked


class Hubness:
    """How close a sentence sits to the question language's sentences in general (its "hubness"):
    the mean centred cosine of its ``k`` nearest sentences of that language. A sentence near many
    (a generic line, a product's reset instructions) is near any question too, and its cosine with
    a question is read less that (``Hit.hub``; the fusion subtracts ``CrossLingualRules.hub_weight`` x it:
    CSLS, Conneau et al. 2018, "Word translation without parallel data", for the same problem
    between two languages' word vectors). Learned per knowledge-base version with one batched store
    call for the sentences not seen before (a k-nearest search each, in the question's language)."""

    def __init__(self, store, kb: str, version, k: int, spread: dict, cache: dict) -> None:
        self.store, self.kb, self.version, self.k, self.spread, self.cache = store, kb, version, k, spread, cache

    def mark(self, hits: list[Hit], vecs: dict, qlang: str, means: dict) -> None:
        from swr.store import SearchRequest

        if qlang not in self.spread:  # no sentence of the question's language to be a hub among
            return
        todo: dict[tuple, np.ndarray] = {}
        for h in hits:
            key = (h.sentence.doc_id, h.sentence.i)
            ck = (self.version, qlang, key)
            if ck in self.cache:
                h.hub = self.cache[ck]
            elif key in vecs and h.sentence.lang in means:
                todo[key] = _unit(np.asarray(vecs[key], dtype=np.float32) - means[h.sentence.lang])
        if todo:
            keys = list(todo)
            found = self.store.search_many([SearchRequest(kb=self.kb, dense=todo[key], sparse=None, mode="dense",
                                                          top_k=self.k + 1, lang=qlang) for key in keys])
            for key, res in zip(keys, found):
                u = todo[key]
                shift = float(u @ means[qlang])  # u . (x - mean) = cos(u, x) - u . mean, x of unit length
                near = [(r.dense_score or 0.0) - shift for r in res if (r.sentence.doc_id, r.sentence.i) != key]
                near = sorted(near, reverse=True)[:self.k]
                spread = max(self.spread[qlang], 1e-6)  # one sentence of that language: no spread
                self.cache[(self.version, qlang, key)] = sum(near) / len(near) / spread if near else 0.0
            for h in hits:
                ck = (self.version, qlang, (h.sentence.doc_id, h.sentence.i))
                if h.hub is None and ck in self.cache:
                    h.hub = self.cache[ck]
