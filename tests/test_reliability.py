"""Crashes and concurrency on the real Qdrant Edge store (fake embedder for speed)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

from conftest import ROOT, FakeEmbedder
from swr.engine import Engine

BIG_CODE = '"".join(f"Sentence number {k} talks about the kettle part {k % 97}. " for k in range(3000)).encode()'
BIG = eval(BIG_CODE)


def test_sigkill_mid_indexing_then_reindex_completes_without_duplicates(settings):
    code = textwrap.dedent(f"""
        import time
        from conftest import FakeEmbedder
        from swr.engine import Engine
        from swr.core.settings import Settings

        class Slow(FakeEmbedder):
            def _encode(self, texts, is_query):
                time.sleep(0.3)
                return super()._encode(texts, is_query)

        eng = Engine(Settings(home={str(settings.home)!r}, sample_kb=""), embedder=Slow())
        def progress(ev):
            print("PROGRESS", ev["done"], flush=True)
        eng.index_files("kb", [("big.txt", {BIG_CODE})], progress=progress)
        print("DONE", flush=True)
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}  # for conftest's FakeEmbedder; swr is installed
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    for line in p.stdout:
        if line.startswith("PROGRESS") and int(line.split()[1]) >= 512:
            os.kill(p.pid, signal.SIGKILL)
            break
    p.wait(timeout=60)
    assert p.returncode == -signal.SIGKILL

    eng = Engine(settings, embedder=FakeEmbedder())  # the store opens after the crash
    docs = eng.docs("kb")
    assert len(docs) == 1 and not docs[0].complete, "a half-indexed document is not shown as complete"
    res = eng.index_files("kb", [("big.txt", BIG)])
    assert res[0].ok and not res[0].skipped
    docs = eng.docs("kb")
    assert docs[0].complete and eng.store.count("kb") == docs[0].sentences == 3000
    eng.close()


def test_many_askers_while_indexing_and_deleting(fake_engine):
    eng = fake_engine
    eng.index_files("kb", [("keep.txt", b"The kettle boils water. Descale it monthly. The base has a sensor."),
                           ("gone.txt", b"This document is deleted during the test. It has two sentences.")])
    gone = next(d.doc_id for d in eng.docs("kb") if d.source == "gone.txt")
    errors: list[BaseException] = []
    stop = threading.Event()

    def asker(n):
        try:
            while not stop.is_set():
                for w in (0, 2, 5):
                    r = eng.ask(f"kettle sensor {n}", "kb", window_size=w, top_k=5)
                    for p in r.passages:
                        assert p.text and all(p.text[h.start:h.end] == h.sentence for h in p.hits)
                        sents = eng.store.scroll_doc("kb", p.doc_id)
                        if sents:  # the window is the document's own text, in order
                            full = "".join(s.text for s in sents)
                            assert p.text in full
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def indexer():
        try:
            for k in range(6):
                eng.index_files("kb", [(f"new{k}.txt", f"New file {k} about the kettle sensor. Line two.".encode())])
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def deleter():
        try:
            time.sleep(0.2)
            eng.delete_doc("kb", gone)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=asker, args=(n,)) for n in range(8)]
    writers = [threading.Thread(target=indexer), threading.Thread(target=deleter)]
    for t in threads + writers:
        t.start()
    for t in writers:
        t.join(timeout=120)
    stop.set()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    docs = eng.docs("kb")
    assert sorted(d.source for d in docs) == ["keep.txt"] + [f"new{k}.txt" for k in range(6)]
    assert eng.store.count("kb") == sum(d.sentences for d in docs) == 3 + 6 * 2, "no lost or duplicated points"
