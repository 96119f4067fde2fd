"""Language-centred cosines (swr/retrieve/xl_centre.py): each language's mean taken out of the
question and the sentences before a mixed knowledge base's languages are compared.

The pure tests build vectors with a language offset, as e5's are (a question scores its own
language's sentences higher whatever they say); the engine test runs the bundled e5 model on the
sample knowledge base (Chinese and English manuals)."""
from __future__ import annotations

import numpy as np
import pytest

from swr.api import shape
from swr.core.types import DocInfo, Hit, Sentence
from swr.retrieve import xl_centre

DIM = 8
LANG = {"en": np.eye(DIM)[0] * 2.0, "zh": np.eye(DIM)[1] * 2.0}  # the offset every sentence of a language shares
TOPIC = {t: np.eye(DIM)[k] for k, t in enumerate("abcdef", start=2)}


def _unit(v):
    return v / np.linalg.norm(v)


class _Store:
    """A store of sentences (doc_id, i) -> (lang, vector): what LangMeans and mark read."""

    def __init__(self, sents: dict) -> None:
        self.sents = sents
        self.fetches = 0

    def docs(self, kb):
        n: dict[str, int] = {}
        for d, i in self.sents:
            n[d] = max(n.get(d, 0), i + 1)
        return [DocInfo(doc_id=d, source=f"{d}.txt", sentences=k, complete=True) for d, k in sorted(n.items())]

    def fetch_vectors(self, kb, keys):
        self.fetches += 1
        return {k: self.sents[k][1] for k in keys if k in self.sents}

    def fetch_sentences(self, kb, keys):
        return {k: _sentence(k, self.sents[k][0]) for k in keys if k in self.sents}


def _sentence(key, lang):
    return Sentence(kb="kb", doc_id=key[0], source=f"{key[0]}.txt", i=key[1], n=1, start=0, end=1, text="x", lang=lang)


def _store() -> _Store:
    sents = {}
    for lang in ("en", "zh"):
        for k, t in enumerate("abcdef"):
            sents[(f"{lang}{t}", 0)] = (lang, _unit(LANG[lang] + TOPIC[t]).astype(np.float32))
    return _Store(sents)


def test_the_means_are_each_languages_own_and_learned_once_per_version():
    store = _store()
    means = xl_centre.LangMeans(store)
    got = means.of("kb", (1, 12), sample=2000)
    assert set(got) == {"en", "zh"}
    assert got["en"][0] > 0.5 and got["en"][1] == 0 and got["zh"][1] > 0.5
    means.of("kb", (1, 12), sample=2000)
    assert means.samples == 1  # cached for the same version
    means.of("kb", (2, 12), sample=2000)
    assert means.samples == 2  # a write: learned again
    assert set(xl_centre.LangMeans(store).of("kb", 1, sample=3)) <= {"en", "zh"}  # a sample of 3 of 12


def test_centring_ranks_the_other_languages_answer_above_its_own_language_on_another_topic():
    store = _store()
    means = xl_centre.LangMeans(store).of("kb", 1, sample=2000)
    q = _unit(LANG["en"] + TOPIC["c"] + 0.3 * TOPIC["a"])  # an English question on topic c
    own = Hit(sentence=_sentence(("ena", 0), "en"), score=1.0)  # English, on topic a
    other = Hit(sentence=_sentence(("zhc", 0), "zh"), score=1.0)  # Chinese, on topic c: the answer
    raw = {h.sentence.doc_id: float(q @ store.sents[(h.sentence.doc_id, 0)][1]) for h in (own, other)}
    assert raw["ena"] > raw["zhc"]  # the plain cosine prefers the question's language
    assert xl_centre.mark(store, "kb", [(None, [own]), ("lang-list", [other])], "en", q, {}, means, 0.3) == 2
    assert other.centred > own.centred  # centred, the answer wins
    # one fetch for the sample of the means, one for the hits; hits already marked are not fetched again
    assert store.fetches == 2 and xl_centre.mark(store, "kb", [(None, [own])], "en", q, {}, means, 0.3) == 0


def test_without_the_questions_language_mean_nothing_is_marked():
    store = _store()
    h = Hit(sentence=_sentence(("zhc", 0), "zh"), score=1.0)
    assert xl_centre.mark(store, "kb", [(None, [h])], "en", np.ones(DIM), {}, {"zh": np.zeros(DIM)}, 0.3) == 0
    assert h.centred is None and xl_centre.query(np.ones(DIM), "en", {"zh": np.zeros(DIM)}) is None


def test_merged_keeps_each_sentence_once_best_centred_first():
    a, b, c = (Hit(sentence=_sentence((d, 0), "zh"), score=1.0, centred=v) for d, v in (("a", 0.2), ("b", 0.5), ("c", 0.4)))
    b2 = Hit(sentence=_sentence(("b", 0), "zh"), score=0.3, centred=0.5)
    out = xl_centre.merged([a, b], [b2, c], depth=2)
    assert [h.sentence.doc_id for h in out] == ["b", "c"] and out[0] is b  # the plain search's hit kept


def test_a_mixed_knowledge_bases_hits_carry_the_centred_cosine(e5_engine):
    r = e5_engine.retrieve("How do I descale the kettle?", "sample")
    assert r.hits and all(h.centred is not None and h.hub is not None for h in r.hits)
    means = e5_engine.crosslingual.means
    n = means.samples
    e5_engine.retrieve("What is the rated power of the kettle?", "sample")
    assert means.samples == n  # the means are kept until the knowledge base changes
    res = e5_engine.ask("How do I descale the kettle?", "sample", llm=False)
    rows = shape.results(e5_engine, res)  # the HTTP API's results carry them too
    assert rows and all(r["scores"]["centred"] is not None and r["scores"]["hub"] is not None for r in rows)


