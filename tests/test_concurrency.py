"""A question asked while a large document is indexing returns before that document finishes
(issue #16). Structural, not timed: the indexer's model is held inside its second passage batch
until the question has returned; a question that waited for the indexing would only return
after the hold timed out, with the document complete."""
from __future__ import annotations

import json
import threading
from pathlib import Path

from swr.embed import QuestionsFirst

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

    from swr.sparse import _stem_en

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
