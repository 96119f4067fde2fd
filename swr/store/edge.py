"""Embedded store: Qdrant Edge (``qdrant-edge-py``), Qdrant's in-process engine, under SWR_HOME.

Chosen over qdrant-client's local mode, which took 22 s to open 100k points and 950 ms per hybrid
query (shared/NOTES.md); Edge opens in 0.3 s and answers in ~2 ms. Edge locks its WAL: one
process per folder, so the engine opens it once per process and shares it between threads
(Edge is thread-safe).

Before Edge sees the folder, :mod:`swr.store.folder_lock` takes our own advisory lock.
"""
from __future__ import annotations

import json
import logging
import threading
import time

import numpy as np
import qdrant_edge as q

from swr.core.errors import StoreLocked, StoreUnavailable
from swr.core.ids import META_ID, doc_record_id, kb_record_id
from swr.core.settings import Settings
from swr.core.types import DocInfo, Hits, Sentence
from swr.store import edge_query as eq, folder_lock, fusion
from swr.store.base import (
    DENSE,
    RRF_K,
    SPARSE,
    SearchRequest,
    Store,
    assemble_hits,
    check_meta,
    point_record,
    sentence_from_payload,
    top_ids,
)
from swr.store.edge_build import Builder, LiveShard, live_folder, remove_stale
from swr.store.edge_query import match_filter
from swr.store.edge_schedule import BuildScheduling
from swr.store.records import PointIdStrings, RecordCache, SentenceCache
from swr.text.sparse import SparseVec

log = logging.getLogger("swr.store.edge")
FLUSH_EVERY_S = 30.0
# A flush holds the GIL (Qdrant Edge's binding) for a time that grows with what was written since
# the last one: 774 ms for 100k sentences, the longest wait of a question during the HNSW build
# (bench/concurrency.py, phase hnsw). Sentence writes flush every this many points, so
# no flush has more to write (about 150 ms here; the total flushing work stays the same).
FLUSH_EVERY_POINTS = 20_000
# Qdrant's own rule for which segments optimize() gives an HNSW index (KB of vectors; None: its
# default, 10 000 KB, about 6 700 vectors of 384 floats). Tests lower it to index tiny stores.
INDEXING_THRESHOLD_KB: int | None = None


