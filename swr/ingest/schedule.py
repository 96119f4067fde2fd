"""The indexer's scheduler (:class:`swr.ingest.indexer.Indexer`): the documents being indexed
(:class:`Job`), the pools of small files embedded together and written in order (:class:`Run`,
:class:`Flight`), and the lane the CPU stages run in, a background thread when overlapped
(:class:`Lane`). Everything stateful stays on the calling thread."""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent import futures
from dataclasses import dataclass, field

from swr.core.errors import SwrError
from swr.core.types import DocInfo, FileResult
from swr.ingest.load import safe_name

log = logging.getLogger("swr.ingest.indexer")


@dataclass
class Job:
    """A document being indexed: its points, and the lock held until it is complete."""

    no: int
    doc: object
    info: DocInfo
    sentences: list
    texts: list[str]
    lock: threading.Lock
    t0: float
    original: bytes | None = None  # a PDF's bytes, kept for the document view (swr.ingest.originals)


@dataclass
class Prepared:
    """A file loaded (and, when overlapped, split ahead): what ``_start_doc`` turns into a job."""

    no: int
    name: str
    t0: float
    doc: object = None
    original: bytes | None = None
    parts: tuple | None = None  # (sentences, texts) split ahead, or None: split under the lock
    error: Exception | None = None  # this file failed to load or split


@dataclass
class Flight:
    """A pool whose chunks are embedded (or failed to be) and written in the lane; its jobs'
    locks are held until :meth:`Run.collect` finishes it."""

    jobs: list
    writes: list = field(default_factory=list)  # one future per chunk's write
    failed: Exception | None = None  # embedding (or a write) failed: every job is retried alone

    def error(self) -> BaseException | None:
        """Why this pool failed, if it did (its own embedding, or a write)."""
        return self.failed or next((f.exception() for f in self.writes if f.done() and f.exception()), None)


class Lane:
    """Where the CPU stages run: one background thread taking tasks in the order given
    (overlapped), or inline at submission (the order without the overlap). ``submit`` returns a
    future either way; an ``Exception`` is kept in it, an inline ``BaseException`` propagates."""

    def __init__(self, overlap: bool) -> None:
        self.overlap = overlap
        self._pool = futures.ThreadPoolExecutor(1, thread_name_prefix="swr-index") if overlap else None

    def submit(self, fn, *args) -> futures.Future:
        """Run ``fn(*args)`` in the lane."""
        if self._pool is not None:
            return self._pool.submit(fn, *args)
        fut: futures.Future = futures.Future()
        try:
            fut.set_result(fn(*args))
        except Exception as exc:  # noqa: BLE001  (kept for the caller, as the thread does)
            fut.set_exception(exc)
        return fut

    def close(self) -> None:
        """Drop the tasks not started and wait for the one running (never leaves a write behind)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class Run:
    """One ``index_files`` call: the pool being gathered and the pools in flight, in order."""

    def __init__(self, indexer, kb, progress, n_files, results, lane) -> None:
        self.ix, self.kb, self.progress, self.n_files, self.results, self.lane = (
            indexer, kb, progress, n_files, results, lane)
        self.pool: list[Job] = []
        self.flights: deque[Flight] = deque()

    def has_source(self, source: str) -> bool:
        """Whether a job of this run not yet complete indexes a file of this name."""
        return any(j.doc.source == source for j in self.pool) or any(
            j.doc.source == source for fl in self.flights for j in fl.jobs)

    def flush(self) -> None:
        """Embed the pool's chunks, each written in the lane; then finish what is written."""
        jobs, self.pool = self.pool, []
        if not jobs:
            return
        flight = Flight(jobs)
        self.flights.append(flight)  # its locks are the flight's from here
        try:
            self.ix._embed_store(jobs, self.progress, self.n_files, write=lambda *a: self._write(flight, *a))
        except Exception as exc:  # noqa: BLE001  (retried alone in collect)
            flight.failed = exc
        # a failed pool is retried now, so that its files' progress comes before the next files'
        self.collect(wait=flight.failed is not None)

    def _write(self, flight: Flight, sentences, texts, dense) -> None:
        """Queue one chunk's BM25 and upsert, once the chunk before it is written (one chunk
        written while the next is embedded); a failed write stops this pool's embedding."""
        pending = [f for fl in self.flights for f in fl.writes if not f.done()]
        futures.wait(pending)
        self.collect(wait=False, upto=flight)
        if err := flight.error():
            raise err
        fut = self.lane.submit(self.ix._write_chunk, sentences, texts, dense)
        flight.writes.append(fut)
        if fut.done() and fut.exception():  # inline: stop at once, as before the overlap
            raise fut.exception()

    def collect(self, wait: bool, upto: Flight | None = None) -> None:
        """Finish the pools in flight, oldest first: those whose writes are done (``wait``: all of
        them, waiting); ``upto``: only the pools before it, and only the clean ones (no retry,
        so no progress of an earlier file, in the middle of another pool's embedding)."""
        while self.flights and self.flights[0] is not upto:
            fl = self.flights[0]
            if not wait and (not all(f.done() for f in fl.writes) or (upto is not None and fl.error())):
                return
            futures.wait(fl.writes)
            self.flights.popleft()
            self._finish(fl)

    def _finish(self, fl: Flight) -> None:
        """Mark a written pool's documents complete (a failed pool's retried alone, so that only a
        file that fails by itself fails); releases their locks."""
        try:
            failed = fl.error()
            for job in fl.jobs:
                try:
                    if failed is not None:
                        if len(fl.jobs) == 1:
                            raise failed
                        self.ix._embed_store([job], self.progress, self.n_files)
                    res = self.ix._finish_doc(self.kb, job)
                except Exception as exc:  # noqa: BLE001
                    res = failed_result(job.doc.source, exc)
                res.seconds = round(time.perf_counter() - job.t0, 3)
                self.results[job.no] = res
        finally:
            for job in fl.jobs:
                job.lock.release()

    def drain(self) -> None:
        """Flush the pool and finish every pool in flight: no lock of this run held after."""
        self.flush()
        self.collect(wait=True)

    def release(self) -> None:
        """Interrupted: unlock every job never finished (once each: a job is in one place)."""
        jobs = self.pool + [j for fl in self.flights for j in fl.jobs]
        self.pool, self.flights = [], deque()
        for job in jobs:
            job.lock.release()


def failed_result(name: str, exc: Exception) -> FileResult:
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
