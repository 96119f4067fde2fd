"""The on-disk embedding cache (SQLite, by content hash) in front of any runtime, and a question cache
in memory."""
from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np

from swr.core.rules.serving import DEFAULT_SERVING
from swr.embed.base import Embedder
from swr.embed.batch import QueryBatcher


class CachedEmbedder(Embedder):
    """Passage vectors cached on disk by content hash (SQLite), so nothing is embedded twice.

    Questions are cached too (in memory, and on disk under a separate key space), so re-asking
    with another top-k, mode or window costs no model call either.
    """

    def __init__(self, inner: Embedder, folder: Path, query_cache_size: int = 4096) -> None:
        super().__init__()
        self.inner = inner
        self.name, self.runtime, self.device, self.dim = inner.name, inner.runtime, inner.device, inner.dim
        folder.mkdir(parents=True, exist_ok=True)
        safe = hashlib.sha1(f"{inner.name}|{inner.runtime}".encode()).hexdigest()[:12]
        self._db = sqlite3.connect(folder / f"embeddings-{safe}.sqlite", check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # a cache: a power cut may lose the last writes (they are re-embedded), a crash loses
        # nothing; FULL fsynced every write, 4-10 ms per new question here
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (key BLOB PRIMARY KEY, v BLOB)")
        self._dblock = threading.Lock()
        self._queries: dict[str, np.ndarray] = {}
        self._qlock = threading.Lock()
        self._qsize = query_cache_size
        # new questions asked at once: one model call (swr.embed.batch)
        self._batcher = QueryBatcher(inner.encode_queries, DEFAULT_SERVING.query_batch_wait_ms) \
            if getattr(inner, "batch_invariant", False) else None

    # counters are the inner model's: that is what "an embedding call" means
    @property
    def calls(self):  # type: ignore[override]
        return self.inner.calls

    @calls.setter
    def calls(self, _):
        pass

    @property
    def encoded(self):  # type: ignore[override]
        return self.inner.encoded

    @encoded.setter
    def encoded(self, _):
        pass

    @property
    def seconds(self):  # type: ignore[override]
        return self.inner.seconds

    @seconds.setter
    def seconds(self, _):
        pass

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).digest() for t in texts]
        found: dict[bytes, np.ndarray] = {}
        with self._dblock:
            for s in range(0, len(keys), 500):
                chunk = list(set(keys[s:s + 500]))
                q = f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})"
                for k, v in self._db.execute(q, chunk):
                    found[k] = np.frombuffer(v, dtype=np.float32)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            by_key = dict(zip(keys, texts))
            vecs = self.inner.encode_passages([by_key[k] for k in missing])
            with self._dblock:  # one transaction: in autocommit every row was its own fsync
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                         [(k, v.astype(np.float32).tobytes()) for k, v in zip(missing, vecs)])
            found.update(zip(missing, vecs))
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Several questions: cached ones from the cache, the others in one model call."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        if len(missing) > 1:
            keys = [hashlib.sha1(b"query\0" + t.encode("utf-8", "surrogatepass")).digest() for t in missing]
            with self._dblock:
                rows = dict(self._db.execute(f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(keys))})",
                                             keys).fetchall())
            new = [(t, k) for t, k in zip(missing, keys) if k not in rows]
            vecs = self.inner.encode_queries([t for t, _ in new]) if new else []
            with self._dblock:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                         [(k, v.astype(np.float32).tobytes()) for (_, k), v in zip(new, vecs)])
            got = {t: np.frombuffer(rows[k], dtype=np.float32) for t, k in zip(missing, keys) if k in rows}
            got.update((t, v) for (t, _), v in zip(new, vecs))
            for t, v in got.items():
                self._remember(t, v)
        return np.stack([self.encode_query(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def _remember(self, text: str, v: np.ndarray) -> None:
        """Keep ``v`` as ``text``'s query vector, the oldest one evicted past the cache's size.
        Under a lock: two sessions evicting at once both picked the same oldest key, and the
        second ``pop`` raised KeyError into its question."""
        with self._qlock:
            while len(self._queries) >= self._qsize and self._queries:
                self._queries.pop(next(iter(self._queries)))
            self._queries[text] = v

    def encode_query(self, text: str) -> np.ndarray:
        v = self._queries.get(text)
        if v is None:
            key = hashlib.sha1(b"query\0" + text.encode("utf-8", "surrogatepass")).digest()
            with self._dblock:
                row = self._db.execute("SELECT v FROM vec WHERE key = ?", (key,)).fetchone()
            if row is not None:
                v = np.frombuffer(row[0], dtype=np.float32)
            else:
                v = self._batcher.encode(text) if self._batcher else self.inner.encode_query(text)
                with self._dblock:
                    self._db.execute("INSERT OR REPLACE INTO vec VALUES (?, ?)", (key, v.astype(np.float32).tobytes()))
            self._remember(text, v)
        return v

    def info(self) -> dict:
        return self.inner.info()