def test_a_one_language_knowledge_base_gets_the_questions_language_mean_from_the_parallel_sentences():
    """A Chinese-only knowledge base and an English question: the English mean is the Chinese one
    moved by the offset between the languages' parallel sentences (embedded once)."""
    store = _Store({k: v for k, v in _store().sents.items() if v[0] == "zh"})
    calls = []

    def embed(texts):  # English sentences on the en axis, Chinese ones on the zh axis
        calls.append(len(texts))
        return np.stack([LANG["zh"] if any("\u4e00" <= c <= "\u9fff" for c in t) else LANG["en"] for t in texts])

    lm = xl_centre.LangMeans(store, embed)
    got = lm.of("kb", 1, sample=2000, want="en")
    assert set(got) == {"zh", "en"}
    np.testing.assert_allclose(got["en"], got["zh"] + LANG["en"] - LANG["zh"], atol=1e-6)
    lm.of("kb", 1, sample=2000, want="en")
    assert len(calls) == 1 and calls[0] == 2 * 64  # the 64 pairs, embedded once
    assert set(xl_centre.LangMeans(store).of("kb", 1, sample=2000, want="en")) == {"zh"}  # no embedder: none


def test_the_parallel_offset_is_embedded_once_per_process_and_model():
    """Every engine of a process (each test's) shares the parallel sentences' vectors of one model."""
    store = _Store({k: v for k, v in _store().sents.items() if v[0] == "zh"})

    class Embedder:
        runtime, dim = "test", 3

        def __init__(self, name):
            self.name, self.calls = name, 0

        def encode_passages(self, texts):
            self.calls += 1
            return np.stack([LANG["zh"] if any("\u4e00" <= c <= "\u9fff" for c in t) else LANG["en"] for t in texts])

    one, two, other = Embedder("shared-model"), Embedder("shared-model"), Embedder("another-model")
    for e in (one, two, other):
        assert set(xl_centre.LangMeans(store, e.encode_passages).of("kb", 1, sample=2000, want="en")) == {"zh", "en"}
    assert (one.calls, two.calls, other.calls) == (1, 0, 1)


def test_english_questions_on_a_chinese_only_knowledge_base_are_centred(e5_engine):
    kb = "zh_only_centre"
    text = "# 电热水壶\n\n## 除垢\n\n每月用柠檬酸除垢一次。\n\n## 保修\n\n整机保修一年。\n"
    e5_engine.index_files(kb, [("kettle_zh.md", text.encode("utf-8"))])
    try:
        r = e5_engine.retrieve("How long is the warranty?", kb)
        assert r.hits and all(h.centred is not None for h in r.hits)
        assert "保修" in r.hits[0].sentence.text
        assert e5_engine.retrieve("保修多久？", kb).hits[0].centred is None  # its own language: plain
    finally:
        e5_engine.delete_kb(kb, trash=False)


def test_hubness_is_the_mean_centred_cosine_of_the_nearest_question_language_sentences_and_is_kept():
    """Three English sentences near a Chinese one: its hubness is their centred cosines' mean (the
    sentence itself, when found, left out), divided by the spread; asked again, no search."""
    from swr.core.types import Hits

    means = {"en": np.zeros(DIM, dtype=np.float32), "zh": np.zeros(DIM, dtype=np.float32)}
    v = _unit(LANG["zh"] + TOPIC["a"]).astype(np.float32)

    class Near:
        searches = 0

        def search_many(self, reqs):
            Near.searches += len(reqs)
            assert all(r.lang == "en" and r.mode == "dense" and r.top_k == 3 for r in reqs)
            return [Hits([Hit(sentence=_sentence(("zha", 0), "zh"), score=1.0, dense_score=1.0)]
                         + [Hit(sentence=_sentence((f"e{j}", 0), "en"), score=c, dense_score=c)
                            for j, c in enumerate((0.6, 0.5, 0.1))])]

    cache: dict = {}
    hub = xl_centre.Hubness(Near(), "kb", 1, 2, {"en": 0.5}, cache)
    h = Hit(sentence=_sentence(("zha", 0), "zh"), score=1.0)
    hub.mark([h], {("zha", 0): v}, "en", means)
    assert h.hub == pytest.approx((0.6 + 0.5) / 2 / 0.5)  # the two nearest, itself left out
    h2 = Hit(sentence=_sentence(("zha", 0), "zh"), score=1.0)
    hub.mark([h2], {("zha", 0): v}, "en", means)
    assert h2.hub == h.hub and Near.searches == 1


def test_the_evidence_shows_a_hits_centred_cosine_and_hubness():
    from swr.core.types import PassageHit
    from swr.manage.render import hit_title

    h = PassageHit(i=2, sentence="E2 表示风扇故障。", score=1.1, start=0, end=9, rank=1, via="lang-list",
                   centred=0.4123, hub=0.3011)
    assert "centred cosine 0.4123, hubness 0.3011" in hit_title(h)
    assert "centred" not in hit_title(PassageHit(i=2, sentence="x", score=1.0, start=0, end=1))


def test_a_language_of_one_sentence_has_no_spread_and_still_answers(e5_engine):
    kb = "one_en_sentence"
    zh = "# 电热水壶\n\n## 保修\n\n整机保修一年。\n\n## 除垢\n\n每月用柠檬酸除垢一次。\n"
    e5_engine.index_files(kb, [("kettle_zh.md", zh.encode("utf-8")), ("note_en.txt", b"Kettle.")])
    try:
        r = e5_engine.retrieve("How long is the warranty?", kb)
        assert r.hits and all(h.hub is not None for h in r.hits if h.centred is not None)
    finally:
        e5_engine.delete_kb(kb, trash=False)
