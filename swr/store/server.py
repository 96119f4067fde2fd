"""Server store: a Qdrant server (or cluster) through ``qdrant-client``, chosen when QDRANT_URL is set.

Same collection layout and the same answers as the embedded store (:mod:`swr.store.edge`, the
reference): named dense vector ``dense`` (cosine), sparse vector ``bm25`` with the IDF modifier
(the BM25 vectors are computed on the client by :class:`swr.text.sparse.SparseEncoder`, so both
backends tokenize and weight identically), record points without vectors for the collection's
metadata (``type="m"``), knowledge bases (``"k"``) and documents (``"d"``), and payload indexes
on ``kb`` (keyword, tenant), ``type``, ``doc_id``, ``source``, ``tags``, ``lang`` (keyword) and
``i`` (integer). A search is one ``query_batch_points`` call (the dense list, the sparse list and,
for hybrid, their fusion inside Qdrant: docs/qdrant-server.md says which Qdrant query each fusion is).
Every query is filtered by ``kb`` and ``type="s"``, so one knowledge base never sees another's
sentences.

Running against a server or a cluster, and sharding by knowledge base (``SWR_SHARD_BY_KB``):
docs/qdrant-server.md. Unreachable servers, refused API keys and server errors raise
:class:`swr.core.errors.StoreUnavailable` naming the URL (user info stripped; never the API key).

``QDRANT_URL=:memory:`` runs qdrant-client's in-memory local mode (tests, demos): same API, no
payload indexes (local mode ignores them), nothing persisted, one lock around every call
(local mode is not thread-safe). One known difference: local mode drops deleted points from the
BM25 IDF statistics at once, while Qdrant Edge and a Qdrant server go on counting them until
their segments are optimized, so after deletions sparse scores (rarely the order) can differ.
IDF is per knowledge base in every backend (the IDF corpus of a search is the filter ``type=s,
kb=<kb>``): one knowledge base's documents never shift another's BM25 scores.
"""
from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections import defaultdict

import httpx
import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ApiException, UnexpectedResponse

from swr.core.errors import BadRequest, ModelMismatch, StoreUnavailable
from swr.core.ids import META_ID, doc_record_id, kb_record_id, sentence_id
from swr.core.redact import redact, safe_url
from swr.core.settings import Settings
from swr.core.types import DocInfo, Hits, Sentence
from swr.store.base import (
    DENSE,
    SPARSE,
    SearchRequest,
    Store,
    assemble_hits,
    check_meta,
    point_record,
    sentence_from_payload,
)
from swr.store.server_query import match_filter, search_requests, sparse_vector, unavailable_message
from swr.text.sparse import SparseVec

log = logging.getLogger("swr.store.server")

MEMORY = ":memory:"
TIMEOUT_S = 30
UPSERT_BATCH = 256
META_SHARD = "__swr_meta__"
INDEXES = (("kb", models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)),
           ("type", models.PayloadSchemaType.KEYWORD),
           ("doc_id", models.PayloadSchemaType.KEYWORD),
           ("source", models.PayloadSchemaType.KEYWORD),
           ("tags", models.PayloadSchemaType.KEYWORD),
           ("lang", models.PayloadSchemaType.KEYWORD),
           ("i", models.PayloadSchemaType.INTEGER))


