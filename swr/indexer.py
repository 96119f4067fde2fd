"""Indexing: files -> documents -> sentences -> vectors -> points, one document at a time
visible as incomplete until all its points are written (a crash leaves it visibly unfinished).

Small files are pooled: their sentences are embedded together, up to :data:`EMBED_CHUNK` per
model call (the model sorts one large call by length and pads far less than many small calls;
bench/README.md). A bad file gets an error result naming it; the other files are still indexed.
A per-document lock keeps two threads from writing the same document at once.
"""
from __future__ import annotations

import datetime as _dt
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .docview import files as kept
from .errors import SwrError
from .load import load_bytes, load_path, make_doc_id, safe_name
from .load.pdf_text import TEXT_LAYER
from .nodes import build_nodes, embed_text, to_sentence
from .split import split_spans
from .structure import annotate
from .types import DocInfo, FileResult

log = logging.getLogger("swr.indexer")

EMBED_CHUNK = 1024  # sentences per chunk (sparse vectors, upsert); small files are pooled up to it
# dense vectors per progress step inside a chunk (None: the embedder's batch size; 0: one call per chunk)
PROGRESS_BATCH: int | None = None

Progress = Callable[[dict], None]


@dataclass
class _Job:
    """A document being indexed: its points, and the lock held until it is complete."""

    no: int
    doc: object
    info: DocInfo
    sentences: list
    texts: list[str]
    lock: threading.Lock
    t0: float
    original: bytes | None = None  # a PDF's bytes, kept for the document view (swr.docview.files)


def _failed(name: str, exc: Exception) -> FileResult:
    """The error result of one file, under its safe name (an upload's name is untrusted)."""
    name = safe_name(name)
    if isinstance(exc, SwrError):
        log.warning("%s", exc.message)
        return FileResult(source=name, ok=False, error=exc.to_dict())
    # a bug or an unexpected library error: still only this file
    log.error("indexing %s failed", name, exc_info=exc)
    return FileResult(source=name, ok=False,
                      error={"kind": "error", "message": f"{name}: indexing failed ({type(exc).__name__}: {exc})",
                             "source": name})


