"""The overlapped indexing pipeline (swr/ingest/indexer.py): while a chunk is embedded, the
chunk before it is written (BM25, upsert) and the next files are split in one background thread;
every guarantee of the sequential order holds (a bad file fails alone, locks released once,
documents complete only when written, progress in order, the same points).

Overlap is proved by gates, not by timing: the embed call waits until the background stage has
started and that stage waits until the embed call has started, each with a long timeout that is
only reached when they do not overlap (and then an assertion fails)."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import FakeEmbedder
from swr.core.settings import Settings
from swr.engine import Engine
from swr.ingest import indexer

DATA = Path(__file__).resolve().parent / "data" / "squad_amazon_rainforest.json"

GATE_S = 30  # reached only when the stages do not overlap


def sentences(n: int, tag: str, extra: str = "") -> bytes:
    """A text file of ``n`` sentences (``extra`` appended as the last)."""
    text = " ".join(f"Sentence {k} of {tag} is about kettle part {k % 89}." for k in range(n))
    return (text + (" " + extra if extra else "")).encode()


class Events:
    """Thread-safe log of (what, detail, thread name), in the order they happened."""

    def __init__(self) -> None:
        self.log: list[tuple[str, object, str]] = []
        self._lock = threading.Lock()

    def add(self, what: str, detail=None) -> int:
        with self._lock:
            self.log.append((what, detail, threading.current_thread().name))
            return len(self.log) - 1

    def at(self, what: str, detail=None) -> int:
        return next(k for k, (w, d, _) in enumerate(self.log) if w == what and (detail is None or d == detail))

    def thread(self, what: str, detail=None) -> str:
        return self.log[self.at(what, detail)][2]


class Scripted(FakeEmbedder):
    """The fake embedder, with a hook called at the start of each passage call (its number)."""

    def __init__(self, hook=None) -> None:
        super().__init__()
        self.hook = hook
        self.passage_calls = 0

    def _encode(self, texts, is_query):
        if not is_query:
            self.passage_calls += 1
            if self.hook:
                self.hook(self.passage_calls, texts)
        return super()._encode(texts, is_query)


def no_lock_held(eng) -> bool:
    """Every per-document lock of the engine is free."""
    return all(not lk.locked() for lk in eng.indexer._doc_locks.values())


def no_lane_thread() -> bool:
    return not any(t.name.startswith("swr-index") for t in threading.enumerate())


def watch(eng, ev: Events, monkeypatch, sparse_hook=None, split_hook=None):
    """Record the BM25, upsert and split calls of ``eng``; a hook is called as
    ``hook(phase, arg)`` before ("pre") and after ("post") the call is recorded."""
    sparse, upsert, split = eng.sparse.encode_documents, eng.store.upsert, indexer.split_spans
    sparse_hook = sparse_hook or (lambda phase, arg: None)
    split_hook = split_hook or (lambda phase, arg: None)

    def sparse_docs(texts):
        sparse_hook("pre", texts[0])
        ev.add("sparse", texts[0])
        sparse_hook("post", texts[0])
        return sparse(texts)

    def upsert_points(sents, dense, sp):
        ev.add("upsert", sents[0].text.strip())
        return upsert(sents, dense, sp)

    def split_spans(text, **kw):
        split_hook("pre", text)
        ev.add("split", text.split(" is ")[0])
        split_hook("post", text)
        return split(text, **kw)

    monkeypatch.setattr(eng.sparse, "encode_documents", sparse_docs)
    monkeypatch.setattr(eng.store, "upsert", upsert_points)
    monkeypatch.setattr(indexer, "split_spans", split_spans)


def test_the_chunk_before_is_written_and_the_next_file_split_while_a_chunk_embeds(settings, monkeypatch):
    """a.txt is two chunks: its first chunk's BM25 runs while its second is embedded, and b.txt
    is split while a.txt's first chunk is embedded, both in the lane's thread."""
    monkeypatch.setattr(indexer, "OVERLAP", True)
    ev = Events()
    gates = {k: threading.Event() for k in ("embed1", "embed2", "sparse1", "split_b")}
    waited: list[bool] = []

    def hook(call, texts):
        ev.add("embed-start", call)
        if call in (1, 2):
            gates[f"embed{call}"].set()
            # b.txt is split meanwhile / the first chunk is written meanwhile
            waited.append(gates["split_b" if call == 1 else "sparse1"].wait(GATE_S))
        ev.add("embed-end", call)

    def sparse_hook(phase, first):
        if first.startswith("Sentence 0 of a"):
            if phase == "pre":
                waited.append(gates["embed2"].wait(GATE_S))
            else:
                gates["sparse1"].set()

    def split_hook(phase, text):
        if text.startswith("Sentence 0 of b"):
            if phase == "pre":
                waited.append(gates["embed1"].wait(GATE_S))
            else:
                gates["split_b"].set()

    eng = Engine(settings, embedder=Scripted(hook))
    try:
        watch(eng, ev, monkeypatch, sparse_hook, split_hook)
        res = eng.index_files("kb", [("a.txt", sentences(1500, "a")), ("b.txt", sentences(300, "b"))])
        assert waited == [True] * 4, ev.log
        assert [r.ok for r in res] == [True, True] and [r.sentences for r in res] == [1500, 300]
        first_a = "Sentence 0 of a is about kettle part 0."
        assert ev.at("embed-start", 2) < ev.at("sparse", first_a) < ev.at("embed-end", 2)
        assert ev.at("embed-start", 1) < ev.at("split", "Sentence 0 of b") < ev.at("embed-end", 1)
        for what, detail in (("sparse", first_a), ("upsert", first_a), ("split", "Sentence 0 of b")):
            assert ev.thread(what, detail).startswith("swr-index"), ev.log
        assert all(t == "MainThread" for w, _, t in ev.log if w.startswith("embed"))
        assert all(d.complete for d in eng.docs("kb")) and eng.store.count("kb") == 1800
        assert no_lock_held(eng) and no_lane_thread()
    finally:
        eng.close()


def test_without_the_overlap_every_stage_runs_in_order_on_the_calling_thread(settings, monkeypatch):
    """The reference order: embed a chunk, then its BM25 and upsert; the next file is split only
    after the pool before it is written (the order of every run before the overlap)."""
    monkeypatch.setattr(indexer, "OVERLAP", False)
    ev = Events()
    eng = Engine(settings, embedder=Scripted(lambda call, texts: ev.add("embed", call)))
    try:
        watch(eng, ev, monkeypatch)
        eng.index_files("kb", [("a.txt", sentences(1500, "a")), ("b.txt", sentences(300, "b"))])
        whats = [w for w, _, _ in ev.log]
        assert whats == ["split", "embed", "sparse", "upsert", "embed", "sparse", "upsert",
                         "split", "embed", "sparse", "upsert"], whats
        assert {t for _, _, t in ev.log} == {"MainThread"}
    finally:
        eng.close()


def test_bad_files_in_a_pipelined_multi_chunk_run_fail_alone(settings, monkeypatch):
    """An undecodable file (fails while loaded in the lane), a file the model fails on (second
    chunk of its pool) and a file whose BM25 fails (in the lane's write): each fails alone, the
    others are complete with all their points; nothing is left locked or running."""
    monkeypatch.setattr(indexer, "OVERLAP", True)
    threads: list[str] = []

    def model(call, texts):
        if any("POISONEMBED" in t for t in texts):
            raise RuntimeError("the model failed on this file")

    eng = Engine(settings, embedder=Scripted(model))
    try:
        sparse = eng.sparse.encode_documents

        def bm25(texts):
            threads.append(threading.current_thread().name)
            if any("POISONBM25" in t for t in texts):
                raise RuntimeError("BM25 failed on this file")
            return sparse(texts)

        monkeypatch.setattr(eng.sparse, "encode_documents", bm25)
        files = [("a.txt", sentences(700, "a")), ("bin.txt", b"\x89PNG\r\n\x1a\n\x00\x00\xff" * 50),
                 ("b.txt", sentences(500, "b", "This POISONEMBED sentence breaks the model.")),
                 ("c.txt", sentences(600, "c")), ("d.txt", sentences(300, "d", "A POISONBM25 sentence.")),
                 ("e.txt", sentences(400, "e"))]
        res = eng.index_files("kb", files)
        assert [r.ok for r in res] == [True, False, False, True, False, True], [r.error for r in res]
        assert res[1].error["kind"] == "undecodable" and "bin.txt" in res[1].error["message"]
        assert "model failed" in res[2].error["message"] and "b.txt" in res[2].error["message"]
        assert "BM25 failed" in res[4].error["message"] and "d.txt" in res[4].error["message"]
        assert [r.source for r in res] == [n for n, _ in files]
        docs = {d.source: d for d in eng.docs("kb")}
        assert {s for s, d in docs.items() if d.complete} == {"a.txt", "c.txt", "e.txt"}
        assert not docs["b.txt"].complete and not docs["d.txt"].complete
        for name, n in (("a.txt", 700), ("c.txt", 600), ("e.txt", 400)):
            assert docs[name].sentences == n and len(eng.doc_sentences("kb", docs[name].doc_id)) == n
        assert any(t.startswith("swr-index") for t in threads)  # the failing BM25 ran in the lane
        assert no_lock_held(eng) and no_lane_thread()
    finally:
        eng.close()


def test_a_model_that_fails_mid_run_leaves_its_documents_incomplete_and_unlocked(settings, monkeypatch):
    """The model fails from its third call on: the document written before is complete, the
    others fail (each retried alone) and stay incomplete; every lock is free."""
    monkeypatch.setattr(indexer, "OVERLAP", True)

    def model(call, texts):
        if call >= 3:
            raise RuntimeError("device lost")

    eng = Engine(settings, embedder=Scripted(model))
    try:
        res = eng.index_files("kb", [("a.txt", sentences(1500, "a")), ("b.txt", sentences(1500, "b")),
                                     ("c.txt", sentences(300, "c"))])
        assert [r.ok for r in res] == [True, False, False]
        assert all("device lost" in r.error["message"] for r in res[1:])
        docs = {d.source: d for d in eng.docs("kb")}
        assert docs["a.txt"].complete and not docs["b.txt"].complete and not docs["c.txt"].complete
        assert eng.store.count("kb") >= 1500  # b's first chunk may be written: it is not complete
        assert no_lock_held(eng) and no_lane_thread()
    finally:
        eng.close()


def test_an_interrupt_mid_run_releases_every_lock_and_completes_nothing_half_written(settings, monkeypatch):
    """A KeyboardInterrupt in the model's third call (second file) propagates out of index_files
    at once: no lock held, no lane thread left, no document complete without all its points; a
    second run completes every file."""
    monkeypatch.setattr(indexer, "OVERLAP", True)
    interrupt = [True]

    def model(call, texts):
        if call == 3 and interrupt[0]:
            raise KeyboardInterrupt

    eng = Engine(settings, embedder=Scripted(model))
    files = [("a.txt", sentences(1500, "a")), ("b.txt", sentences(1500, "b")), ("c.txt", sentences(300, "c"))]
    try:
        with pytest.raises(KeyboardInterrupt):
            eng.index_files("kb", files)
        assert no_lock_held(eng) and no_lane_thread()
        docs = {d.source: d for d in eng.docs("kb")}
        assert not docs["b.txt"].complete and "c.txt" not in docs
        for d in docs.values():  # a may be complete or not: never complete without its points
            assert not d.complete or len(eng.doc_sentences("kb", d.doc_id)) == d.sentences
        interrupt[0] = False
        res = eng.index_files("kb", files)
        assert all(r.ok for r in res) and all(d.complete for d in eng.docs("kb"))
        assert eng.store.count("kb") == 3300  # no duplicates
    finally:
        eng.close()


def test_progress_and_results_are_the_same_with_and_without_the_overlap(settings, monkeypatch):
    """Per file in order, with counts rising within each file: the same events either way."""
    files = [("a.txt", sentences(1500, "a")), ("b.txt", sentences(200, "b")), ("bad.txt", b""),
             ("c.txt", sentences(700, "c")), ("d.txt", sentences(100, "d"))]
    eng = Engine(settings, embedder=FakeEmbedder())
    try:
        runs = {}
        for overlap in (False, True):
            monkeypatch.setattr(indexer, "OVERLAP", overlap)
            seen: list[dict] = []
            res = eng.index_files(f"kb{int(overlap)}", files, progress=seen.append)
            assert all(p["sentences_per_s"] for p in seen) and seen[-1]["eta_s"] == 0
            runs[overlap] = ([(p["file"], p["file_no"], p["files"], p["done"], p["total"]) for p in seen],
                             [(r.source, r.ok, r.sentences, r.doc_id, r.skipped) for r in res])
        assert runs[True] == runs[False]
        events = runs[True][0]
        firsts = [next(k for k, e in enumerate(events) if e[0] == f) for f in ("a.txt", "b.txt", "c.txt", "d.txt")]
        assert firsts == sorted(firsts)  # files begin in order (pooled ones report together)
        for f in ("a.txt", "b.txt", "c.txt", "d.txt"):
            done = [e[3] for e in events if e[0] == f]
            assert done == sorted(done) and done[-1] == events[[e[0] for e in events].index(f)][4]
        assert len(events) > 20  # every embedder batch, not only chunk ends
    finally:
        eng.close()


def test_unchanged_and_replaced_files_with_the_overlap(fake_engine, monkeypatch):
    """Unchanged files are skipped (not re-embedded); a changed file replaces its old version;
    a file named twice in one run is finished before its next version starts."""
    monkeypatch.setattr(indexer, "OVERLAP", True)
    eng = fake_engine
    eng.index_files("kb", [("a.txt", sentences(600, "a")), ("b.txt", sentences(600, "b"))])
    encoded = eng.embedder.encoded
    res = eng.index_files("kb", [("a.txt", sentences(600, "a")), ("b.txt", sentences(30, "b2")),
                                 ("c.txt", sentences(10, "c")), ("c.txt", sentences(20, "c2"))])
    assert res[0].skipped and eng.embedder.encoded - encoded == 30 + 10 + 20  # a.txt: nothing embedded
    assert res[1].replaced and res[3].replaced and not res[2].replaced
    docs = {d.source: d for d in eng.docs("kb")}
    assert len(eng.docs("kb")) == 3 and all(d.complete for d in docs.values())
    assert docs["b.txt"].sentences == 30 and docs["c.txt"].sentences == 20
    assert eng.store.count("kb") == 650 and no_lock_held(eng)


def test_the_overlap_is_chosen_by_the_embedders_device(monkeypatch):
    """On for a GPU (the names TorchEmbedder gives its device), OVERLAP_ON_CPU on a CPU."""
    monkeypatch.setattr(indexer, "OVERLAP", None)

    class E:
        device = "cpu"

    for device, want in (("cuda (NVIDIA H200, fp16)", True), ("cuda:1 (NVIDIA A10, fp16)", True), ("mps", True),
                         ("cpu (bf16, AMX)", indexer.OVERLAP_ON_CPU), ("cpu (4-bit)", indexer.OVERLAP_ON_CPU)):
        E.device = device
        assert indexer.overlapped(E()) is want, device


def test_real_model_gives_the_same_points_with_and_without_the_overlap(e5_engine, tmp_path, monkeypatch):
    """The bundled e5 (no cache), the bundled SQuAD article's paragraphs as six files, chunks of
    16 sentences (several pools, two-chunk pools among them; the data under tests/, not
    ../shared, which a checkout need not have): every stored point, payload and dense and sparse
    vector is the same either way."""
    monkeypatch.setattr(indexer, "EMBED_CHUNK", 16)
    paras = json.loads(DATA.read_text(encoding="utf-8"))["data"][0]["paragraphs"]
    files = [(f"amazon_{k}.txt", "\n\n".join(p["context"] for p in paras[k::6]).encode()) for k in range(6)]
    model = e5_engine.embedder.inner  # the real model, without the embedding cache
    points = {}
    for overlap in (False, True):
        monkeypatch.setattr(indexer, "OVERLAP", overlap)
        home = tmp_path / f"overlap{int(overlap)}"
        eng = Engine(Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb=""),
                     embedder=model)
        try:
            calls = model.calls
            res = eng.index_files("squad", files, progress=lambda p: None)
            assert all(r.ok for r in res) and model.calls > calls
            assert all(d.complete for d in eng.docs("squad"))
            points[overlap] = {p["id"]: p for p in eng.store.export_points("squad")}
        finally:
            eng.close()
    off, on = points[False], points[True]
    assert sum(1 for p in off.values() if p["dense"] is not None) > 16 * 2  # pools of two chunks
    assert off.keys() == on.keys()
    for pid, p in off.items():
        q = on[pid]
        pay_p = {k: v for k, v in p["payload"].items() if k != "indexed_at"}
        pay_q = {k: v for k, v in q["payload"].items() if k != "indexed_at"}
        assert pay_p == pay_q and p["sparse"] == q["sparse"], pid
        if p["dense"] is None:
            assert q["dense"] is None
        else:
            assert np.array_equal(p["dense"], q["dense"]), pid


def test_a_slow_lane_never_blocks_more_than_one_chunk_ahead(settings, monkeypatch):
    """Bounded memory: while the lane is held up, the calling thread embeds at most the next
    chunk before it waits (one chunk written, one embedded)."""
    monkeypatch.setattr(indexer, "OVERLAP", True)
    release, embedded = threading.Event(), []
    eng = Engine(settings, embedder=Scripted(lambda call, texts: embedded.append(call)))
    try:
        upsert = eng.store.upsert
        seen_at_first_upsert: list[int] = []

        def held_upsert(sents, dense, sp):
            if not seen_at_first_upsert:
                deadline = time.monotonic() + GATE_S
                while len(embedded) < 2 and time.monotonic() < deadline:  # the next chunk embeds meanwhile
                    time.sleep(0.01)
                release.wait(0.5)  # would a third chunk be embedded while this write is held?
                seen_at_first_upsert.append(len(embedded))
            return upsert(sents, dense, sp)

        monkeypatch.setattr(eng.store, "upsert", held_upsert)
        res = eng.index_files("kb", [("a.txt", sentences(4000, "a"))])
        assert res[0].ok and res[0].sentences == 4000
        assert seen_at_first_upsert == [2]
    finally:
        eng.close()