class ServerStore(Store):
    backend = "qdrant-server"

    def __init__(self, settings: Settings, *, client: QdrantClient | None = None) -> None:
        url = settings.qdrant_url or MEMORY
        self.collection = settings.collection
        self._local = url == MEMORY
        self.location = MEMORY if self._local else safe_url(url)
        if self._local:
            self.backend = "qdrant-memory"
        self._api_key = settings.qdrant_api_key
        self._raw_url = url
        self._settings = settings
        # local mode is not thread-safe (IndexError under concurrent writes and reads); a server is
        self._lock = threading.RLock() if self._local else contextlib.nullcontext()
        self._create_lock = threading.Lock()
        self._by_kb = bool(settings.qdrant_shard_by_kb) and not self._local
        if settings.qdrant_shard_by_kb and self._local:
            log.warning("SWR_SHARD_BY_KB is ignored with QDRANT_URL=:memory: (local mode has no shard keys).")
        self._known_keys: set[str] = set()
        self._ready = False
        if client is not None:
            self._client = client
        else:
            try:
                if self._local:
                    self._client = QdrantClient(location=MEMORY)
                else:
                    self._client = QdrantClient(url=url, api_key=self._api_key, timeout=TIMEOUT_S,
                                                check_compatibility=False)
            except Exception as exc:  # a malformed URL
                raise StoreUnavailable(self._scrub(
                    f"QDRANT_URL {self.location!r} could not be used: {exc}. Set it to the server's address, "
                    "e.g. http://localhost:6333, or unset it to use the embedded store.")) from exc
        names = {c.name for c in self._call("listing its collections", self._client.get_collections).collections}
        if self.collection in names:
            self._found()

    # -- errors ----------------------------------------------------------------------------
    def _scrub(self, text: str) -> str:
        """Never show the API key, nor the URL's user info."""
        if self._raw_url != self.location:
            text = text.replace(self._raw_url, self.location)
        return redact(text, self._api_key)

    def _call(self, what: str, fn, *args, **kwargs):
        """Run one client call; turn transport and server errors into StoreUnavailable."""
        try:
            with self._lock:
                return fn(*args, **kwargs)
        except (ApiException, httpx.HTTPError, ConnectionError, TimeoutError) as exc:
            raise self._unavailable(what, exc) from exc

    def _unavailable(self, what: str, exc: Exception) -> StoreUnavailable:
        return StoreUnavailable(self._scrub(unavailable_message(self.location, what, exc)))

    # -- lifecycle -------------------------------------------------------------------------
    def _exists(self) -> bool:
        """Whether the collection exists (checked again while it does not: another process may create it)."""
        if not self._ready and self._call("looking for its collection", self._client.collection_exists,
                                          self.collection):
            self._found()
        return self._ready

    def _found(self) -> None:
        """The collection exists: follow its sharding method, whatever the setting says."""
        self._ready = True
        if self._local:
            return
        info = self._call("reading its collection", self._client.get_collection, self.collection)
        sharded = info.config.params.sharding_method == models.ShardingMethod.CUSTOM
        if sharded != self._by_kb:
            log.warning("Collection %r on %s was created %s custom sharding; SWR_SHARD_BY_KB=%s is ignored for it.",
                        self.collection, self.location, "with" if sharded else "without", self._by_kb)
        self._by_kb = sharded

    def collection_kwargs(self, dim: int) -> dict:
        """Arguments of ``create_collection`` for vectors of ``dim`` dimensions (and the sharding)."""
        kw = dict(collection_name=self.collection,
                  vectors_config={DENSE: models.VectorParams(size=int(dim), distance=models.Distance.COSINE)},
                  sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)})
        if self._by_kb:
            kw.update(sharding_method=models.ShardingMethod.CUSTOM,
                      shard_number=int(self._settings.qdrant_shard_number),
                      replication_factor=int(self._settings.qdrant_replication_factor))
        return kw

    def ensure(self, meta: dict) -> None:
        with self._create_lock:
            if not self._exists():
                try:
                    self._call("creating its collection", self._client.create_collection,
                               **self.collection_kwargs(meta["dim"]))
                except StoreUnavailable as exc:
                    if not self._call("looking for its collection", self._client.collection_exists,
                                      self.collection):
                        raise
                    log.info("Collection %r was created by another process (%s).", self.collection, exc.message)
                    self._found()
                self._ready = True
                if not self._local:
                    for name, schema in INDEXES:
                        try:
                            self._call(f"indexing the field {name!r}", self._client.create_payload_index,
                                       self.collection, field_name=name, field_schema=schema, wait=True)
                        except StoreUnavailable as exc:
                            log.warning("Payload index %r not created: %s", name, exc.message)
        self._check_vectors()
        stored = self.meta()
        if stored is None:
            self._ensure_shard(META_SHARD)
            self._put(META_ID, {"type": "m", "meta": json.dumps(meta)}, META_SHARD if self._by_kb else None)
        else:
            check_meta(stored, meta)

    def _check_vectors(self) -> None:
        """Refuse an existing collection without swr's dense and BM25 vectors (e.g. dense-only)."""
        params = self._call("reading its collection", self._client.get_collection, self.collection).config.params
        dense = params.vectors if isinstance(params.vectors, dict) else {}
        sparse = params.sparse_vectors or {}
        missing = [n for n, ok in ((DENSE, DENSE in dense), (SPARSE, SPARSE in sparse)) if not ok]
        if missing:
            raise ModelMismatch(
                f"The collection {self.collection!r} on {self.location} has no "
                f"{' and no '.join(repr(m) for m in missing)} vectors (dense-only, or made by another tool). "
                "swr needs a named dense vector 'dense' and a sparse BM25 vector 'bm25' with the IDF "
                "modifier: set SWR_COLLECTION to a new name and index again (swr creates it right).")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._client.close()

    # -- sharding --------------------------------------------------------------------------
    def _sk(self, kb: str | None):
        """``shard_key_selector`` of a knowledge base: the kb itself when sharded, else None."""
        return kb if self._by_kb and kb is not None else None

    def _ensure_shard(self, key: str) -> None:
        if not self._by_kb or key in self._known_keys:
            return
        try:
            self._call(f"creating the shard key {key!r}", self._client.create_shard_key, self.collection, key)
        except StoreUnavailable as exc:  # another process may have created it first
            if "already exists" not in exc.message.lower() and not self._has_shard(key):
                raise
        self._known_keys.add(key)

    def _has_shard(self, kb: str) -> bool:
        """Whether a knowledge base's shard key exists (a query on a missing one is an error)."""
        if not self._by_kb or kb in self._known_keys:
            return True
        try:
            with self._lock:
                resp = self._client.list_shard_keys(self.collection)
        except UnexpectedResponse:  # a server without that endpoint: let the query itself tell
            return True
        except (ApiException, httpx.HTTPError, ConnectionError, TimeoutError) as exc:
            raise self._unavailable("listing its shard keys", exc) from exc
        self._known_keys.update(str(d.key) for d in resp.shard_keys or [])
        return kb in self._known_keys

    # -- records ---------------------------------------------------------------------------
    def _put(self, pid: str, payload: dict, shard: str | None) -> None:
        self._call("writing a record", self._client.upsert, self.collection,
                   points=[models.PointStruct(id=pid, vector={}, payload=payload)], wait=True,
                   shard_key_selector=shard)

    def meta(self) -> dict | None:
        if not self._exists():
            return None
        recs = self._call("reading its metadata", self._client.retrieve, self.collection, [META_ID],
                          with_payload=True, with_vectors=False)
        return json.loads(recs[0].payload["meta"]) if recs else None

    def create_kb(self, kb: str) -> None:
        if self._by_kb:
            if kb == META_SHARD:
                raise BadRequest(f"{META_SHARD!r} is reserved when knowledge bases are sharded: choose another name.")
            self._ensure_shard(kb)
        self._put(kb_record_id(kb), {"type": "k", "kb": kb}, self._sk(kb))

    def kbs(self) -> list[str]:
        if not self._exists():
            return []
        return sorted(r.payload["kb"] for r in self._scroll(match_filter(type="k"), ["kb"], None))

    def put_doc(self, kb: str, info: DocInfo) -> None:
        self.wrote(kb)
        self._ensure_shard(kb)
        self._put(doc_record_id(kb, info.doc_id), {"type": "d", "kb": kb, **info.to_dict()}, self._sk(kb))

    def docs(self, kb: str, source: str | None = None, doc_id: str | None = None) -> list[DocInfo]:
        if not self._exists() or not self._has_shard(kb):
            return []
        out = []
        for r in self._scroll(match_filter(type="d", kb=kb, source=source, doc_id=doc_id), True, self._sk(kb)):
            p = {k: v for k, v in r.payload.items() if k in DocInfo.__dataclass_fields__}
            out.append(DocInfo(**p))
        return sorted(out, key=lambda d: d.source)

    def delete_kb(self, kb: str) -> int:
        if not self._exists() or not self._has_shard(kb):
            return 0
        self.wrote(kb)
        n = self.count(kb)
        self._delete(match_filter(kb=kb), kb)
        if self._by_kb:
            try:
                self._call(f"dropping the shard key {kb!r}", self._client.delete_shard_key, self.collection, kb)
            except StoreUnavailable as exc:
                log.warning("Shard key %r not dropped (its points are deleted): %s", kb, exc.message)
            self._known_keys.discard(kb)
        return n

    def delete_doc(self, kb: str, doc_id: str) -> int:
        if not self._exists() or not self._has_shard(kb):
            return 0
        self.wrote(kb)
        n = self._count(match_filter(type="s", kb=kb, doc_id=doc_id), self._sk(kb))
        self._delete(match_filter(kb=kb, doc_id=doc_id), kb)
        return n

    def _delete(self, flt: models.Filter, kb: str) -> None:
        self._call("deleting points", self._client.delete, self.collection,
                   points_selector=models.FilterSelector(filter=flt), wait=True, shard_key_selector=self._sk(kb))

    # -- sentences -------------------------------------------------------------------------
    def upsert(self, sentences: list[Sentence], dense: np.ndarray, sparse: list[SparseVec]) -> None:
        by_kb: dict[str, list[models.PointStruct]] = defaultdict(list)
        for s, d, sp in zip(sentences, dense, sparse):
            vec: dict = {DENSE: np.asarray(d, dtype=np.float32).tolist()}
            if sp.indices:
                vec[SPARSE] = sparse_vector(sp)
            by_kb[s.kb].append(models.PointStruct(id=sentence_id(s.kb, s.doc_id, s.i), vector=vec,
                                                  payload={"type": "s", **s.payload()}))
        for kb, points in by_kb.items():
            self._ensure_shard(kb)
            for k in range(0, len(points), UPSERT_BATCH):
                self._call("writing sentences", self._client.upsert, self.collection, points=points[k:k + UPSERT_BATCH],
                           wait=True, shard_key_selector=self._sk(kb))
            self.wrote(kb)  # after the write: a question in between caches what it then saw

    def get(self, ids: list[str]) -> list[Sentence]:
        if not ids or not self._exists():
            return []
        recs = self._call("reading sentences", self._client.retrieve, self.collection, list(ids),
                          with_payload=True, with_vectors=False)
        return [sentence_from_payload(r.payload) for r in recs]

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        if not ids or not self._exists():
            return {}
        recs = self._call("reading vectors", self._client.retrieve, self.collection, list(ids),
                          with_payload=False, with_vectors=[DENSE])
        return {str(r.id): np.asarray(r.vector[DENSE], dtype=np.float32)
                for r in recs if isinstance(r.vector, dict) and DENSE in r.vector}

    def export_points(self, kb: str, doc_id: str | None = None) -> list[dict]:
        if not self._exists() or not self._has_shard(kb):
            return []
        return [point_record(r.id, r.payload, r.vector)
                for r in self._scroll(match_filter(kb=kb, doc_id=doc_id), True, self._sk(kb), with_vectors=True)]

    def import_points(self, records: list[dict]) -> int:
        by_kb: dict[str, list[models.PointStruct]] = defaultdict(list)
        for r in records:
            vec: dict = {}
            if r.get("dense") is not None:
                vec[DENSE] = list(r["dense"])
            if r.get("sparse"):
                vec[SPARSE] = models.SparseVector(indices=r["sparse"]["indices"], values=r["sparse"]["values"])
            by_kb[r["payload"].get("kb")].append(models.PointStruct(id=r["id"], vector=vec, payload=r["payload"]))
        for kb, points in by_kb.items():
            self._ensure_shard(kb)
            for k in range(0, len(points), UPSERT_BATCH):
                self._call("restoring points", self._client.upsert, self.collection, points=points[k:k + UPSERT_BATCH],
                           wait=True, shard_key_selector=self._sk(kb))
            self.wrote(kb)  # after the write: a question in between caches what it then saw
        return sum(len(p) for p in by_kb.values())

    def scroll_doc(self, kb: str, doc_id: str) -> list[Sentence]:
        if not self._exists() or not self._has_shard(kb):
            return []
        sents = [sentence_from_payload(r.payload)
                 for r in self._scroll(match_filter(type="s", kb=kb, doc_id=doc_id), True, self._sk(kb))]
        return sorted(sents, key=lambda s: s.i)

    def count(self, kb: str | None = None) -> int:
        if not self._exists() or (kb is not None and not self._has_shard(kb)):
            return 0
        return self._count(match_filter(type="s", kb=kb), self._sk(kb))

    def _count(self, flt: models.Filter, shard) -> int:
        return self._call("counting points", self._client.count, self.collection, count_filter=flt, exact=True,
                          shard_key_selector=shard).count

    def _scroll(self, flt, with_payload, shard, *, with_vectors: bool = False):
        offset = None
        while True:
            recs, offset = self._call("listing points", self._client.scroll, self.collection, scroll_filter=flt,
                                      limit=1000, offset=offset, with_payload=with_payload, with_vectors=with_vectors,
                                      shard_key_selector=shard)
            yield from recs
            if offset is None:
                break

    # -- search ----------------------------------------------------------------------------
    def search(self, req: SearchRequest) -> Hits:
        return self.search_many([req])[0]

    def search_many(self, reqs: list[SearchRequest]) -> list[Hits]:
        """:meth:`Store.search_many` in one ``query_batch_points`` call (payloads come with the
        candidate lists): a bilingual question's lists cost one round trip to the server."""
        for req in reqs:
            req.validate()
        if not reqs or not self._exists():
            return [Hits() for _ in reqs]
        plans = [search_requests(req, self._sk(req.kb)) if self._has_shard(req.kb) else ([], []) for req in reqs]
        flat = [qr for _, queries in plans for qr in queries]
        responses = iter(self._call("searching", self._client.query_batch_points, self.collection, requests=flat)
                         if flat else [])
        out = []
        for req, (names, _) in zip(reqs, plans):
            results = {n: next(responses).points for n in names}
            lists = {n: [(str(p.id), p.score) for p in pts] for n, pts in results.items()}
            payload_of = {str(p.id): p.payload for pts in results.values() for p in pts}  # every list has them
            out.append(assemble_hits(req, lists, lambda ids, po=payload_of: {
                pid: sentence_from_payload(po[pid]) if po.get(pid) is not None else None for pid in ids}))
        return out