class Indexer:
    """Writes documents into the store of an engine (its public ``settings``, ``store``,
    ``embedder`` and ``sparse``); the engine checks the knowledge base name first."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._doc_locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def doc_lock(self, kb: str, doc_id: str) -> threading.Lock:
        """The lock held while one document of ``kb`` is written or deleted."""
        with self._locks_lock:
            return self._doc_locks.setdefault((kb, doc_id), threading.Lock())

    def index_files(self, kb: str, files: Iterable, *, tags: list[str] | None = None,
                    progress: Progress | None = None) -> list[FileResult]:
        """Index files (paths, or ``(name, bytes)`` pairs) into the existing ``kb``."""
        files = list(files)
        results: list = [None] * len(files)
        pool: list[_Job] = []

        def flush():
            jobs = pool[:]
            pool.clear()
            if jobs:
                self._write_pool(kb, jobs, progress, len(files), results)

        try:
            for k, f in enumerate(files):
                name = f[0] if isinstance(f, tuple) else Path(f).name
                t0 = time.perf_counter()
                try:
                    doc = self._load(f)
                    job = self._start_doc(kb, doc, tags or [], k, t0, pool, flush, _original(f, doc))
                except Exception as exc:  # noqa: BLE001  (only this file fails)
                    job = _failed(name, exc)
                if isinstance(job, FileResult):
                    job.seconds = round(time.perf_counter() - t0, 3)
                    results[k] = job
                    continue
                pool.append(job)
                if sum(len(j.texts) for j in pool) >= EMBED_CHUNK:
                    flush()
            flush()
        finally:  # interrupted: unlock what was never written
            for job in pool:
                job.lock.release()
        return results

    def _load(self, f):
        max_bytes = int(self.engine.settings.max_file_mb * 1024 * 1024)
        if isinstance(f, tuple):
            return load_bytes(f[0], f[1], max_bytes=max_bytes)
        return load_path(f, max_bytes=max_bytes)

    def _start_doc(self, kb, doc, tags, file_no, t0, pool, flush, original=None):
        """Lock the document and record it as incomplete: a ``_Job``, or a skipped result
        (``original``: a PDF's bytes, kept for the document view when it is complete)."""
        lock = self.doc_lock(kb, doc.doc_id)
        if not lock.acquire(blocking=False):  # never wait while holding the pool's locks
            flush()
            lock.acquire()
        try:
            same = self.engine.store.docs(kb, doc_id=doc.doc_id)
            if same and same[0].complete:
                if original is not None and not kept.has(self.engine.settings, kb, doc.doc_id):
                    _keep(self.engine.settings, kb, doc, original)  # indexed before files were kept
                lock.release()
                return FileResult(source=doc.source, ok=True, doc_id=doc.doc_id, sentences=same[0].sentences,
                                  skipped=True)
            if any(j.doc.source == doc.source for j in pool):  # finish the old version first
                flush()
            spans = split_spans(doc.text)
            nodes = build_nodes(doc, kb, tags=tags, window_size=self.engine.settings.window_size, spans=spans)
            # record the document as incomplete first: a crash leaves it visibly unfinished
            info = DocInfo(doc_id=doc.doc_id, source=doc.source, sentences=len(nodes), complete=False,
                           chars=len(doc.text), format=doc.format, tags=list(tags),
                           indexed_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
            self.engine.store.put_doc(kb, info)
            sentences = annotate([to_sentence(n) for n in nodes], doc.text, spans)  # structure: payload only
            return _Job(file_no, doc, info, sentences, [embed_text(n) for n in nodes], lock, t0, original)
        except BaseException:
            lock.release()
            raise

    def _write_pool(self, kb, jobs, progress, n_files, results) -> None:
        """Embed and store the pooled documents, then mark each complete; releases their locks."""
        try:
            try:
                self._embed_store(jobs, progress, n_files)
                failed = None
            except Exception as exc:  # noqa: BLE001
                failed = exc
            for job in jobs:
                try:
                    if failed is not None:  # retry alone, so only a file that fails by itself fails
                        if len(jobs) == 1:
                            raise failed
                        self._embed_store([job], progress, n_files)
                    res = self._finish_doc(kb, job)
                except Exception as exc:  # noqa: BLE001
                    res = _failed(job.doc.source, exc)
                res.seconds = round(time.perf_counter() - job.t0, 3)
                results[job.no] = res
        finally:
            for job in jobs:
                job.lock.release()

    def _embed_store(self, jobs, progress, n_files) -> None:
        """Dense + sparse vectors of the jobs' sentences, EMBED_CHUNK per chunk, upserted.

        With a progress callback the dense vectors of a chunk are asked for in length-sorted
        slices of PROGRESS_BATCH (the embedder's own batch size): the very batches the bundled
        engine forms inside one call (it sorts by length and cuts every 64), so nothing is lost
        in throughput (bench/progress.py), and each slice reports progress within the file.
        """
        sentences = [s for j in jobs for s in j.sentences]
        texts = [t for j in jobs for t in j.texts]
        t0 = time.perf_counter()
        step = PROGRESS_BATCH or int(getattr(self.engine.settings, "embed_batch_size", 64) or 64)
        for s in range(0, len(texts), EMBED_CHUNK):
            chunk = slice(s, s + EMBED_CHUNK)
            if progress and PROGRESS_BATCH != 0:
                dense = self._dense_in_steps(texts[chunk], step, lambda n, s=s: self._report(
                    jobs, progress, n_files, s, s + n, len(texts), t0))
            else:
                dense = self.engine.embedder.encode_passages(texts[chunk])
            sparse = self.engine.sparse.encode_documents(texts[chunk])
            self.engine.store.upsert(sentences[chunk], dense, sparse)
            if progress:
                self._report(jobs, progress, n_files, s, min(s + EMBED_CHUNK, len(texts)), len(texts), t0)

    def _dense_in_steps(self, texts: list[str], step: int, done) -> np.ndarray:
        """``encode_passages(texts)`` in length-sorted slices of ``step``; ``done(n)`` after each."""
        order = sorted(range(len(texts)), key=lambda k: len(texts[k]))
        out = None
        for a in range(0, len(order), step):
            idx = order[a:a + step]
            vecs = self.engine.embedder.encode_passages([texts[k] for k in idx])
            if out is None:
                out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
            out[idx] = vecs
            done(min(a + step, len(order)))
        return out if out is not None else self.engine.embedder.encode_passages([])

    @staticmethod
    def _report(jobs, progress, n_files, s, end, total, t0) -> None:
        """One progress call per job with sentences in ``[s, end)`` of this pool: done/total of its
        file, sentences/s so far and the estimated seconds left of the pool."""
        el, a = time.perf_counter() - t0, 0
        rate = end / el if el > 0 and end > 0 else None
        for j in jobs:  # every job with sentences in this range
            b = a + len(j.texts)
            if a < end and b > s:
                progress({"file": j.doc.source, "file_no": j.no, "files": n_files, "done": min(b, end) - a,
                          "total": len(j.texts), "sentences_per_s": rate,
                          "eta_s": (total - end) / rate if rate else None})
            a = b

    def _finish_doc(self, kb, job) -> FileResult:
        doc, info = job.doc, job.info
        replaced = False
        for old in self.engine.store.docs(kb, source=doc.source):  # a changed file replaces its old version
            if old.doc_id != doc.doc_id:
                self.engine.store.delete_doc(kb, old.doc_id)
                kept.remove(self.engine.settings, kb, old.doc_id)
                replaced = True
        if job.original is not None:  # before it is complete: a complete PDF always has its file
            _keep(self.engine.settings, kb, doc, job.original)
        info.complete = True
        self.engine.store.put_doc(kb, info)
        return FileResult(source=doc.source, ok=True, doc_id=doc.doc_id, sentences=len(job.sentences),
                          replaced=replaced)


def _original(f, doc) -> bytes | None:
    """The bytes of a PDF being indexed (None for other formats, or a file that changed since it
    was loaded): what the document view renders."""
    if doc.format != "pdf":
        return None
    data = f[1] if isinstance(f, tuple) else Path(f).read_bytes()
    data = bytes(data)
    return data if make_doc_id(doc.source, data) == doc.doc_id else None


def _keep(settings, kb: str, doc, data: bytes) -> None:
    """Keep a PDF and its page layout under ``SWR_HOME/files`` (:mod:`swr.docview.files`)."""
    kept.keep(settings, kb, doc.doc_id, data, {
        "format": doc.format, "text_layer": TEXT_LAYER, "page_starts": list(doc.page_starts),
        "pages": len(doc.page_starts), "chars": len(doc.text), "source": doc.source})