class EdgeStore(BuildScheduling, Store):
    backend = "qdrant-edge"

    def __init__(self, settings: Settings) -> None:
        self.root = settings.store_path  # the lock and the generations' names derive from it
        self.location = str(self.root.resolve())
        self._edge: LiveShard | None = None
        self._lock = threading.Lock()  # guards creation only; Edge itself is thread-safe
        self._flushed_at = time.monotonic()
        self._unflushed = 0  # sentence points written since the last flush (FLUSH_EVERY_POINTS)
        self._optimize_from = 0  # un-indexed points below which optimize() is not worth a call
        self._build_started_with = 0
        self._points = 0  # points at the last count (open, or the last upsert): sets hnsw_ef
        self._records = RecordCache()  # kbs() and docs() until the next write (this process holds the folder)
        self._id_str = PointIdStrings()  # str() of the point ids Edge gives (uuid.UUID)
        self._sentences = SentenceCache(self.generation)  # sentences until their kb's next write (the same)
        self._lockfd = self._acquire_folder_lock()
        self._builder = Builder(self.root, self._open_shard)
        self._builder.on_done = self._built
        self._builder.wanted = self._build_wanted
        try:
            remove_stale(self.root)
            self.path = live_folder(self.root)  # the live generation (edge_build.py swaps it)
            if (self.path / "edge_config.json").exists() or (self.path / "wal").exists():
                self._edge = self._load()
                self._points = self._edge.info().points_count
        except BaseException:
            self._release_folder_lock()
            raise

    # -- lifecycle -------------------------------------------------------------------------
    def _acquire_folder_lock(self) -> int:
        return folder_lock.acquire(self.root, self.location)

    def _release_folder_lock(self) -> None:
        if self._lockfd is not None:
            folder_lock.release(self._lockfd)
            self._lockfd = None

    @staticmethod
    def _open_shard(path) -> q.EdgeShard:
        return q.EdgeShard.load(str(path))

    def _load(self) -> LiveShard:
        try:
            return LiveShard(q.EdgeShard.load(str(self.path)))
        except Exception as exc:
            if "WouldBlock" in str(exc) or "already" in str(exc).lower():
                raise StoreLocked(folder_lock.locked_message(self.location)) from exc
            raise StoreUnavailable(f"The embedded store at {self.location} could not be opened: {exc}") from exc

    def ensure(self, meta: dict) -> None:
        with self._lock:
            if self._edge is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                cfg = q.EdgeConfig(
                    vectors={DENSE: q.EdgeVectorParams(size=int(meta["dim"]), distance=q.Distance.Cosine)},
                    sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
                    optimizers=q.EdgeOptimizersConfig(indexing_threshold=INDEXING_THRESHOLD_KB))
                try:
                    self._edge = LiveShard(q.EdgeShard.create(str(self.path), cfg))
                except Exception as exc:
                    if "WouldBlock" in str(exc):
                        raise StoreLocked(f"The embedded store at {self.location} is in use by another "
                                          "process.") from exc
                    raise
                for name, schema in (("kb", q.KeywordIndexParams(is_tenant=True)),
                                     ("type", q.PayloadSchemaType.Keyword),
                                     ("doc_id", q.PayloadSchemaType.Keyword),
                                     ("source", q.PayloadSchemaType.Keyword),
                                     ("tags", q.PayloadSchemaType.Keyword),
                                     ("lang", q.PayloadSchemaType.Keyword),
                                     ("i", q.PayloadSchemaType.Integer)):
                    self._edge.update(q.UpdateOperation.create_field_index(name, schema))
        stored = self.meta()
        if stored is None:
            self._put(META_ID, {"type": "m", "meta": json.dumps(meta)})
            self._edge.flush()
        else:
            check_meta(stored, meta)

    def close(self) -> None:
        try:
            self._builder.close()
            if self._edge is not None:
                try:
                    self._edge.flush()
                finally:
                    self._edge.close()
                    self._edge = None
        finally:
            self._release_folder_lock()

    # -- records ---------------------------------------------------------------------------
    def _require(self) -> None:
        if self._edge is None:
            raise StoreUnavailable("The embedded store has no collection yet: call ensure() before writing.")

    def _put(self, pid: str, payload: dict) -> None:
        self._require()
        self._edge.update(q.UpdateOperation.upsert_points([q.Point(pid, {}, payload)]))

    def meta(self) -> dict | None:
        if self._edge is None:
            return None
        recs = self._edge.retrieve([META_ID], with_payload=True, with_vector=False)
        return json.loads(recs[0].payload["meta"]) if recs else None

    # No flush() after every record: the WAL already makes each update survive a killed process,
    # in order, and a flush (fsync of every segment) took 160-630 ms here, twice per indexed file.
    # A finished document flushes at most every FLUSH_EVERY_S, which bounds the WAL to replay.
    def create_kb(self, kb: str) -> None:
        self._put(kb_record_id(kb), {"type": "k", "kb": kb})

    def kbs(self) -> list[str]:
        if self._edge is None:
            return []
        return self._records.get("kbs", lambda: sorted(r.payload["kb"] for r in self._scroll(
            match_filter(type="k"), ["kb"])), self._writes())

    def _writes(self) -> tuple:
        """What the record cache keys on: this shard and its writes so far."""
        edge = self._edge
        return (id(edge), edge.written)

    def put_doc(self, kb: str, info: DocInfo) -> None:
        self.wrote(kb)
        self._put(doc_record_id(kb, info.doc_id), {"type": "d", "kb": kb, **info.to_dict()})
        if info.complete:
            self._maybe_optimize()
            if time.monotonic() - self._flushed_at > FLUSH_EVERY_S:
                self.flush()

    def docs(self, kb: str, source: str | None = None, doc_id: str | None = None) -> list[DocInfo]:
        if self._edge is None:
            return []

        def read() -> list[DocInfo]:
            out = []
            for r in self._scroll(match_filter(type="d", kb=kb, source=source, doc_id=doc_id), True):
                p = {k: v for k, v in r.payload.items() if k in DocInfo.__dataclass_fields__}
                out.append(DocInfo(**p))
            return sorted(out, key=lambda d: d.source)

        return self._records.get(("docs", kb, source, doc_id), read, self._writes())

    def delete_kb(self, kb: str) -> int:
        if self._edge is None:
            return 0
        self.wrote(kb)
        n = self.count(kb)
        self._edge.update(q.UpdateOperation.delete_points_by_filter(match_filter(kb=kb)))
        self.wrote(kb)  # after the write too: a sentence read meanwhile is never served again
        self.flush()
        return n

    def delete_doc(self, kb: str, doc_id: str) -> int:
        if self._edge is None:
            return 0
        self.wrote(kb)
        n = self._edge.count(q.CountRequest(filter=match_filter(type="s", kb=kb, doc_id=doc_id), exact=True))
        self._edge.update(q.UpdateOperation.delete_points_by_filter(match_filter(kb=kb, doc_id=doc_id)))
        self.wrote(kb)  # after the write too: a sentence read meanwhile is never served again
        self.flush()
        return n

    # -- sentences -------------------------------------------------------------------------
    def upsert(self, sentences: list[Sentence], dense: np.ndarray, sparse: list[SparseVec]) -> None:
        from swr.core.ids import sentence_id

        self._require()
        points = []
        for s, d, sp in zip(sentences, dense, sparse):
            vec = {DENSE: d.tolist()}
            if sp.indices:
                vec[SPARSE] = q.SparseVector(sp.indices, sp.values)
            points.append(q.Point(sentence_id(s.kb, s.doc_id, s.i), vec, {"type": "s", **s.payload()}))
        for k in range(0, len(points), 512):
            self._edge.update(q.UpdateOperation.upsert_points(points[k:k + 512]))
        for kb in {s.kb for s in sentences}:
            self.wrote(kb)  # after the write: a question in between caches what it then saw
        self._points = self._edge.info().points_count  # once per batch, not per search (hnsw_ef)
        self._unflushed += len(points)
        if self._unflushed >= FLUSH_EVERY_POINTS:
            self.flush()

    def get(self, ids: list[str]) -> list[Sentence]:
        if self._edge is None or not ids:
            return []
        found = self._sentences_of(ids)
        return [found[pid] for pid in ids if pid in found]

    def _sentences_of(self, ids: list[str]) -> dict[str, Sentence]:
        """The stored sentences of ``ids`` by point id (missing ones absent): remembered ones, and
        the rest in one ``retrieve``."""
        found, missing = self._sentences.lookup(ids)
        if missing:
            gens = self.generations()  # before the fetch: a write meanwhile makes what it returns stale
            got = {str(r.id): sentence_from_payload(r.payload)
                   for r in self._edge.retrieve(missing, with_payload=True, with_vector=False)}
            self._sentences.keep(lambda kb: gens.get(kb, 0), got)
            found.update(got)
        return found

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        if self._edge is None or not ids:
            return {}
        recs = self._edge.retrieve(list(ids), with_payload=False, with_vector=True)
        return {str(r.id): np.asarray(r.vector[DENSE], dtype=np.float32)
                for r in recs if isinstance(r.vector, dict) and DENSE in r.vector}

    def export_points(self, kb: str, doc_id: str | None = None) -> list[dict]:
        if self._edge is None:
            return []
        return [point_record(r.id, r.payload, r.vector)
                for r in self._scroll(match_filter(kb=kb, doc_id=doc_id), True, with_vector=True)]

    def import_points(self, records: list[dict]) -> int:
        self._require()
        points = []
        for r in records:
            vec = {}
            if r.get("dense") is not None:
                vec[DENSE] = list(r["dense"])
            if r.get("sparse"):
                vec[SPARSE] = q.SparseVector(r["sparse"]["indices"], r["sparse"]["values"])
            points.append(q.Point(r["id"], vec, r["payload"]))
        for k in range(0, len(points), 512):
            self._edge.update(q.UpdateOperation.upsert_points(points[k:k + 512]))
        self.flush()
        for kb in {r["payload"].get("kb") for r in records}:
            self.wrote(kb)
        self._points = self._edge.info().points_count
        return len(points)

    def scroll_doc(self, kb: str, doc_id: str) -> list[Sentence]:
        if self._edge is None:
            return []
        flt = match_filter(type="s", kb=kb, doc_id=doc_id)
        sents = [sentence_from_payload(r.payload) for r in self._scroll(flt, True)]
        return sorted(sents, key=lambda s: s.i)

    def count(self, kb: str | None = None) -> int:
        if self._edge is None:
            return 0
        return self._edge.count(q.CountRequest(filter=match_filter(type="s", kb=kb), exact=True))

    def _scroll(self, flt, with_payload, *, with_vector: bool = False):
        offset = None
        while True:
            recs, offset = self._edge.scroll(q.ScrollRequest(offset=offset, limit=1000, filter=flt,
                                                              with_payload=with_payload, with_vector=with_vector))
            yield from recs
            if offset is None:
                break

    # -- maintenance and raw access (benchmarks, diagnostics) ------------------------------
    def build_index(self) -> None:
        """Give every un-indexed segment its HNSW index now, in this process (blocks, GIL held:
        benchmarks and tools only; the app's builds run in a child, see ``_maybe_optimize``)."""
        self._builder.wait()
        if self._edge is not None:
            self._edge.optimize()

    def flush(self) -> None:
        """Write every segment to disk (the WAL already survives a killed process)."""
        if self._edge is not None:
            self._edge.flush()
            self._flushed_at = time.monotonic()
            self._unflushed = 0

    def points_count(self) -> int:
        """Points of every kind (sentences and records) in the shard."""
        return self._edge.info().points_count if self._edge is not None else 0

    def indexed_vectors(self) -> int:
        """Vectors with an index (dense with HNSW, plus every sparse one)."""
        return self._edge.info().indexed_vectors_count if self._edge is not None else 0

    def payloads(self, kb: str, kind: str | None = None):
        """The raw payloads of ``kb``'s points (``kind``: ``s``, ``d``, ``k``; None: all)."""
        if self._edge is None:
            return
        for r in self._scroll(match_filter(type=kind, kb=kb), True):
            yield r.payload

    def dense_query(self, kb: str, vector, limit: int, *, exact: bool = False,
                    hnsw_ef: int | None = None) -> list[tuple[str, float]]:
        """``(point id, cosine)`` of ``kb``'s nearest sentences: an exact scan, or HNSW with this
        beam (``hnsw_ef=None`` with ``exact=False``: Qdrant's default beam)."""
        if self._edge is None:
            return []
        params = q.SearchParams(exact=True) if exact else q.SearchParams(hnsw_ef=hnsw_ef) if hnsw_ef else None
        query = q.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=DENSE)
        pts = self._edge.query(q.QueryRequest(limit=limit, query=query, filter=match_filter(type="s", kb=kb),
                                               params=params))
        return [(str(p.id), float(p.score)) for p in pts]

    # -- search ----------------------------------------------------------------------------
    def search(self, req: SearchRequest) -> Hits:
        return self.search_many([req])[0]

    def search_many(self, reqs: list[SearchRequest]) -> list[Hits]:
        """:meth:`Store.search_many` in one ``query_batch`` (every request's candidate lists) and one
        ``retrieve`` (every request's top hits' payloads): a bilingual question's three lists cost
        two store calls instead of six."""
        for req in reqs:
            req.validate()
        if self._edge is None or not reqs:
            return [Hits() for _ in reqs]
        plans = [eq.candidate_queries(req, self.hnsw_ef()) for req in reqs]
        flat = [qr for names, queries in plans for qr in queries]
        results = iter(self._edge.query_batch(q.QueryBatchRequest(flat)) if flat else [])
        lists = []
        for req, (names, _) in zip(reqs, plans):
            got = {n: [(self._id_str(p.id), p.score) for p in next(results)] for n in names}
            if req.mode == "hybrid" and "dense" in got and "sparse" in got:
                # one search per list: the fused list is computed from the two lists the ranks come
                # from, exactly as Qdrant's prefetch + fusion would (swr/store/fusion.py, tested)
                got["hybrid"] = fusion.fuse([got["dense"][:req.dense_k], got["sparse"][:req.sparse_k]],
                                            req.fusion, k=RRF_K, weights=eq.weights(req), limit=req.top_k)
            lists.append(got)
        # fetching 50 payloads per list cost 2.7 ms at 100k points: only the top_k hits', all at once
        wanted = list(dict.fromkeys(pid for req, got in zip(reqs, lists) for pid in top_ids(req, got)))
        found = self._sentences_of(wanted) if wanted else {}
        return [assemble_hits(req, got, lambda ids: {pid: found.get(pid) for pid in ids})
                for req, got in zip(reqs, lists)]

    def sparse_any(self, kb: str, lang: str | None, vectors: list) -> list[bool]:
        """:meth:`Store.sparse_any` in one ``query_batch`` (a new question's words cost one store
        call, not one each)."""
        if self._edge is None or not vectors:
            return [False] * len(vectors)
        queries = eq.sparse_any_queries(kb, lang, vectors)
        results = self._edge.query_batch(q.QueryBatchRequest(queries))
        return [any(p.score > 0 for p in pts) for pts in results]

    def qdrant_fused(self, req: SearchRequest) -> list[tuple[str, float]]:
        """Qdrant's own fused list for a hybrid request (prefetch + fusion inside Qdrant): what
        :meth:`search` computes client-side, kept to test that both agree."""
        pts = self._edge.query(eq.fused_query(req, self.hnsw_ef()))
        return [(str(p.id), p.score) for p in pts]

